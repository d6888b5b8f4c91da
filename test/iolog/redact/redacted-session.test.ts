// Redaction on the way out: a session recorded without rules, read through RedactedSession,
// shows `*` where the rules match — whatever the record a secret was split at, in every stream,
// and whatever range a read asks for (a range edge inside the secret) — with every byte count
// and position kept. Sessions are real sudo I/O log directories read by SudoSession.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedactedSession, type RedactView } from '../../../src/iolog/redact/redacted-session.js';
import { SudoSession } from '../../../src/iolog/sudo-session.js';
import type { EventOptions, IologSession } from '../../../src/iolog/session.js';
import { STREAM_NAMES, type StreamName } from '../../../src/iolog/timing.js';
import { parseRedactRules } from '../../../src/settings-redact.js';

const SECRET = 'AKIAIOSFODNN7EXAMPLE';
const view: RedactView = { rules: parseRedactRules([{ name: 'aws-key' }], 'test'), maskPasswords: true, passprompt: '[Pp]assword[: ]*' };

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'evio-redacted-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

let n = 0;
/** A session directory from records [stream, text] (Latin-1), 10 ms apart. */
function session(records: Array<[StreamName, string]>): string {
  const dir = join(work, String(n++));
  mkdirSync(dir, { recursive: true });
  const files = new Map<StreamName, string>();
  const timing = records.map(([s, t]) => {
    files.set(s, (files.get(s) ?? '') + t);
    return `${STREAM_NAMES.indexOf(s)} 0.010000000 ${t.length}`;
  });
  for (const [s, t] of files) writeFileSync(join(dir, s), t, 'latin1');
  writeFileSync(join(dir, 'timing'), `${timing.join('\n')}\n`);
  writeFileSync(join(dir, 'log'), '1795315409:alice:root::/dev/pts/0:24:80\n/home/alice\n/bin/bash\n');
  return dir;
}

/** Every data byte read, per stream, and the positions they came at (checked to be contiguous). */
async function read(s: IologSession, opts: EventOptions = {}): Promise<{ streams: Map<StreamName, string>; all: string; first: number | null }> {
  const streams = new Map<StreamName, string>();
  let all = '';
  let first: number | null = null;
  let next: number | null = null;
  for await (const ev of s.events(opts)) {
    if (ev.kind !== 'data') continue;
    if (next !== null && !opts.streams) expect(ev.pos).toBe(next);
    first ??= ev.pos;
    next = ev.pos + ev.bytes.length;
    const t = Buffer.from(ev.bytes).toString('latin1');
    streams.set(ev.stream, (streams.get(ev.stream) ?? '') + t);
    all += t;
  }
  return { streams, all, first };
}

const stars = (k: number) => '*'.repeat(k);

describe('a session read through the rules', () => {
  it('masks a secret split between two records at every offset, in every stream', async () => {
    for (const stream of STREAM_NAMES) {
      for (let k = 1; k < SECRET.length; k++) {
        // Other streams' bytes between the two halves, as a real session interleaves them.
        const other: StreamName = stream === 'ttyout' ? 'stdout' : 'ttyout';
        const dir = session([
          [stream, `key=${SECRET.slice(0, k)}`],
          [other, 'noise '],
          [stream, `${SECRET.slice(k)} end\n`],
        ]);
        const plain = await read(new SudoSession(dir));
        expect(plain.streams.get(stream)).toBe(`key=${SECRET} end\n`);
        const masked = await read(new RedactedSession(new SudoSession(dir), view));
        expect(masked.streams.get(stream), `${stream} split at ${k}`).toBe(`key=${stars(SECRET.length)} end\n`);
        expect(masked.streams.get(other)).toBe('noise ');
        expect(masked.all.length).toBe(plain.all.length);
      }
    }
  });

  it('masks a match that grows as its records arrive (a token already long enough to match in its first part), at every split', async () => {
    const token = 'abcdefghijklmnopqrstuvwxyz0123456789ABCD';
    const bearer: RedactView = { rules: parseRedactRules([{ name: 'bearer-token' }], 'test'), maskPasswords: false, passprompt: 'x' };
    const line = `Authorization: Bearer ${token}\r\n`;
    const at = line.indexOf(token);
    for (let k = 1; k < line.length; k++) {
      const dir = session([
        ['stdout', line.slice(0, k)],
        ['stdout', line.slice(k)],
      ]);
      const masked = await read(new RedactedSession(new SudoSession(dir), bearer));
      expect(masked.all, `split at ${k}`).toBe(`${line.slice(0, at)}${stars(token.length)}\r\n`);
    }
  });

  it('masks a secret that a range edge cuts, at every edge, keeping positions', async () => {
    const dir = session([
      ['ttyout', '$ cat creds\r\n'],
      ['ttyout', `aws_access_key_id = ${SECRET.slice(0, 7)}`],
      ['ttyin', 'x'],
      ['ttyout', `${SECRET.slice(7)}\r\n$ `],
    ]);
    const plain = (await read(new SudoSession(dir))).all;
    // The secret's first 7 bytes, the other stream's byte, its last 13: positions span them all.
    const at = plain.indexOf(`${SECRET.slice(0, 7)}x${SECRET.slice(7)}`);
    expect(at).toBeGreaterThan(0);
    const whole = (await read(new RedactedSession(new SudoSession(dir), view))).all;
    expect(whole).not.toContain(SECRET.slice(0, 4));
    expect(whole.slice(at, at + SECRET.length + 1)).toBe(`${stars(7)}x${stars(13)}`);
    for (let edge = at - 1; edge <= at + SECRET.length + 3; edge++) {
      const tail = await read(new RedactedSession(new SudoSession(dir), view), { from: edge });
      expect(tail.all, `from ${edge}`).toBe(whole.slice(edge));
      expect(tail.first).toBe(edge);
      const head = await read(new RedactedSession(new SudoSession(dir), view), { to: edge });
      expect(head.all, `to ${edge}`).toBe(whole.slice(0, edge));
      const mid = await read(new RedactedSession(new SudoSession(dir), view), { from: edge - 3, to: edge + 3 });
      expect(mid.all, `from ${edge - 3} to ${edge + 3}`).toBe(whole.slice(edge - 3, edge + 3));
    }
  });

  it('masks a password typed after a prompt, when only input is asked for', async () => {
    const dir = session([
      ['ttyout', '[sudo] password for alice: '],
      ...[...'hunter2'].map((c): [StreamName, string] => ['ttyin', c]),
      ['ttyin', '\r'],
      ['ttyout', '\r\n$ '],
      ['ttyin', 'ls\r'],
    ]);
    const r = await read(new RedactedSession(new SudoSession(dir), view), { streams: new Set<StreamName>(['ttyin']) });
    expect(r.all).toBe('*******\rls\r');
    expect([...r.streams.keys()]).toEqual(['ttyin']);
  });

  it('keeps non-data events, times and the session as recorded when nothing matches', async () => {
    const dir = session([
      ['ttyout', 'hello\r\n'],
      ['ttyin', 'ls\r'],
    ]);
    const a: unknown[] = [];
    const b: unknown[] = [];
    for await (const ev of new SudoSession(dir).events()) a.push({ ...ev, bytes: 'bytes' in ev ? Buffer.from(ev.bytes).toString('latin1') : undefined });
    for await (const ev of new RedactedSession(new SudoSession(dir), view).events()) b.push({ ...ev, bytes: 'bytes' in ev ? Buffer.from(ev.bytes).toString('latin1') : undefined });
    expect(b).toEqual(a);
  });
});
