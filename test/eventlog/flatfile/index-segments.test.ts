// The skip index's segments (skip-index.ts, index-write.ts): an extension after appends adds a
// segment at the end of the index file instead of rewriting it; past MAX_SEGMENTS the index is
// rewritten as one; a segment cut short by a killed writer, a damaged column slice (plain and
// gzip), a data file cut below the last segment — every case answers as the reference store.
import { openSync, readFileSync, closeSync, statSync, truncateSync, writeFileSync, writeSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compressRotated } from '../../../src/eventlog/flatfile/compress.js';
import { FlatFileStore } from '../../../src/eventlog/flatfile/flatfile-store.js';
import { buildIndexes } from '../../../src/eventlog/flatfile/index-files.js';
import { loadIndex } from '../../../src/eventlog/flatfile/index-load.js';
import { MAX_SEGMENTS } from '../../../src/eventlog/flatfile/index-write.js';
import { B_LINE_FROM, B_LINE_TO, BF, COL_WIDTH, NCOLS, type SkipIndex } from '../../../src/eventlog/flatfile/skip-index.js';
import { MemoryStore } from '../../../src/eventlog/memory-store.js';
import { parseEventQuery } from '../../../src/eventlog/query.js';
import { collect, tempDir } from './helpers.js';
import { answers, lines, makeLog, reference } from './index-cases.js';

const tmp = tempDir('evio-ixseg-');
afterAll(() => tmp.cleanup());
let n = 0;
// The index whenever it is valid (the planner would scan these small logs): the answers then
// come from the segments under test, the uniqueid tables of extensions and compactions included.
const ON = { enabled: true, cacheDir: null, budgetMs: 60_000, blockBytes: 2048, plan: 'index' as const };
const OFF = { enabled: false, cacheDir: null, budgetMs: 0 };

async function indexOf(path: string, idx = `${path}.evidx`): Promise<SkipIndex | null> {
  const fh = await open(path, 'r');
  try {
    const st = await fh.stat({ bigint: true });
    const gz = readFileSync(path).subarray(0, 2).equals(Buffer.from([0x1f, 0x8b]));
    return await loadIndex(idx, fh, { ino: st.ino, size: Number(st.size) }, gz);
  } finally {
    await fh.close();
  }
}

/** Scrambles the slice of column `c` of the middle block of the index (every byte). */
function damageColumn(ix: SkipIndex, c: number): void {
  const b = Math.floor(ix.blocks / 2);
  const seg = ix.segs.find((s) => s.head.blockFrom <= b && b < s.head.blockFrom + s.head.blocks)!;
  const l0 = ix.table[b * BF + B_LINE_FROM]!;
  const l1 = ix.table[b * BF + B_LINE_TO]!;
  const at = seg.bodyAt + seg.head.cols[c]! + (l0 - seg.head.lineFrom) * COL_WIDTH[c]!;
  const len = (l1 - l0) * COL_WIDTH[c]!;
  const fd = openSync(ix.path, 'r+');
  const buf = Buffer.alloc(len);
  readSync(fd, buf, 0, len, at);
  for (let i = 0; i < len; i++) buf[i] = buf[i]! ^ 0x5a;
  writeSync(fd, buf, 0, len, at);
  closeSync(fd);
}

describe('skip index segments', () => {
  const log = makeLog(1500, 11);

  it('an extension adds a segment at the end (same index file, grown); the answers stay the reference', async () => {
    const path = join(tmp.dir, `ext-${n++}.ndjson`);
    writeFileSync(path, lines(log.slice(0, 700)));
    await buildIndexes(path, { cacheDir: null, family: false, blockBytes: 2048 });
    const before = statSync(`${path}.evidx`);
    const s = new FlatFileStore({ path, index: ON });
    await s.append(log.slice(700));
    await s.whenIndexed();
    expect(await answers(s)).toEqual(await reference(log));
    const after = statSync(`${path}.evidx`);
    expect(after.ino).toBe(before.ino);
    expect(after.size).toBeGreaterThan(before.size);
    const ix = (await indexOf(path))!;
    expect(ix.segs.length).toBe(2);
    expect(ix.usize).toBe(statSync(path).size);
    expect(ix.lines).toBe(1500);
  });

  it('the append path keeps an existing index current: four blocks or more appended are indexed at once', async () => {
    const path = join(tmp.dir, `app-${n++}.ndjson`);
    const s = new FlatFileStore({ path, index: ON });
    await s.append(log.slice(0, 600));
    expect(await indexOf(path)).toBeNull(); // the append path builds no index of its own
    await buildIndexes(path, { cacheDir: null, family: false, blockBytes: 2048 });
    const ino = statSync(`${path}.evidx`).ino;
    // Less than four blocks: left to the queries' tail scan.
    await s.append(log.slice(600, 603));
    await s.whenIndexed();
    expect((await indexOf(path))!.usize).toBeLessThan(statSync(path).size);
    // More than four blocks: indexed by the append path (the three lines before it too).
    await s.append(log.slice(603, 1100));
    await s.whenIndexed();
    const ix = (await indexOf(path))!;
    expect(ix.usize).toBe(statSync(path).size);
    expect(ix.lines).toBe(1100);
    expect(ix.segs.length).toBe(2);
    expect(statSync(`${path}.evidx`).ino).toBe(ino);
    await s.append(log.slice(1100));
    expect(await answers(new FlatFileStore({ path, index: { ...ON, budgetMs: 0 } }))).toEqual(await reference(log));
    expect(await answers(s)).toEqual(await reference(log));
  });

  it(`past ${MAX_SEGMENTS} segments an extension rewrites the index as one`, async () => {
    const path = join(tmp.dir, `many-${n++}.ndjson`);
    const s = new FlatFileStore({ path, index: { ...ON, blockBytes: 256 } });
    const steps = MAX_SEGMENTS + 12;
    const per = Math.floor(log.length / (steps + 1));
    await s.append(log.slice(0, per));
    await buildIndexes(path, { cacheDir: null, family: false, blockBytes: 256 });
    const counts: number[] = [];
    for (let k = 1; k <= steps; k++) {
      // Each append is more than four blocks: the append path adds a segment.
      await s.append(log.slice(k * per, k === steps ? log.length : (k + 1) * per));
      await s.whenIndexed();
      counts.push((await indexOf(path))?.segs.length ?? 0);
    }
    expect(counts.slice(0, 5)).toEqual([2, 3, 4, 5, 6]);
    expect(Math.max(...counts)).toBe(MAX_SEGMENTS);
    expect(counts.some((c, i) => i > 0 && c < counts[i - 1]!)).toBe(true); // a rewrite happened
    const ix = (await indexOf(path))!;
    expect(ix.usize).toBe(statSync(path).size);
    // The rewritten index's uniqueid table holds every session: each is found through it.
    const mem = new MemoryStore();
    await mem.append(log);
    for (const u of [log[3]!.uniqueid!, log[Math.floor(log.length / 2)]!.uniqueid!, log[log.length - 2]!.uniqueid!]) {
      const p = { uniqueid: u, dump: '1' };
      const got = await collect(new FlatFileStore({ path, index: { ...ON, budgetMs: 0 } }).query(parseEventQuery({ format: 'ff', file: 'x', ...p }).query));
      const want = await collect(mem.query(parseEventQuery({ format: 'db', ...p }).query));
      expect(got.map((r) => r.rec.recnum)).toEqual(want.map((r) => r.rec.recnum));
    }
    expect(await answers(s)).toEqual(await reference(log));
    expect(await answers(new FlatFileStore({ path, index: { ...ON, budgetMs: 0 } }))).toEqual(await reference(log));
  });

  it('a segment cut short (its writer killed) is ignored; the next extension replaces it', async () => {
    const path = join(tmp.dir, `cut-${n++}.ndjson`);
    writeFileSync(path, lines(log.slice(0, 700)));
    await buildIndexes(path, { cacheDir: null, family: false, blockBytes: 2048 });
    writeFileSync(path, lines(log), { flag: 'w' }); // same inode: rewritten with the same prefix, then more
    await buildIndexes(path, { cacheDir: null, family: false });
    const two = (await indexOf(path))!;
    expect(two.segs.length).toBe(2);
    const idx = `${path}.evidx`;
    truncateSync(idx, two.segs[1]!.bodyAt + 40);
    const one = (await indexOf(path))!;
    expect(one.segs.length).toBe(1);
    expect(one.usize).toBeLessThan(statSync(path).size);
    expect(await answers(new FlatFileStore({ path, index: { ...ON, budgetMs: 0 } }))).toEqual(await reference(log));
    // Garbage after the last intact segment is cut before the next segment is written.
    expect(await answers(new FlatFileStore({ path, index: ON }))).toEqual(await reference(log));
    const again = (await indexOf(path))!;
    expect(again.segs.length).toBe(2);
    expect(again.usize).toBe(statSync(path).size);
    expect(statSync(idx).size).toBe(again.end);
  });

  it('the data cut below the last segment: the segments before it still serve', async () => {
    const path = join(tmp.dir, `short-${n++}.ndjson`);
    writeFileSync(path, lines(log.slice(0, 700)));
    await buildIndexes(path, { cacheDir: null, family: false, blockBytes: 2048 });
    const firstEnd = (await indexOf(path))!.usize;
    writeFileSync(path, lines(log), { flag: 'w' });
    await buildIndexes(path, { cacheDir: null, family: false });
    const keep = log.slice(0, 900);
    truncateSync(path, Buffer.byteLength(lines(keep)));
    const ix = (await indexOf(path))!;
    expect(ix.segs.length).toBe(1);
    expect(ix.usize).toBe(firstEnd);
    expect(await answers(new FlatFileStore({ path, index: { ...ON, budgetMs: 0 } }))).toEqual(await reference(keep));
  });

  for (let c = 0; c < NCOLS; c++) {
    it(`a damaged slice of column ${c}: the rest is read without the index, the same answer (plain)`, async () => {
      const path = join(tmp.dir, `col-${n++}.ndjson`);
      writeFileSync(path, lines(log));
      await buildIndexes(path, { cacheDir: null, family: false, blockBytes: 2048 });
      damageColumn((await indexOf(path))!, c);
      expect(await answers(new FlatFileStore({ path, index: { ...ON, budgetMs: 0 } }))).toEqual(await reference(log));
    });
  }

  it('a damaged column slice of a gzip file of ours: the rest is decompressed and scanned, the same answer', async () => {
    for (let c = 0; c < NCOLS; c++) {
      const path = join(tmp.dir, `gzcol-${n++}.ndjson`);
      writeFileSync(path, lines(log));
      await compressRotated(path, { blockBytes: 2048, index: { enabled: true, cacheDir: null } });
      const ix = (await indexOf(`${path}.gz`))!;
      expect(ix.data).toBe('gz');
      expect(ix.blocks).toBeGreaterThan(20);
      damageColumn(ix, c);
      const s = new FlatFileStore({ path: `${path}.gz`, index: { ...ON, budgetMs: 0 } });
      expect(await answers(s)).toEqual(await reference(log));
    }
  });

  it('without an index at all (reference check of the helpers)', async () => {
    const path = join(tmp.dir, `none-${n++}.ndjson`);
    writeFileSync(path, lines(log));
    expect(await answers(new FlatFileStore({ path, index: OFF }))).toEqual(await reference(log));
  });
});
