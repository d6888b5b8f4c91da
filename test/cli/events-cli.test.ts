// The evio command as a user runs it (the built bin), on the embedded stores.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateEvents } from '../../src/eventlog/generate.js';

const bin = new URL('../../bin/evio.js', import.meta.url).pathname;
const evio = (args: string[], input?: string, env: Record<string, string> = {}) =>
  execFileSync(process.execPath, [bin, ...args], { encoding: 'utf8', input, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });

describe('evio events', () => {
  const dir = mkdtempSync(join(tmpdir(), 'evio-cli-'));
  const src = join(dir, 'src.ndjson');
  const records = [...generateEvents({ count: 500, seed: 9 })].map(({ recnum: _drop, ...r }) => r);
  writeFileSync(src, records.map((r) => JSON.stringify(r)).join('\n') + '\n');

  it('appends NDJSON from a file and from stdin, assigning recnums', () => {
    evio(['events', 'append', `ff:${join(dir, 'a.ndjson')}`, src]);
    const lines = readFileSync(join(dir, 'a.ndjson'), 'utf8').trim().split('\n');
    expect(lines.length).toBe(500);
    expect(JSON.parse(lines[499]!).recnum).toBe(500);
    evio(['events', 'append', `db:${join(dir, 'b.sqlite')}`], readFileSync(src, 'utf8'));
    const out = evio(['events', 'query', `db:${join(dir, 'b.sqlite')}`, '--dump', '1', '--order', 'recnum', '--orderdirection', 'desc', '--limit', '1']);
    expect(JSON.parse(out).recnum).toBe(500);
  });

  it('copies between stores and a second copy adds nothing', () => {
    const ff = `ff:${join(dir, 'a.ndjson')}`;
    const db = `db:${join(dir, 'c.sqlite')}`;
    evio(['events', 'copy', '--from', ff, '--to', db]);
    const q = (store: string) => evio(['events', 'query', store, '--submituser', 'a*', '--etype', 'A,K']);
    expect(q(db)).toBe(q(ff).replace(/,"offset":\d+/g, ''));
    const again = execFileSync(process.execPath, [bin, 'events', 'copy', '--from', ff, '--to', db], { encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
    expect(again).toBe('');
  });

  it('answers bad input with a code, not a stack trace', () => {
    try {
      evio(['events', 'query', `db:${join(dir, 'b.sqlite')}`, '--etype', 'F']);
      expect.unreachable();
    } catch (err) {
      const e = err as { status: number; stderr: string };
      expect(e.status).toBe(1);
      expect(e.stderr).toBe('evio: 1104 etype=F needs dump=1: without it finish records are merged into their accepts\n');
    }
  });
});
