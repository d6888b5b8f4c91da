// The skip index on logs evio did not write (issue 25, point 2): any key order, recnum last or
// absent (lines numbered by the reader), spaces after colons, escaped strings, CRLF line ends.
// Each is indexed and the index is used (the store reports the file read through it, and a
// selective query reads a small part of the file), with the answers of a scan. An exact
// uniqueid is answered from the uniqueid table (no uid column read), also when a chunk of the
// table is damaged (then the columns serve). The planner picks the scan for a query that reads
// everything and the index for a selective one, with the same answers.
import { closeSync, openSync, readFileSync, readSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FlatFileStore } from '../../../src/eventlog/flatfile/flatfile-store.js';
import { buildIndexes } from '../../../src/eventlog/flatfile/index-files.js';
import { MAGIC, UID_CHUNK } from '../../../src/eventlog/flatfile/skip-index.js';
import { recordLine } from '../../../src/eventlog/generate.js';
import { parseEventQuery } from '../../../src/eventlog/query.js';
import type { StoredEvent } from '../../../src/eventlog/types.js';
import { foreignJson } from './foreign-lines.js';
import { collect, comparable, tempDir } from './helpers.js';
import { makeLog, QUERIES } from './index-cases.js';

const tmp = tempDir('evio-ffforeign-');
afterAll(() => tmp.cleanup());
let n = 0;

const BLOCK = 2048;
const FORCED = { enabled: true, cacheDir: null, budgetMs: 0, blockBytes: BLOCK, plan: 'index' as const };
const AUTO = { enabled: true, cacheDir: null, budgetMs: 0, blockBytes: BLOCK };
const OFF = { enabled: false, cacheDir: null, budgetMs: 0 };

const q = (p: Record<string, string>) => parseEventQuery({ format: 'ff', file: 'x', ...p }).query;

/** The log's records numbered 1..n (so that a log without recnum numbers them the same). */
const LOG: StoredEvent[] = makeLog(3000, 11).map((r, i) => ({ ...r, recnum: i + 1 }));

/** A user and command of the log (a selective pair: about 1 line in 180). */
const PICK = LOG.find((r, i) => i > 1000 && r.etype === 'A')!;

const STYLES: Array<[string, (r: StoredEvent, i: number) => string, string]> = [
  ['evio key order', (r) => recordLine(r, 'evio'), '\n'],
  ['recnum last, other key order', (r) => recordLine(r, 'recnum-last'), '\n'],
  ['no recnum (numbered by line)', (r) => recordLine(r, 'no-recnum'), '\n'],
  ['recnum in the middle', (r) => {
    const { recnum, ...rest } = r;
    const keys = Object.entries(rest);
    return JSON.stringify(Object.fromEntries([...keys.slice(0, 2), ['recnum', recnum], ...keys.slice(2)]));
  }, '\n'],
  ['spaces after colons and commas, keys shuffled, \\u and \\/ escapes', (r, i) => foreignJson(r, i + 1), '\n'],
  ['CRLF line ends', (r) => recordLine(r, 'recnum-last'), '\r\n'],
  ['no recnum, escapes and spaces, CRLF', (r, i) => {
    const { recnum: _r, ...rest } = r;
    return foreignJson(rest, i + 7);
  }, '\r\n'],
];

function writeLog(style: (r: StoredEvent, i: number) => string, eol: string): string {
  const path = join(tmp.dir, `log-${n++}.ndjson`);
  writeFileSync(path, LOG.map((r, i) => style(r, i) + eol).join(''));
  return path;
}

async function answersOf(path: string, index: typeof FORCED | typeof AUTO | typeof OFF): Promise<unknown[]> {
  const s = new FlatFileStore({ path, index });
  const out: unknown[] = [];
  for (const p of QUERIES) out.push({ p, rows: comparable(await collect(s.query(q(p)))) });
  return out;
}

describe('the skip index on logs of other writers: indexed and used', () => {
  for (const [name, style, eol] of STYLES) {
    it(`${name}: the index answers as a scan does, and is used`, async () => {
      const path = writeLog(style, eol);
      const [rep] = await buildIndexes(path, { cacheDir: null, family: false, blockBytes: BLOCK });
      expect(rep!.outcome).toBe('built');
      expect(rep!.blocks).toBeGreaterThan(50);
      const want = await answersOf(path, OFF);
      expect(await answersOf(path, FORCED)).toEqual(want);
      expect(await answersOf(path, AUTO)).toEqual(want);
      // A selective query through the index reads a small part of the file.
      const s = new FlatFileStore({ path, index: FORCED });
      const rows = await collect(s.query(q({ submituser: PICK.submituser!, runcommand: PICK.runcommand!, dump: '1' })));
      expect(rows.length).toBeGreaterThan(0);
      expect(s.lastRead.indexed).toBe(1);
      expect(s.lastRead.bytes).toBeLessThan(statSync(path).size / 4);
      // Recnums of lines without one are their line numbers, through the index as in a scan.
      expect(rows.map((r) => r.rec.recnum)).toEqual(LOG.filter((r) => r.submituser === PICK.submituser && r.runcommand === PICK.runcommand).map((r) => r.recnum));
    });
  }
});

/** Segment 0's head of an index file, and where its body starts. */
function firstSegment(idx: string): { head: Record<string, unknown> & { uidAt: number; uidCount: number }; bodyAt: number } {
  const b = readFileSync(idx);
  const hlen = b.readUInt32LE(MAGIC.length);
  const head = JSON.parse(b.subarray(MAGIC.length + 8, MAGIC.length + 8 + hlen).toString('utf8'));
  return { head, bodyAt: (MAGIC.length + 8 + hlen + 7) & ~7 };
}

describe('an exact uniqueid through the uniqueid table', () => {
  it('finds the session, reads only its blocks, and is bound to the key like the rest', async () => {
    const path = writeLog((r) => recordLine(r, 'recnum-last'), '\n');
    await buildIndexes(path, { cacheDir: null, family: false, blockBytes: BLOCK });
    const { head, bodyAt } = firstSegment(`${path}.evidx`);
    expect(head.version).toBe(4);
    expect(head.uidCount).toBeGreaterThan(LOG.length / 2);
    expect((head.uidFence as number[]).length).toBe(Math.ceil(head.uidCount / UID_CHUNK));
    const uid = LOG.find((r, i) => i > 1500 && r.etype === 'A')!.uniqueid!;
    const want = LOG.filter((r) => r.uniqueid === uid).map((r) => r.recnum);
    expect(want.length).toBe(2); // the accept and its finish
    for (const dump of ['1', '0']) {
      const s = new FlatFileStore({ path, index: AUTO });
      const rows = await collect(s.query(q({ uniqueid: uid, dump })));
      expect(rows.map((r) => r.rec.recnum)).toEqual(dump === '1' ? want : want.slice(0, 1));
      if (dump === '0') expect(rows[0]!.exitstatus).toBe(LOG.find((r) => r.uniqueid === uid && r.etype === 'F')!.exitstatus);
      expect(s.lastRead.indexed).toBe(1);
      // Only the blocks of the two lines: a few KiB of a file of hundreds.
      expect(s.lastRead.bytes).toBeLessThan(4 * BLOCK + 2000);
    }
    // A chunk of the table changed (every entry's block set to 0, a CRC-32 no help): its keyed
    // check fails, the columns answer instead, the same rows.
    const fd = openSync(`${path}.evidx`, 'r+');
    try {
      const chunk = Buffer.alloc(UID_CHUNK * 8);
      const got = readSync(fd, chunk, 0, chunk.length, bodyAt + head.uidAt);
      for (let e = 0; e < got; e += 8) chunk.writeUInt32LE(0, e);
      writeSync(fd, chunk, 0, got, bodyAt + head.uidAt);
    } finally {
      closeSync(fd);
    }
    for (const u of [uid, LOG[5]!.uniqueid!, LOG[2990]!.uniqueid!]) {
      const scan = (await collect(new FlatFileStore({ path, index: OFF }).query(q({ uniqueid: u, dump: '1' })))).map((r) => r.rec.recnum);
      const ix = new FlatFileStore({ path, index: AUTO });
      expect((await collect(ix.query(q({ uniqueid: u, dump: '1' })))).map((r) => r.rec.recnum)).toEqual(scan);
      expect(ix.lastRead.indexed).toBe(1);
    }
  });

  it('a uniqueid on no line reads no data block', async () => {
    const path = writeLog((r) => recordLine(r, 'evio'), '\n');
    await buildIndexes(path, { cacheDir: null, family: false, blockBytes: BLOCK });
    const s = new FlatFileStore({ path, index: AUTO });
    expect(await collect(s.query(q({ uniqueid: 'no-such-session', dump: '1' })))).toEqual([]);
    // Two blocks re-checked at random against the data (index-verify.ts), nothing else.
    expect(s.lastRead.bytes).toBeLessThanOrEqual(2 * (BLOCK + 400));
  });
});

describe('the planner', () => {
  it('scans for a query that reads every line, uses the index for a selective one; the same answers', async () => {
    // A larger log with blocks of the default size's order: on a small file of tiny blocks the
    // planner rightly scans.
    const path = join(tmp.dir, `big-${n++}.ndjson`);
    const big = makeLog(20_000, 13);
    writeFileSync(path, big.map((r) => recordLine(r, 'evio') + '\n').join(''));
    await buildIndexes(path, { cacheDir: null, family: false, blockBytes: 64 << 10 });
    const all = new FlatFileStore({ path, index: AUTO });
    const rows = await collect(all.query(q({ dump: '1', limit: '100000' })));
    expect(rows).toHaveLength(big.length);
    expect(all.lastRead.plannedScans).toBe(1);
    expect(all.lastRead.indexed).toBe(0);
    const forced = new FlatFileStore({ path, index: { ...FORCED, blockBytes: 64 << 10 } });
    expect(comparable(await collect(forced.query(q({ dump: '1', limit: '100000' }))))).toEqual(comparable(rows));
    expect(forced.lastRead.indexed).toBe(1);
    const narrow = new FlatFileStore({ path, index: AUTO });
    const pick = big.find((r, i) => i > 9000 && r.etype !== 'F')!;
    const few = await collect(narrow.query(q({ submituser: pick.submituser!, runhost: pick.runhost!, runcommand: pick.runcommand!, dump: '1' })));
    expect(few.length).toBeGreaterThan(0);
    expect(narrow.lastRead.indexed).toBe(1);
    expect(narrow.lastRead.plannedScans).toBe(0);
  });

  it('a value on no line: nothing read but the index', async () => {
    const path = writeLog((r) => recordLine(r, 'recnum-last'), '\n');
    await buildIndexes(path, { cacheDir: null, family: false, blockBytes: BLOCK });
    const s = new FlatFileStore({ path, index: AUTO });
    expect(await collect(s.query(q({ submituser: 'nobody-at-all', dump: '1' })))).toEqual([]);
    expect(s.lastRead.bytes).toBeLessThanOrEqual(2 * (BLOCK + 400));
  });
});
