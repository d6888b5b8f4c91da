// The CLI doors of the service, run as a user runs them (node bin/evio.js, after npm run build):
// `evio serve` on a fresh data folder and its printed examples, `evio rest` against a running
// server, and `evio keys`.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../../src/http/server.js';
import { KEYS, makeHome, serve, type TestHome } from './helpers.js';
import { exampleCalls } from '../../../src/cli/serve.js';

const run = promisify(execFile);
const EVIO = resolve(__dirname, '../../../bin/evio.js');

async function evio(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  try {
    const r = await run(process.execPath, [EVIO, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 30_000 });
    return { code: 0, out: r.stdout, err: r.stderr };
  } catch (e) {
    const x = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof x.code === 'number' ? x.code : -1, out: x.stdout ?? '', err: x.stderr ?? '' };
  }
}

/** Splits a printed shell line into arguments (single quotes only, as serve prints them). */
function shellWords(line: string): string[] {
  return [...line.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

describe('evio serve on a fresh machine', () => {
  let dir: string;
  let child: ChildProcess | null = null;
  let out = '';
  let err = '';

  async function start(): Promise<void> {
    out = '';
    err = '';
    child = spawn(process.execPath, [EVIO, 'serve', '--port', '0'], { env: { PATH: process.env.PATH ?? '', EVIO_HOME: join(dir, 'data') } });
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    const end = Date.now() + 20_000;
    while (!/terminal \(a signed URL in a log.*\n/.test(out) && !/keystore has no apps/.test(out)) {
      if (Date.now() > end || child.exitCode !== null) throw new Error(`serve did not start: ${out}${err}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async function stop(): Promise<number | null> {
    const c = child!;
    const exited = new Promise<number | null>((r) => c.once('exit', (code) => r(code)));
    c.kill('SIGTERM');
    const code = await exited;
    child = null;
    return code;
  }

  beforeAll(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'evio-serve-')));
  });
  afterAll(async () => {
    if (child) await stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates the data folder, the I/O log root and a 0600 keystore, and prints working examples', async () => {
    await start();
    expect(out).toMatch(/^evio serving http:\/\/127\.0\.0\.1:\d+ /);
    expect(out).toMatch(/First start: created app "admin"/);
    expect(statSync(join(dir, 'data', 'keystore.json')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'data', 'iolog')).isDirectory()).toBe(true);
    // The key is not printed (a service's output goes to its journal): a 0600 file holds it.
    const keyFile = /Its key is in (\S+) \(mode 0600/.exec(out)![1]!;
    expect(keyFile).toBe(join(dir, 'data', 'admin.key'));
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const key = readFileSync(keyFile, 'utf8').trim();
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.parse(readFileSync(join(dir, 'data', 'keystore.json'), 'utf8')).apps.admin.key).toBe(key);
    expect(out + err).not.toContain(key);
    expect(out).not.toContain('--key ');

    const restLine = /^ {2}(evio rest .*)$/m.exec(out)![1]!;
    // The output is not a terminal (a journal keeps it): no signed URL is written into it (issue 27).
    expect(out + err).not.toMatch(/hmac=|^ {2}curl /m);
    expect(out).toMatch(/signed curl example is printed only when the output is a terminal/);
    // On a terminal the curl form follows; its signature works once.
    const port = Number(/^evio serving http:\/\/127\.0\.0\.1:(\d+) /.exec(out)![1]);
    const shown = exampleCalls({ url: `http://127.0.0.1:${port}`, appid: 'admin', key, keystore: join(dir, 'data', 'keystore.json'), skewSeconds: 300, prefix: '', terminal: true });
    const curlLine = /^ {2}(curl .*)$/m.exec(shown)![1]!;
    expect(shown).toMatch(/expires after 300 s and works once/);

    const rest = await evio(shellWords(restLine).slice(1));
    expect(rest.code).toBe(0);
    expect(JSON.parse(rest.out)).toMatchObject({ status: 0, destinations: { ff: 'events.ndjson' } }); // relative to eventlogdirs: no server path in an answer

    const [, ...curlArgs] = shellWords(curlLine);
    const first = await run('curl', ['-s', ...curlArgs]);
    expect(JSON.parse(first.stdout)).toMatchObject({ status: 0 });
    const again = await run('curl', ['-s', ...curlArgs]);
    expect(JSON.parse(again.stdout)).toEqual({ status: 8119, error: '8119 invalid authentication for appid admin from 127.0.0.1' });

    expect(await stop()).toBe(0);
    expect(err).toMatch(/stopping/);
  });

  it('on a later start prints an example that reads the key from the keystore, not the key', async () => {
    await start();
    expect(out).not.toMatch(/First start/);
    expect(out).not.toContain('--key ');
    expect(out).not.toContain(JSON.parse(readFileSync(join(dir, 'data', 'keystore.json'), 'utf8')).apps.admin.key);
    const restLine = /^ {2}(evio rest .*)$/m.exec(out)![1]!;
    expect(restLine).toContain(`--keystore ${join(dir, 'data', 'keystore.json')}`);
    const rest = await evio(shellWords(restLine).slice(1));
    expect(rest.code).toBe(0);
    expect(await stop()).toBe(0);
  });
});

describe('evio serve refusals', () => {
  it('refuses plain HTTP on a non-loopback address before creating anything', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'evio-serve-')));
    try {
      const r = await evio(['serve', '--host', '0.0.0.0', '--port', '0'], { EVIO_HOME: join(dir, 'data') });
      expect(r.code).toBe(1);
      expect(r.err).toMatch(/^evio: 1610 refusing plain HTTP on 0\.0\.0\.0/);
      expect(existsSync(join(dir, 'data', 'keystore.json'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a keystore others can read', async () => {
    const h = makeHome();
    try {
      chmodSync(h.settings.keystore, 0o644);
      const r = await evio(['serve', '--port', '0'], { EVIO_HOME: h.dir });
      expect(r.code).toBe(1);
      expect(r.err).toMatch(/^evio: 1606 keystore .* has mode 0644/);
    } finally {
      await h.cleanup();
    }
  });
});

describe('evio rest against a running server', () => {
  let home: TestHome;
  let server: RunningServer;
  beforeAll(async () => {
    home = makeHome();
    server = await serve(home);
  });
  afterAll(async () => {
    await server?.close();
    await home?.cleanup();
  });

  it('signs with --key, prints the JSON and exits 0 on status 0', async () => {
    const r = await evio(['rest', '--url', server.url, '--appid', 'admin', '--key', KEYS.admin, 'GET', '/REST/v2.0/events/destinations']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ status: 0 });
  });

  it('reads the key with --keystore; takes -X METHOD; exits 1 on a refusal', async () => {
    const r = await evio(['rest', '--url', server.url, '--appid', 'reader', '--keystore', home.settings.keystore, '-X', 'DELETE', '/REST/v2.0/events?format=ff&file=events.ndjson&all=1']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out)).toEqual({ status: 1605, error: '1605 appid reader is read-only and may not call DELETE /events' });
  });

  it('sends --data in the signed body', async () => {
    const r = await evio(['rest', '--url', server.url, '--appid', 'admin', '--key', KEYS.admin, '-X', 'DELETE', '--data', '{"note":"x"}', '/REST/v2.0/events?format=ff&file=events.ndjson']);
    expect(JSON.parse(r.out).status).toBe(1111); // past auth (the body was signed), refused by the handler: no filter
  });

  it('a wrong key answers 8119; the legacy scheme works for a legacy app', async () => {
    const bad = await evio(['rest', '--url', server.url, '--appid', 'admin', '--key', KEYS.reader, '/REST/v2.0/events/destinations']);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.out).status).toBe(8119);
    const legacy = await evio(['rest', '--url', server.url, '--appid', 'legacy', '--key', KEYS.legacy, '--legacy-md5', '/REST/v2.0/events/destinations']);
    expect(legacy.code).toBe(0);
  });

  it('an unreachable service is 1613', async () => {
    const r = await evio(['rest', '--url', 'http://127.0.0.1:1', '--appid', 'admin', '--key', KEYS.admin, '/REST/v2.0/events/destinations']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^evio: 1613 GET http:\/\/127\.0\.0\.1:1\/REST\/v2\.0\/events\/destinations: ECONNREFUSED/);
  });
});

describe('evio keys', () => {
  let dir: string;
  let ks: string;
  beforeAll(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'evio-keys-')));
    ks = join(dir, 'sub', 'keystore.json');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('add prints the key once; list hides it unless --show-key; rotate and remove', async () => {
    const add = await evio(['keys', 'add', 'auditor', '--keystore', ks, '--route', 'GET /events', '--route', 'GET /events/destinations', '--read-only', '--rate-limit', '60']);
    expect(add.code).toBe(0);
    const key = add.out.trim();
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(ks).mode & 0o777).toBe(0o600);

    const list = await evio(['keys', 'list', '--keystore', ks]);
    expect(list.out).toContain('auditor  hmac-sha256  read-only  60/min  routes: GET /events, GET /events/destinations');
    expect(list.out).not.toContain(key);
    expect((await evio(['keys', 'list', '--keystore', ks, '--show-key'])).out).toContain(key);
    expect(JSON.parse((await evio(['keys', 'list', '--keystore', ks, '--json'])).out).apps.auditor.key).toBeUndefined();

    const dup = await evio(['keys', 'add', 'auditor', '--keystore', ks]);
    expect(dup.code).toBe(1);
    expect(dup.err).toMatch(/^evio: 1609 /);

    const rot = await evio(['keys', 'rotate', 'auditor', '--keystore', ks]);
    const newKey = rot.out.trim();
    expect(newKey).toMatch(/^[0-9a-f]{64}$/);
    expect(newKey).not.toBe(key);
    expect(JSON.parse(readFileSync(ks, 'utf8')).apps.auditor.key).toBe(newKey);

    expect((await evio(['keys', 'add', 'old-client', '--keystore', ks, '--legacy-md5'])).code).toBe(0);
    expect(JSON.parse(readFileSync(ks, 'utf8')).apps['old-client'].scheme).toBe('hmac-md5-legacy');

    expect((await evio(['keys', 'remove', 'auditor', '--keystore', ks])).code).toBe(0);
    expect(JSON.parse(readFileSync(ks, 'utf8')).apps.auditor).toBeUndefined();
    const gone = await evio(['keys', 'remove', 'auditor', '--keystore', ks]);
    expect(gone.err).toMatch(/^evio: 1608 /);
    expect(statSync(ks).mode & 0o777).toBe(0o600);
  });

  it('refuses bad input', async () => {
    expect((await evio(['keys', 'add', 'bad id', '--keystore', ks])).code).toBe(2);
    expect((await evio(['keys', 'add', 'x', '--keystore', ks, '--route', 'events'])).code).toBe(2);
    expect((await evio(['keys', 'frobnicate', '--keystore', ks])).code).toBe(2);
  });
});
