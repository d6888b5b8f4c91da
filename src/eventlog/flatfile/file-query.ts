// One answer over one flat file or a whole log family: the files in recnum order (family.ts),
// one finish merge for all of them (an accept's finish may be in a later file), each file read
// through its skip index when a valid one exists (index-scan below) or scanned (scan.ts).
//
// Positions (`offset`): a row of a file queried alone carries the byte position after its line,
// as always. A row of a family query carries FAMILY_BASE + its recnum: "resume after this
// record", the live file's rows too (a rotation moves the live file's records into a rotated
// file and starts a new live file, so a byte of the live file names another line afterwards; a
// recnum stays the same record). Recnums increase across a family, so the position survives
// renames (logrotate's .1 -> .2.gz) and compression as well. A line of the live file without a
// recnum (numbered by its line) keeps its byte position. A plain offset below FAMILY_BASE is a
// byte of the live file, so offsets taken from queries of the live file alone stay valid.
import type { FileHandle } from 'node:fs/promises';
import { stat as statPath } from 'node:fs/promises';
import type { EventRow } from '../types.js';
import { bomLength } from './bom.js';
import { bufferSource, GzipSource, isGzipFile } from './gzip.js';
import { indexFileUnchanged, indexMatches, loadIndex } from './index-load.js';
import { choosePath } from './index-plan.js';
import { indexScan, memberOf, scanGzipFrom } from './index-scan.js';
import { fileSource, LineReader, type ByteSource } from './line-reader.js';
import { lacksRecnum, parseJsonText, toStoredEvent } from './parse-line.js';
import { probeCanonicalPrefix, type PrefixProbe } from './prefilter.js';
import { narrowToRecnum } from './recnum-seek.js';
import { checkByteOffset, scanRows } from './scan.js';
import { B_END, B_REC_MAX, B_START, BF, DEFAULT_BLOCK_BYTES, EXTEND_BLOCKS, indexPathFor, type SkipIndex } from './skip-index.js';
import type { FileView } from './family-snapshot.js';
import type { FileQueryContext, ReadCounters } from './query-context.js';
import { readLastRecnum } from './tail.js';

/** Files smaller than this many blocks get no index from queries (`evio events index` still builds one). */
export const MIN_INDEXED_BLOCKS = 4;

/** Offsets at or above this name a record of a rotated file (see above); 2^52 bytes = 4 PiB. */
export const FAMILY_BASE = 2 ** 52;

export type { FileQueryContext, IndexSettings, ReadCounters } from './query-context.js';

export type StartAt = { byte: number } | { afterRecnum: number };

/** A ByteSource that counts the bytes it reads. */
function counted(src: ByteSource, c: ReadCounters): ByteSource {
  return {
    async read(b, o, l, p) {
      const n = await src.read(b, o, l, p);
      c.bytes += n;
      return n;
    },
  };
}

/** The index of one data file: from the store's cache, the index file, or built now (budget permitting). */
export async function indexFor(path: string, fh: FileHandle, st: { ino: bigint; size: number }, gz: boolean, ctx: Pick<FileQueryContext, 'index' | 'cache' | 'budgetLeft' | 'signal'>): Promise<SkipIndex | null> {
  const idxPath = indexPathFor(path, ctx.index.cacheDir);
  let ix = ctx.cache.get(idxPath) ?? null;
  // A cached index is used while its file is the one it was read from (an extension by another
  // process adds segments; a rebuild replaces the file) and it still describes the data.
  if (ix && !((await indexFileUnchanged(idxPath, ix)) && (await indexMatches(ix, fh, st, gz)))) ix = null;
  if (!ix) ix = await loadIndex(idxPath, fh, st, gz);
  const blockBytes = ctx.index.blockBytes ?? DEFAULT_BLOCK_BYTES;
  // A file of a few blocks is scanned as fast as its index is read: no index is made for it
  // (nor does it take disk space a full disk may need for a rewrite).
  const worthIt = st.size >= MIN_INDEXED_BLOCKS * blockBytes;
  const wantsMore = ix ? !gz && st.size - ix.usize >= EXTEND_BLOCKS * (ix.blockBytes || blockBytes) : worthIt;
  if (wantsMore && ctx.budgetLeft > 0) {
    const t0 = Date.now();
    // A cache that cannot be written is no reason to fail the query: the builders return null
    // (or the index as it was) and the file is scanned.
    // The builders (and the index writer) load only when a query builds: most read an index.
    const { buildGzipIndex, buildPlainIndex } = await import('./index-build.js');
    const built = gz ? (ix ? ix : await buildGzipIndex(fh, st, idxPath, { signal: ctx.signal, budgetMs: ctx.budgetLeft })) : await buildPlainIndex(fh, st, ix, idxPath, { blockBytes, budgetMs: ctx.budgetLeft, signal: ctx.signal });
    ctx.budgetLeft -= Date.now() - t0;
    if (built) ix = built;
  }
  if (ix) ctx.cache.set(idxPath, ix);
  else ctx.cache.delete(idxPath);
  return ix;
}

/** Rows of one file of the answer, into the shared merge; yields what the merge lets go, in batches. */
/** Returns false when a recnum position was not found in this file (the next file is searched). */
/** `view`: the part of a plain file a family snapshot reads (family-snapshot.ts); null: all of it. */
export async function* queryFile(path: string, fh: FileHandle, live: boolean, familyMode: boolean, start: StartAt, ctx: FileQueryContext, view: FileView | null = null): AsyncGenerator<EventRow[], boolean> {
  const { q, merge } = ctx;
  const st0 = await fh.stat({ bigint: true });
  const st = { ino: st0.ino, size: Number(st0.size) };
  const gz = await isGzipFile(fh);
  if (gz) view = null;
  const ix = ctx.index.enabled ? await indexFor(path, fh, st, gz, ctx) : null;
  const usable = viewOfIndex(ix, view);
  const size = view ? view.end : st.size;
  const offsetOf = familyMode ? (live ? liveFamilyOffset : rotatedFamilyOffset) : undefined;
  const gzs = gz ? new GzipSource(fh, path, ctx.signal) : null;
  const plainSource = gz ? null : counted(view ? viewSource(fh, view) : fileSource(fh), ctx.counters);
  const streamSource: ByteSource = gzs ?? plainSource!;
  try {
    let pos: number;
    if ('byte' in start) {
      pos = start.byte;
      if (pos !== 0) await checkByteOffset(streamSource, gz ? (usable?.usize ?? Number.MAX_SAFE_INTEGER) : size, pos, path);
    } else {
      // A plain file without index whose last record is at or below the position holds nothing
      // after it: no walk through it (a family resume passes every earlier file).
      if (!gz && !usable && !view && (await readLastRecnum(fh, st.size, ctx.signal)) <= start.afterRecnum) return false;
      const p = await positionAfterRecnum(fh, gz, usable, streamSource, start.afterRecnum, size, ctx);
      if (p < 0) return false;
      pos = p;
    }
    if (pos === 0) pos = usable ? (usable.blocks > 0 ? usable.table[B_START]! : usable.usize) : 0;
    let scanFrom = pos;
    // The planner (index-plan.ts): a plain file is scanned when that costs less than its index
    // (a gzip file of ours is always read member by member through its index).
    if (usable && !gz && ctx.index.plan !== 'index' && !choosePath(usable, q, pos).index) {
      ctx.counters.plannedScans = (ctx.counters.plannedScans ?? 0) + 1;
    } else if (usable) {
      ctx.counters.indexed = (ctx.counters.indexed ?? 0) + 1;
      const stoppedAt = yield* indexScan(usable, fh, gz, pos, offsetOf, ctx);
      if (merge.done) return true;
      if (stoppedAt === null) {
        scanFrom = Math.max(pos, usable.usize);
        if (gz) return true; // a gzip index covers the whole file
      } else {
        // A damaged column slice: the rest of the file is read without the index.
        if (gz) {
          yield* scanGzipFrom(usable, fh, stoppedAt, pos, offsetOf, ctx);
          return true;
        }
        scanFrom = Math.max(pos, usable.table[stoppedAt * BF + B_START]!);
      }
    }
    yield* scanRows(streamSource, q, {
      merge,
      start: scanFrom,
      maxOpenAccepts: ctx.maxOpenAccepts,
      signal: ctx.signal,
      stats: ctx.stats,
      freq: ctx.freq,
      budget: ctx.buffers,
      ...(offsetOf ? { offsetOf } : {}),
      ...(gz ? {} : { sizeHint: Math.max(0, size - scanFrom) }),
      ...(ctx.readSize === undefined ? {} : { readSize: ctx.readSize }),
    });
    return true;
  } finally {
    if (gzs) {
      ctx.counters.bytes += gzs.compressedRead;
      gzs.close();
    }
  }
}

const rotatedFamilyOffset = (_end: number, recnum: number) => FAMILY_BASE + recnum;
const liveFamilyOffset = (end: number, recnum: number, numberedByLine?: boolean) => (numberedByLine ? end : FAMILY_BASE + recnum);

/** Reads [0, safeEnd) from the file, then the copied tail up to `end`; nothing after. */
function viewSource(fh: FileHandle, view: FileView): ByteSource {
  const file = fileSource(fh);
  return {
    async read(b, o, l, p) {
      if (p >= view.end) return 0;
      const len = Math.min(l, view.end - p);
      if (p < view.safeEnd) return file.read(b, o, Math.min(len, view.safeEnd - p), p);
      return view.tail.copy(b, o, p - view.safeEnd, p - view.safeEnd + len);
    },
  };
}

/** The blocks of an index that lie wholly in the part of the file read from its handle. */
function viewOfIndex(ix: SkipIndex | null, view: FileView | null): SkipIndex | null {
  if (!ix || !view) return ix;
  let k = 0;
  while (k < ix.blocks && ix.table[k * BF + B_END]! <= view.safeEnd) k++;
  if (k === ix.blocks) return ix;
  if (k === 0) return null;
  return { ...ix, blocks: k, usize: ix.table[(k - 1) * BF + B_END]! };
}

/** Position of the first line with a recnum above `r` (a family resume), or -1 when none. */
async function positionAfterRecnum(fh: FileHandle, gz: boolean, ix: SkipIndex | null, stream: ByteSource, r: number, end: number, ctx: FileQueryContext): Promise<number> {
  if (ix) {
    const n = ix.blocks;
    const t = ix.table;
    for (let bi = 0; bi < n; bi++) {
      const o = bi * BF;
      if (t[o + B_REC_MAX]! <= r) continue;
      const source = gz ? bufferSource(await memberOf(ix, fh, o, ctx), t[o + B_START]!) : stream;
      const p = await walkToRecnum(source, t[o + B_START]!, t[o + B_END]!, r, ctx);
      if (p >= 0) return p;
    }
    if (gz) return -1;
    return walkToRecnum(stream, ix.usize, Infinity, r, ctx);
  }
  const from = await bomLength(stream);
  return walkToRecnum(stream, gz ? from : await narrowToRecnum(stream, from, end, r, ctx.signal), Infinity, r, ctx);
}

async function walkToRecnum(source: ByteSource, from: number, to: number, r: number, ctx: Pick<FileQueryContext, 'signal' | 'buffers'>): Promise<number> {
  const reader = new LineReader(source, from, { signal: ctx.signal, budget: ctx.buffers });
  const probe: PrefixProbe = { recnum: 0, etype: 0, uidHash: 0 };
  try {
    for (;;) {
      if (!(await reader.fill())) return -1;
      const buf = reader.buf;
      let s = reader.start;
      while (s < reader.complete) {
        if (reader.pos(s) >= to) return -1;
        const e = buf.indexOf(10, s);
        let recnum: number | null = null;
        if (probeCanonicalPrefix(buf, s, e, probe, false)) recnum = probe.recnum;
        else {
          const v = parseJsonText(buf.toString('utf8', s, e));
          // Lines without a recnum (numbered by their line) cannot be resumed after by recnum.
          const rec = v === undefined || lacksRecnum(v) ? null : toStoredEvent(v, null);
          if (rec) recnum = rec.recnum;
        }
        if (recnum !== null && recnum > r) return reader.pos(s);
        s = e + 1;
      }
      reader.start = s;
    }
  } finally {
    await reader.settle();
  }
}

/** Whether a path exists (a family member may be rotated away between listing and opening). */
export async function exists(path: string): Promise<boolean> {
  return statPath(path).then(
    () => true,
    () => false,
  );
}
