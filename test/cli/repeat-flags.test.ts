// A wildcard flag given more than once is a list of alternatives (OR), as the repeated REST
// parameter is; a flag that takes one value is still refused when repeated.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const bin = new URL('../../bin/evio.js', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'evio-repeat-'));
const env = { ...process.env, EVIO_HOME: join(dir, 'home') };
function evio(...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env, cwd: dir, timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const log = join(dir, 'events.ndjson');
const rec = (recnum: number, runuser: string, time: number) => ({ recnum, uniqueid: `u${recnum}`, etype: 'A', time, submituser: 'alice', runuser, runcommand: '/bin/ls' });
writeFileSync(log, [rec(1, 'root', 1767225600), rec(2, 'admin', 1767225660), rec(3, 'www', 1767225720)].map((r) => JSON.stringify(r)).join('\n') + '\n');
const recnums = (out: string) => out.trim().split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { recnum: number }).recnum);

describe('repeated flags', () => {
  it('events query --runuser root --runuser admin is either one', () => {
    const r = evio('events', 'query', `ff:${log}`, '--runuser', 'root', '--runuser', 'admin');
    expect(r.err).toBe('');
    expect(recnums(r.out)).toEqual([1, 2]);
  });

  it('relative times reach the engine: --to -1d excludes nothing older', () => {
    expect(recnums(evio('events', 'query', `ff:${log}`, '--to', 'now').out)).toEqual([1, 2, 3]);
    expect(recnums(evio('events', 'query', `ff:${log}`, '--from', '-1h').out)).toEqual([]);
  });

  it('a one-value flag given twice is still a usage error', () => {
    const r = evio('events', 'query', `ff:${log}`, '--limit', '1', '--limit', '2');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/1003 events query: --limit is given more than once/);
  });

  it('iolog list takes repeated wildcards and --match', () => {
    const r = evio('iolog', 'list', '--runuser', 'root', '--runuser', 'admin', '--match', 'any', '--refresh', '0');
    expect(r.err).toBe('');
    expect(JSON.parse(r.out)).toEqual({ result: [], status: 0 });
    expect(evio('iolog', 'list', '--len', '1', '--len', '2').code).toBe(2);
  });
});
