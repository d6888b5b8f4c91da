// Redaction on the way out, per app, over real HTTP on loopback: a session recorded before any
// rule (an AWS key typed and printed, a password typed at a prompt) is read by an app without
// the `unredacted` permission (every read masked, the raw download refused with 1465, a search
// for the secret finds nothing) and by an app with it (as recorded). The CLI reads as the
// operator: redacted by default, as recorded with --unredacted; `evio redact test` tells the
// matches without printing them.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { APPS, KEYS, makeHome, serve, serverPerTest, signed } from './helpers.js';
import { parseRedactRules } from '../../../src/settings-redact.js';
import { parseKeystore } from '../../../src/keystore.js';

const KEY = 'AKIAIOSFODNN7EXAMPLE';
const PASSWORD = 'hunter2-Xq9';
/** Pieces of the secrets that must not show in a redacted answer (the key is split over records). */
const LEAKS = [KEY, KEY.slice(0, 8), KEY.slice(8), PASSWORD, 'Xq9'];
const EVIO = join(import.meta.dirname, '../../../bin/evio.js');

/** A session (as sudo records it) with the key typed and printed in pieces, and a password after a prompt. */
function writeSession(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const recs: Array<[number, string]> = [
    [4, '$ '],
    ...[...`echo ${KEY.slice(0, 10)}`].map((c): [number, string] => [3, c]),
    ...[...`${KEY.slice(10)}\r`].map((c): [number, string] => [3, c]),
    [4, `echo ${KEY}\r\n${KEY.slice(0, 8)}`],
    [2, 'warning\n'],
    [4, `${KEY.slice(8)}\r\n$ `],
    ...[...'sudo -k; sudo true\r'].map((c): [number, string] => [3, c]),
    [4, 'sudo -k; sudo true\r\n[sudo] password for alice: '],
    ...[...PASSWORD].map((c): [number, string] => [3, c]),
    [3, '\r'],
    [4, '\r\n$ '],
    [1, `stdout ${KEY}\n`],
    [0, `stdin ${KEY}\n`],
  ];
  const files = new Map<number, string>();
  const timing = recs.map(([s, t]) => {
    files.set(s, (files.get(s) ?? '') + t);
    return `${s} 0.010000000 ${t.length}`;
  });
  const names = ['stdin', 'stdout', 'stderr', 'ttyin', 'ttyout'];
  for (const [s, t] of files) writeFileSync(join(dir, names[s]!), t, 'latin1');
  writeFileSync(join(dir, 'timing'), `${timing.join('\n')}\n`);
  writeFileSync(join(dir, 'log'), '1795315409:alice:root::/dev/pts/0:24:80\n/home/alice\n/bin/bash\n');
  writeFileSync(join(dir, 'log.json'), JSON.stringify({ timestamp: { seconds: 1795315409, nanoseconds: 0 }, submituser: 'alice', runuser: 'root', command: '/bin/bash', ttyname: '/dev/pts/0', columns: 80, lines: 24 }));
  chmodSync(join(dir, 'timing'), 0o400);
}

const APPS_HERE = { ...APPS, forensics: { key: 'f'.repeat(64), scheme: 'hmac-sha256' as const, created: '2026-01-01T00:00:00.000Z', unredacted: true } };
const KEYS_HERE = KEYS as Record<string, string>;
KEYS_HERE.forensics = 'f'.repeat(64);

const CALLS = [
  '/REST/iolog?file=s1&start=0',
  '/REST/iolog/replay?file=s1',
  '/REST/iolog/screen?file=s1',
  '/REST/iolog/commands?file=s1',
  `/REST/iolog/search?file=**&query=any:.&detail=1`,
  '/REST/iolog/export?file=s1&format=asciicast',
  '/REST/iolog/export?file=s1&format=asciicast&raw=1',
];

describe('the keystore permission', () => {
  it('takes "unredacted": true or false, and refuses anything else', () => {
    const app = (extra: Record<string, unknown>) => JSON.stringify({ apps: { a: { key: 'k'.repeat(32), scheme: 'hmac-sha256', created: '', ...extra } } });
    expect(parseKeystore('ks', app({ unredacted: true })).apps.a!.unredacted).toBe(true);
    expect(parseKeystore('ks', app({})).apps.a!.unredacted).toBeUndefined();
    expect(() => parseKeystore('ks', app({ unredacted: 'yes' }))).toThrow(/^1607 .*"unredacted" that is not true or false/);
  });
});

describe('redaction per app', () => {
  const held = serverPerTest();

  async function setUp() {
    const home = makeHome({ redact: parseRedactRules([{ name: 'aws-key' }], 'test') }, APPS_HERE);
    held.home = home;
    writeSession(join(home.settings.iologdirs[0]!, 's1'));
    held.server = await serve(home);
    return held.server;
  }

  it('masks every read of an app without the permission, and shows the data to one with it', async () => {
    const server = await setUp();
    for (const path of CALLS) {
      const a = await signed(server, 'admin', 'GET', path);
      expect(a.http, `${path}: ${a.text.slice(0, 200)}`).toBe(200);
      // The chunk's and replay's data come as base64 blobs or text items: judge the decoded JSON too.
      const seen = `${a.text}\n${decodedBlobs(a.body)}`;
      for (const leak of LEAKS) expect(seen, `${path} shows ${leak}`).not.toContain(leak);
      expect(seen).toContain('****');
      const f = await signed(server, 'forensics', 'GET', path);
      expect(f.http).toBe(200);
      expect(`${f.text}\n${decodedBlobs(f.body)}`, path).toMatch(/AKIAIOSF|hunter2/);
    }
  });

  it('masks a followed session (server-sent events) for a redacted app, and not for one with the permission', async () => {
    const server = await setUp();
    // The session is complete: the follow sends all of it, then its end, and closes.
    const seen = async (app: string) => {
      const a = await signed(server, app, 'GET', '/REST/iolog/follow?file=s1');
      expect(a.http).toBe(200);
      expect(a.text).toContain('event: end');
      const chunks = [...a.text.matchAll(/^event: chunk\nid: \d+\ndata: (.*)$/gm)].map((m) => JSON.parse(m[1]!) as Record<string, unknown>);
      expect(chunks.length).toBeGreaterThan(0);
      return `${a.text}\n${chunks.map((c) => decodedBlobs(c)).join('\n')}`;
    };
    const redactedView = await seen('admin');
    for (const leak of LEAKS) expect(redactedView, `follow shows ${leak}`).not.toContain(leak);
    expect(redactedView).toContain('****');
    expect(await seen('forensics')).toMatch(/AKIAIOSF/);
  });

  it('finds nothing when a redacted app searches for the secret; the unredacted app finds it', async () => {
    const server = await setUp();
    for (const q of [`any:${KEY}`, 'any:AKIA', `input:${PASSWORD}`, 'ttyin:hunter']) {
      const a = await signed(server, 'admin', 'GET', `/REST/iolog/search?file=**&query=${encodeURIComponent(q)}&detail=1`);
      expect(a.http).toBe(200);
      expect(a.body.iologs, q).toEqual([]);
    }
    const f = await signed(server, 'forensics', 'GET', `/REST/iolog/search?file=**&query=${encodeURIComponent(`any:${KEY}`)}`);
    expect((f.body.iologs as string[]).length).toBe(1);
  });

  it('exports over REST as a file, and answers a bad export request with its code as JSON', async () => {
    const server = await setUp();
    const a = await signed(server, 'admin', 'GET', '/REST/iolog/export?file=s1&format=asciicast');
    expect(a.headers['content-type']).toBe('application/x-asciicast');
    expect(JSON.parse(a.text.split('\n')[0]!)).toMatchObject({ version: 2, width: 80, height: 24 });
    const bad = await signed(server, 'admin', 'GET', '/REST/iolog/export?file=s1&format=gif');
    expect(bad.http).toBe(400);
    expect(bad.body.status).toBe(1417);
  });

  it('refuses the raw download to a redacted app (1465) and gives it to the unredacted one', async () => {
    const server = await setUp();
    const a = await signed(server, 'admin', 'GET', '/REST/iologfile?file=s1/ttyout');
    expect(a.http).toBe(403);
    expect(a.body.status).toBe(1465);
    const f = await signed(server, 'forensics', 'GET', '/REST/iologfile?file=s1/ttyout');
    expect(f.http).toBe(200);
    expect(f.text).toContain(KEY.slice(8));
  });

  it('the CLI: export redacted by default, as recorded with --unredacted; redact test reports without the secret', async () => {
    const home = makeHome({ redact: parseRedactRules([{ name: 'aws-key' }], 'test') }, APPS_HERE);
    held.home = home;
    const session = join(home.settings.iologdirs[0]!, 's1');
    writeSession(session);
    const settingsFile = join(home.dir, 'settings.json');
    writeFileSync(settingsFile, JSON.stringify({ iologdirs: home.settings.iologdirs, redact: [{ name: 'aws-key' }] }));
    const run = (...args: string[]) => spawnSync(process.execPath, [EVIO, ...args], { encoding: 'latin1', env: { ...process.env, EVIO_HOME: home.dir } });
    const red = run('--config', settingsFile, 'iolog', 'export', '--format', 'asciicast', 's1');
    expect(red.status, red.stderr).toBe(0);
    const cast = red.stdout.replace(/\\r|\\n|"\]\n\[[^"]*"/g, '');
    for (const leak of LEAKS) expect(cast).not.toContain(leak);
    const plain = run('--config', settingsFile, 'iolog', 'export', '--format', 'asciicast', 's1', '--unredacted');
    expect(plain.status, plain.stderr).toBe(0);
    expect(plain.stdout).toContain(KEY.slice(8));

    const called = run('--config', settingsFile, 'call', 'GET', '/REST/iolog?file=s1');
    expect(called.status, called.stderr).toBe(0);
    const calledBlobs = decodedBlobs(JSON.parse(called.stdout) as Record<string, unknown>);
    for (const leak of LEAKS) expect(calledBlobs).not.toContain(leak);
    const calledPlain = run('--config', settingsFile, 'call', 'GET', '/REST/iolog?file=s1', '--unredacted');
    expect(decodedBlobs(JSON.parse(calledPlain.stdout) as Record<string, unknown>)).toContain(KEY.slice(8));

    const test = run('redact', 'test', settingsFile, session);
    expect(test.status, test.stderr).toBe(0);
    for (const leak of LEAKS) expect(test.stdout).not.toContain(leak);
    const lines = test.stdout.trim().split('\n');
    // Each stream's key, the typed password, then the counts.
    const hits = lines.slice(0, -1).map((l) => l.split('\t').slice(0, 4));
    expect(hits).toContainEqual(['aws-key', 'ttyin', '5', '20']);
    expect(hits).toContainEqual(['aws-key', 'stdout', '7', '20']);
    expect(hits).toContainEqual(['aws-key', 'stdin', '6', '20']);
    expect(hits).toContainEqual(['password', 'ttyin', String(26 + 19), String(PASSWORD.length)]);
    expect(hits.filter((h) => h[0] === 'aws-key' && h[1] === 'ttyout')).toHaveLength(2);
    expect(lines.at(-1)).toBe(`${session}: aws-key 5, password 1`);

    const json = JSON.parse(run('redact', 'test', settingsFile, session, '--json').stdout) as { hits: Array<{ preview: string }> };
    expect(json.hits[0]!.preview).toContain('*'.repeat(20));

    const clean = join(home.dir, 'clean.txt');
    writeFileSync(clean, 'nothing to see\n');
    const none = run('redact', 'test', settingsFile, clean);
    expect(none.status).toBe(3);
    const badRules = join(home.dir, 'bad.json');
    writeFileSync(badRules, '{"redact": [{"name": "x"}]}');
    const bad = run('redact', 'test', badRules, clean);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/^evio: 1466 /);
    const missing = run('redact', 'test', settingsFile, join(home.dir, 'nope'));
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/^evio: 1467 /);
  });
});

/** The base64 blobs of a chunk answer, decoded (Latin-1), so that a test sees the bytes they carry. */
function decodedBlobs(body: Record<string, unknown>): string {
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) k === 'blob' && typeof x === 'string' ? out.push(Buffer.from(x, 'base64').toString('latin1')) : walk(x);
  };
  walk(body);
  return out.join('');
}
