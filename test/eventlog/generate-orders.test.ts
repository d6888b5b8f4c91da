// The generator's key orders and cardinalities: logs shaped like another program's, for the
// benchmarks (BENCHMARKS.md section 11) and the conformance table's foreign-order flat files.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateEvents, recordLine } from '../../src/eventlog/generate.js';

const BIN = new URL('../../bin/evio.js', import.meta.url).pathname;

describe('recordLine', () => {
  const recs = [...generateEvents({ count: 300, seed: 5 })];
  it('evio order is JSON.stringify of the record: recnum first', () => {
    for (const r of recs) expect(recordLine(r)).toBe(JSON.stringify(r));
    expect(recordLine(recs[0]!)).toMatch(/^\{"recnum":1,/);
  });
  it('recnum-last holds the same fields, recnum the last key and the order another one', () => {
    for (const r of recs) {
      const line = recordLine(r, 'recnum-last');
      expect(JSON.parse(line)).toEqual(r);
      expect(line).toMatch(new RegExp(`,"recnum":${r.recnum}\\}$`));
      expect(Object.keys(JSON.parse(line))[0]).toBe('time');
    }
  });
  it('no-recnum drops recnum and keeps everything else', () => {
    for (const r of recs) {
      const { recnum: _r, ...rest } = r;
      expect(JSON.parse(recordLine(r, 'no-recnum'))).toEqual(rest);
    }
  });
});

describe('evio generate events --key-order --users --hosts', () => {
  it('writes the order asked for, with that many users and hosts', () => {
    const dir = mkdtempSync(join(tmpdir(), 'evio-gen-'));
    const out = join(dir, 'e.ndjson');
    const r = spawnSync(process.execPath, [BIN, 'generate', 'events', '--count', '2000', '--seed', '3', '--key-order', 'recnum-last', '--users', '8', '--hosts', '6', '--out', out], { encoding: 'utf8', env: { ...process.env, EVIO_HOME: dir } });
    expect(r.stderr).toBe(`wrote 2000 events to ${out}\n`);
    const lines = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.recnum)).toEqual(Array.from({ length: 2000 }, (_, i) => i + 1));
    expect(new Set(lines.map((l) => l.submituser)).size).toBe(8);
    expect(new Set(lines.map((l) => l.submithost)).size).toBe(6);
    const bad = spawnSync(process.execPath, [BIN, 'generate', 'events', '--count', '1', '--key-order', 'sorted', '--out', out], { encoding: 'utf8', env: { ...process.env, EVIO_HOME: dir } });
    expect([bad.status, bad.stderr]).toEqual([2, expect.stringContaining('--key-order takes evio, recnum-last, no-recnum')]);
  });
});
