// Redaction at ingest: a session sudo_sendlog sends with a password typed at a prompt and an AWS
// key split over two records is written with both masked — on disk, in what sudoreplay plays, in
// evio's search — with every byte count kept, and log.json counts the matches (not the secrets).
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { iologSearch, matchingPaths, SearchAnswer } from '../../src/app/iolog.js';
import { parseRedactRules } from '../../src/settings-redact.js';
import { events, replay, sendlog, settled, startTestServer, sudoToolsAvailable, type TestServer } from './helpers.js';

const enabled = sudoToolsAvailable();
const PASSWORD = 'hunter2-Xq9';
const KEY = 'AKIAIOSFODNN7EXAMPLE';

/** A tty session: a sudo password prompt, the password typed key by key, then a key printed in two writes. */
function makeSecretSession(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const recs: [number, string][] = [
    [4, '$ sudo -k; sudo true\r\n'],
    [4, '[sudo] password for alice: '],
    ...[...PASSWORD].map((c): [number, string] => [3, c]),
    [3, '\r'],
    [4, '\r\n$ '],
    ...[...'cat creds\r'].map((c): [number, string] => [3, c]),
    [4, 'cat creds\r\naws_access_key_id = AKIAIOSF'],
    [4, 'ODNN7EXAMPLE\r\n$ '],
  ];
  const files: Record<string, string[]> = { '3': [], '4': [] };
  const timing: string[] = [];
  for (const [s, t] of recs) {
    files[String(s)]!.push(t);
    timing.push(`${s} 0.010000000 ${Buffer.byteLength(t, 'latin1')}`);
  }
  writeFileSync(join(dir, 'ttyin'), files['3']!.join(''), 'latin1');
  writeFileSync(join(dir, 'ttyout'), files['4']!.join(''), 'latin1');
  writeFileSync(join(dir, 'timing'), `${timing.join('\n')}\n`);
  writeFileSync(join(dir, 'log'), '1795315409:alice:root::/dev/pts/0:24:80\n/home/alice\n/bin/bash\n');
  writeFileSync(join(dir, 'log.json'), `${JSON.stringify({ timestamp: { seconds: 1795315409, nanoseconds: 0 }, submituser: 'alice', command: '/bin/bash', runuser: 'root', ttyname: '/dev/pts/0', submithost: 'web01', submitcwd: '/home/alice', columns: 80, lines: 24, runargv: ['bash'] }, null, 4)}\n`);
}

describe.skipIf(!enabled)('redaction at ingest', () => {
  let t: TestServer;
  let work: string;
  beforeAll(async () => {
    // The rules come from the settings' top-level "redact" key (here: the built-in aws-key).
    t = await startTestServer({ commitIntervalMs: 50 }, ['127.0.0.1:0'], { redact: parseRedactRules([{ name: 'aws-key' }], 'test') });
    work = mkdtempSync(join(tmpdir(), 'evio-redact-'));
  });
  afterAll(async () => {
    await t?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('writes neither the typed password nor the key, anywhere', async () => {
    const src = join(work, 'secret');
    makeSecretSession(src);
    const res = await sendlog(t.port, [], src);
    expect(res.code).toBe(0);
    await settled(t);
    const k = events(t.settings).find((r) => r.etype === 'K')!;
    const dir = k.iolog as string;
    // On disk: no file of the session holds either secret.
    for (const f of readdirSync(dir)) {
      const bytes = readFileSync(join(dir, f)).toString('latin1');
      expect(bytes, f).not.toContain(PASSWORD);
      expect(bytes, f).not.toContain(KEY);
      expect(bytes, f).not.toContain('ODNN7EXAMPLE');
    }
    // Every byte count kept: the timing file is the original's.
    expect(readFileSync(join(dir, 'timing'), 'latin1')).toBe(readFileSync(join(src, 'timing'), 'latin1'));
    expect(readFileSync(join(dir, 'ttyin'), 'latin1')).toBe('*'.repeat(PASSWORD.length) + '\rcat creds\r');
    expect(readFileSync(join(dir, 'ttyout'), 'latin1')).toContain(`aws_access_key_id = ${'*'.repeat(20)}\r\n`);
    // What sudoreplay plays and what evio's search finds.
    const played = await replay(t.root, relative(t.root, dir));
    expect(played.stdout).not.toContain(KEY);
    expect(played.stdout).toContain('aws_access_key_id = ********************');
    for (const q of [`any:${PASSWORD}`, 'any:AKIA[0-9A-Z]{4}', 'input:hunter2']) {
      const found: string[] = [];
      for await (const p of matchingPaths(await iologSearch(t.engine, { file: '*/*/*', query: q }), new SearchAnswer())) found.push(p);
      expect(found, q).toEqual([]);
    }
    const positive: string[] = [];
    for await (const p of matchingPaths(await iologSearch(t.engine, { file: '*/*/*', query: 'output:aws_access_key_id' }), new SearchAnswer())) positive.push(p);
    expect(positive.length).toBe(1);
    // log.json counts the matches per rule, never the secrets.
    const json = JSON.parse(readFileSync(join(dir, 'log.json'), 'utf8')) as { redactions?: Record<string, number> };
    expect(json.redactions).toEqual({ password: 1, 'aws-key': 1 });
  });
});

