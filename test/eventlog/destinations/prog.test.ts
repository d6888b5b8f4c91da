// The prog destination with real programs (small node scripts): one that fails its first starts,
// one that dies having read only part of its pipe, one that reads slowly, one that is installed
// only after evio started. Every record arrives, in order; evio's memory stays bounded by one
// batch and one chunk.
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cursorFile } from '../../../src/eventlog/destinations/cursor.js';
import { Forwarder } from '../../../src/eventlog/destinations/forwarder.js';
import { ProgSink } from '../../../src/eventlog/destinations/prog-sink.js';
import type { Spool } from '../../../src/eventlog/destinations/spool.js';
import { FAST, flatFileWith, records, spoolOf, tempDir, until } from './helpers.js';

const NODE = process.execPath;

/** Fails (exit 1, reading nothing) on its first `fail` starts, counted in `count`; then copies stdin to `out`. */
const FLAKY = `
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
const [count, out, fail] = process.argv.slice(2);
const n = (existsSync(count) ? Number(readFileSync(count, 'utf8')) : 0) + 1;
writeFileSync(count, String(n));
if (n <= Number(fail)) { process.stderr.write('not ready yet\\n'); process.exit(1); }
process.stderr.write('ready\\n');
process.stdin.on('data', (b) => appendFileSync(out, b));
`;

/** Reads exactly `lines` lines byte by byte (nothing more leaves the pipe), copies them to `out`, exits 3. */
const DIES_PART_WAY = `
import { appendFileSync, readSync } from 'node:fs';
const [out, lines] = process.argv.slice(2);
const b = Buffer.alloc(1);
let seen = 0, line = [];
while (seen < Number(lines)) {
  if (readSync(0, b, 0, 1, null) === 0) break;
  line.push(b[0]);
  if (b[0] === 10) { appendFileSync(out, Buffer.from(line)); line = []; seen++; }
}
process.exit(3);
`;

/** Reads 4 KiB at a time with a pause between reads. */
const SLOW = `
import { appendFileSync, readSync } from 'node:fs';
const [out] = process.argv.slice(2);
const b = Buffer.alloc(4096);
const pause = new Int32Array(new SharedArrayBuffer(4));
for (;;) {
  let n;
  try { n = readSync(0, b, 0, b.length, null); } catch (e) { if (e.code === 'EAGAIN') { Atomics.wait(pause, 0, 0, 1); continue; } throw e; }
  if (n === 0) break;
  appendFileSync(out, b.subarray(0, n));
  Atomics.wait(pause, 0, 0, 1);
}
`;

describe('prog destination', () => {
  let t: ReturnType<typeof tempDir>;
  let spool: Spool;
  let logPath: string;
  const log: string[] = [];
  beforeEach(() => {
    t = tempDir();
    logPath = join(t.dir, 'events.ndjson');
    log.length = 0;
  });
  afterEach(async () => {
    await spool?.close();
    t.cleanup();
  });

  const script = (name: string, text: string) => {
    const p = join(t.dir, name);
    writeFileSync(p, text);
    return p;
  };
  const start = (sink: ProgSink, batch = { records: 1000, bytes: 1 << 20 }) =>
    new Forwarder({ name: 'prog', target: 'x', sink, spool, cursor: cursorFile(join(t.dir, 'spool', 'prog.cursor'), 'x'), log: (l) => log.push(l), backoff: FAST, batch }).start();
  const lines = (p: string) => (existsSync(p) ? readFileSync(p, 'utf8').split('\n').slice(0, -1) : []);

  it('a program that exits non-zero on its first starts gets every record, in order, once it works', async () => {
    const recs = records(1500);
    const ff = await flatFileWith(logPath, recs.slice(0, 1000));
    spool = spoolOf(logPath);
    const out = join(t.dir, 'out.ndjson');
    const count = join(t.dir, 'starts');
    const sink = new ProgSink({ argv: [NODE, script('flaky.mjs', FLAKY), count, out, '3'], log: (l) => log.push(l), backoff: FAST });
    // Small batches: the first ones fit into the program's input before it exits (delivered, as
    // far as evio can tell), and must reach the program that works.
    const f = start(sink, { records: 20, bytes: 1 << 20 });
    await until(() => f.status().deliveredRecnum === 1000, 'delivery of the first 1000 records');
    const res = await ff.append(recs.slice(1000));
    f.wake(res.last!);
    await until(() => f.status().deliveredRecnum === 1500, 'delivery of all 1500 records');
    await f.close(); // ends the program's input: it copies what is left and exits
    expect(readFileSync(count, 'utf8')).toBe('4');
    expect(sink.starts).toBe(4);
    expect(readFileSync(out, 'utf8')).toBe(readFileSync(logPath, 'utf8'));
    expect(log.filter((l) => /node\[\d+\]: not ready yet$/.test(l)).length).toBe(3);
    expect(log.some((l) => /node\[\d+\]: ready$/.test(l))).toBe(true);
    expect(log.some((l) => /1262 .* exited with status 1/.test(l))).toBe(true);
  });

  it('a program that dies with records unread in its pipe: the next one gets them (a repeat, never a gap)', async () => {
    const recs = records(3000);
    await flatFileWith(logPath, recs);
    spool = spoolOf(logPath);
    const out1 = join(t.dir, 'out1.ndjson');
    const out2 = join(t.dir, 'out2.ndjson');
    const dies = script('dies.mjs', DIES_PART_WAY);
    const count = join(t.dir, 'starts');
    // The first program reads 100 lines and dies; the ones after copy everything.
    const first = script('first.mjs', `
      import { existsSync, readFileSync, writeFileSync } from 'node:fs';
      import { spawnSync } from 'node:child_process';
      const n = (existsSync(${JSON.stringify(count)}) ? Number(readFileSync(${JSON.stringify(count)}, 'utf8')) : 0) + 1;
      writeFileSync(${JSON.stringify(count)}, String(n));
      const args = n === 1 ? [${JSON.stringify(dies)}, ${JSON.stringify(out1)}, '100'] : [${JSON.stringify(script('flaky2.mjs', FLAKY))}, ${JSON.stringify(join(t.dir, 'c2'))}, ${JSON.stringify(out2)}, '0'];
      const r = spawnSync(process.execPath, args, { stdio: ['inherit', 'inherit', 'inherit'] });
      process.exit(r.status ?? 1);
    `);
    const sink = new ProgSink({ argv: [NODE, first], log: (l) => log.push(l), backoff: FAST });
    // Small batches: several are written (and counted delivered) before the program dies.
    const f = start(sink, { records: 20, bytes: 1 << 20 });
    // A hang guard, not a time bound: 3,000 records through respawned programs take long on a loaded machine.
    await until(() => lines(out2).at(-1) === JSON.stringify(recs.at(-1)), 'the last record in the second output', 150_000);
    await f.close();
    const read1 = lines(out1).map((l) => JSON.parse(l).recnum as number);
    const read2 = lines(out2).map((l) => JSON.parse(l).recnum as number);
    expect(read1).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    // The second program starts at or before record 101 and then has every record in order.
    expect(read2[0]).toBeLessThanOrEqual(101);
    expect(read2).toEqual(Array.from({ length: 3000 - read2[0]! + 1 }, (_, i) => read2[0]! + i));
    expect(log.some((l) => /delivering again after recnum \d+/.test(l))).toBe(true);
  }, 180_000);

  it('a slow reader: every record arrives, evio holds one batch and one chunk at most', async () => {
    const recs = records(6000);
    await flatFileWith(logPath, recs);
    spool = spoolOf(logPath);
    const batch = { records: 1000, bytes: 256 << 10 };
    expect(statSync(logPath).size).toBeGreaterThan(6 * batch.bytes);
    const out = join(t.dir, 'out.ndjson');
    const sink = new ProgSink({ argv: [NODE, script('slow.mjs', SLOW), out], log: (l) => log.push(l), backoff: FAST });
    const f = start(sink, batch);
    await until(() => f.status().deliveredRecnum === 6000, 'delivery of record 6000');
    await f.close(); // ends the program's input: it reads the rest and exits
    expect(readFileSync(out, 'utf8')).toBe(readFileSync(logPath, 'utf8'));
    const longest = Math.max(...recs.map((r) => JSON.stringify(r).length + 1));
    expect(f.figures.maxBatchBytes).toBeLessThan(batch.bytes + longest);
    expect(f.figures.batches).toBeGreaterThanOrEqual(6);
    // Backpressure: the pipe's stream never buffered more than one 64 KiB chunk in evio.
    expect(sink.seen.maxBuffered).toBeLessThanOrEqual((64 << 10) + longest);
    expect(sink.starts).toBe(1);
  });

  it('a program that is missing at first is started once it is installed', async () => {
    const recs = records(200);
    await flatFileWith(logPath, recs);
    spool = spoolOf(logPath);
    const prog = join(t.dir, 'feed');
    const out = join(t.dir, 'out.ndjson');
    const sink = new ProgSink({ argv: [prog, out], log: (l) => log.push(l), backoff: FAST });
    const f = start(sink);
    await until(() => f.status().failures >= 2, 'two failed starts');
    expect(f.status().lastError).toMatch(/^1262 cannot start .*feed: spawn .*ENOENT/);
    writeFileSync(prog, `#!/bin/sh\nexec cat >> "$1"\n`);
    chmodSync(prog, 0o755);
    await until(() => lines(out).length === 200, 'every record in the output');
    await f.close();
    expect(readFileSync(out, 'utf8')).toBe(readFileSync(logPath, 'utf8'));
    expect(f.status()).toMatchObject({ deliveredRecnum: 200, failures: 0 });
  });
});
