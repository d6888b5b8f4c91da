// The "logsrvd" settings key and the evio logsrvd command line: every bad value is refused with
// a message that names it.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/settings.js';
import { parseListen } from '../../src/settings-logsrvd.js';

const dir = mkdtempSync(join(tmpdir(), 'evio-lsd-settings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function load(logsrvd: unknown) {
  const file = join(dir, 'evio.json');
  writeFileSync(file, JSON.stringify({ home: dir, logsrvd }));
  return loadSettings({ config: file });
}

describe('logsrvd settings', () => {
  it('has defaults that start nothing from evio serve', () => {
    const s = loadSettings({ env: { EVIO_HOME: dir } });
    expect(s.logsrvd).toMatchObject({ listen: [], tls: null, iologDir: '', iologFile: '%{seq}', compress: false, commitIntervalMs: 10_000 });
  });

  it('resolves paths against the settings file and keeps the members given', () => {
    const s = load({ listen: ['0.0.0.0:30344(tls)', '[::1]:30343'], tls: { cert: 'c.pem', key: 'k.pem', ca: 'ca.pem' }, iologDir: 'io/%{user}', compress: true, maxBytesPerSecond: 0 });
    expect(s.logsrvd.tls).toEqual({ cert: join(dir, 'c.pem'), key: join(dir, 'k.pem'), ca: join(dir, 'ca.pem') });
    expect(s.logsrvd.iologDir).toBe(join(dir, 'io/%{user}'));
    expect(s.logsrvd.compress).toBe(true);
  });

  it.each([
    [{ listen: 'x' }, /logsrvd"\.listen must be an array/],
    [{ listen: ['nohost'] }, /^1810 .*"nohost"/],
    [{ listen: ['1.2.3.4:99999'] }, /^1810 /],
    [{ bogus: 1 }, /unknown key "bogus"/],
    [{ commitIntervalMs: 0 }, /commitIntervalMs must be a whole number of 1 or more/],
    [{ maxConnections: 1.5 }, /maxConnections must be a whole number/],
    [{ iologFile: '/abs' }, /iologFile must be a relative template/],
    [{ tls: { cert: 'c' } }, /tls must be null or/],
    [[], /must be an object/],
  ])('refuses %j', (v, re) => {
    expect(() => load(v)).toThrow(re);
  });

  it('parses listen entries as sudo writes them', () => {
    expect(parseListen('*:30344(tls)')).toEqual({ host: '0.0.0.0', port: 30344, tls: true });
    expect(parseListen('[::]:30343')).toEqual({ host: '::', port: 30343, tls: false });
    expect(parseListen('logs.example.com:1')).toEqual({ host: 'logs.example.com', port: 1, tls: false });
  });
});

describe('evio logsrvd command line', () => {
  const bin = fileURLToPath(new URL('../../bin/evio.js', import.meta.url));
  const run = (args: string[]) =>
    new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
      execFile(process.execPath, [bin, ...args], { env: { ...process.env, EVIO_HOME: dir }, timeout: 30_000 }, (e, out, err) => resolve({ code: e ? ((e as { code?: number }).code ?? null) : 0, out, err }));
    });

  it('prints its help with an example', async () => {
    const r = await run(['logsrvd', '--help']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/Usage: evio logsrvd/);
    expect(r.out).toMatch(/Example:\n {2}EVIO_HOME=/);
  });

  it('refuses a bad --listen, TLS without a certificate, and plain TCP off loopback', async () => {
    expect((await run(['logsrvd', '--listen', 'nope'])).err).toMatch(/1810 .*"nope"/);
    expect((await run(['logsrvd', '--listen', '127.0.0.1:0(tls)'])).err).toMatch(/1810 .*needs logsrvd\.tls/);
    const r = await run(['logsrvd', '--listen', '0.0.0.0:0']);
    expect(r.err).toMatch(/1610 .*in clear/);
    expect(r.code).not.toBe(0);
  });
});
