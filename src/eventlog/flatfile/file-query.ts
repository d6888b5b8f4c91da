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
import { readSync } from 'node:fs';
import { evioError } from '../../errors.js';
import { admittedTypes, matchesRecord } from '../filter.js';
import type { EventQuery, EventRow, ScanStats } from '../types.js';
import { bomLength } from './bom.js';
import { FinishMerge } from './finish-merge.js';
import { bufferSource, GzipSource, isGzipFile, readMember } from './gzip.js';
import { buildGzipIndex, buildPlainIndex } from './index-build.js';
import { fileSource, LineReader, type ByteSource } from './line-reader.js';
import { lacksRecnum, parseJsonText, toStoredEvent } from './parse-line.js';
import { probeCanonicalPrefix, type PrefixProbe } from './prefilter.js';
import { checkByteOffset, scanRows } from './scan.js';
import {
  B_AE_MAX, B_AE_MIN, B_AE_OPEN, B_CEND, B_CSTART, B_END, B_F_MAX, B_F_MIN, B_LINE_FROM, B_LINE_TO, B_MASK, B_REC_MAX, B_REC_MIN, B_START, B_T_MAX, B_T_MIN, BF,
  COL_FIELDS, COL_OVERFLOW, DEFAULT_BLOCK_BYTES, ETYPE_BIT, indexMatches, indexPathFor, loadIndex, saveIndex, UID_UNKNOWN, type SkipIndex,
} from './skip-index.js';
import { uniqueidHash } from './prefilter.js';
import { readAt } from './read-at.js';
import type { FileView } from './family-snapshot.js';
import { readLastRecnum } from './tail.js';

/** Files smaller than this many blocks get no index from queries (`evio events index` still builds one). */
export const MIN_INDEXED_BLOCKS = 4;

/** Offsets at or above this name a record of a rotated file (see above); 2^52 bytes = 4 PiB. */
export const FAMILY_BASE = 2 ** 52;

export interface IndexSettings {
  /** Use and build skip indexes. */
  enabled: boolean;
  /** Where indexes live: null = beside the data file. */
  cacheDir: string | null;
  /** Time a query may spend building or extending indexes before it scans instead. */
  budgetMs: number;
  blockBytes?: number;
}

/** Bytes a query read, for the benchmarks. */
export interface ReadCounters {
  /** Bytes read from plain files and compressed bytes read from gzip files. */
  bytes: number;
}

export interface FileQueryContext {
  q: EventQuery;
  merge: FinishMerge;
  stats: ScanStats;
  signal: AbortSignal | undefined;
  maxOpenAccepts: number;
  readSize: number | undefined;
  freq: { value: Uint32Array | null };
  index: IndexSettings;
  /** Indexes loaded by this store, by index path. */
  cache: Map<string, SkipIndex>;
  counters: ReadCounters;
  /** Time left for index builds in this query. */
  budgetLeft: number;
}

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
  if (ix && !(await indexMatches(ix, fh, st, gz))) ix = null;
  if (!ix) ix = await loadIndex(idxPath, fh, st, gz);
  const blockBytes = ctx.index.blockBytes ?? DEFAULT_BLOCK_BYTES;
  // A file of a few blocks is scanned as fast as its index is read: no index is made for it
  // (nor does it take disk space a full disk may need for a rewrite).
  const worthIt = st.size >= MIN_INDEXED_BLOCKS * blockBytes;
  const wantsMore = ix ? !gz && st.size - ix.header.usize >= (ix.header.blockBytes || blockBytes) : worthIt;
  if (wantsMore && ctx.budgetLeft > 0) {
    const t0 = Date.now();
    const built = gz ? (ix ? ix : await buildGzipIndex(fh, st, { signal: ctx.signal, budgetMs: ctx.budgetLeft })) : await buildPlainIndex(fh, st, ix, { blockBytes, budgetMs: ctx.budgetLeft, signal: ctx.signal });
    ctx.budgetLeft -= Date.now() - t0;
    if (built && built !== ix) {
      ix = built;
      // A cache that cannot be written is no reason to fail the query.
      await saveIndex(idxPath, ix).catch(() => undefined);
    }
  }
  if (ix) ctx.cache.set(idxPath, ix);
  else ctx.cache.delete(idxPath);
  return ix;
}

/** Rows of one file of the answer, into the shared merge; yields what the merge lets go. */
/** Returns false when a recnum position was not found in this file (the next file is searched). */
/** `view`: the part of a plain file a family snapshot reads (family-snapshot.ts); null: all of it. */
export async function* queryFile(path: string, fh: FileHandle, live: boolean, familyMode: boolean, start: StartAt, ctx: FileQueryContext, view: FileView | null = null): AsyncGenerator<EventRow, boolean> {
  const { q, merge } = ctx;
  const st0 = await fh.stat({ bigint: true });
  const st = { ino: st0.ino, size: Number(st0.size) };
  const gz = await isGzipFile(fh);
  if (gz) view = null;
  const ix = ctx.index.enabled ? await indexFor(path, fh, st, gz, ctx) : null;
  const usable = viewOfIndex(ix !== null && ix.header.legacy === 0 ? ix : null, view);
  const size = view ? view.end : st.size;
  const offsetOf = familyMode ? (live ? liveFamilyOffset : rotatedFamilyOffset) : undefined;
  const gzs = gz ? new GzipSource(fh, path) : null;
  const plainSource = gz ? null : counted(view ? viewSource(fh, view) : fileSource(fh), ctx.counters);
  const streamSource: ByteSource = gzs ?? plainSource!;
  try {
    let pos: number;
    if ('byte' in start) {
      pos = start.byte;
      if (pos !== 0) await checkByteOffset(streamSource, gz ? (usable?.header.usize ?? Number.MAX_SAFE_INTEGER) : size, pos, path);
    } else {
      // A plain file without index whose last record is at or below the position holds nothing
      // after it: no walk through it (a family resume passes every earlier file).
      if (!gz && !usable && !view && (await readLastRecnum(fh, st.size, ctx.signal)) <= start.afterRecnum) return false;
      const p = await positionAfterRecnum(fh, gz, usable, streamSource, start.afterRecnum, ctx);
      if (p < 0) return false;
      pos = p;
    }
    if (pos === 0) pos = usable ? usable.lineStart[0] ?? usable.header.usize : 0;
    let scanFrom = pos;
    if (usable) {
      yield* indexScan(usable, fh, gz, pos, offsetOf, ctx);
      if (merge.done) return true;
      scanFrom = Math.max(pos, usable.header.usize);
      if (gz) return true; // a gzip index covers the whole file
    }
    yield* scanRows(streamSource, q, {
      merge,
      start: scanFrom,
      maxOpenAccepts: ctx.maxOpenAccepts,
      signal: ctx.signal,
      stats: ctx.stats,
      freq: ctx.freq,
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
  while (k < ix.header.blocks && ix.blocks[k * BF + B_END]! <= view.safeEnd) k++;
  if (k === ix.header.blocks) return ix;
  if (k === 0) return null;
  return { ...ix, header: { ...ix.header, blocks: k, usize: ix.blocks[(k - 1) * BF + B_END]! } };
}

/** Position of the first line with a recnum above `r` (a family resume), or -1 when none. */
async function positionAfterRecnum(fh: FileHandle, gz: boolean, ix: SkipIndex | null, stream: ByteSource, r: number, ctx: FileQueryContext): Promise<number> {
  if (ix) {
    const n = ix.header.blocks;
    for (let bi = 0; bi < n; bi++) {
      const o = bi * BF;
      if (ix.blocks[o + B_REC_MAX]! <= r) continue;
      const source = gz ? bufferSource(await memberOf(ix, fh, o, ctx), ix.blocks[o + B_START]!) : stream;
      const p = await walkToRecnum(source, ix.blocks[o + B_START]!, ix.blocks[o + B_END]!, r, ctx.signal);
      if (p >= 0) return p;
    }
    if (gz) return -1;
    return walkToRecnum(stream, ix.header.usize, Infinity, r, ctx.signal);
  }
  return walkToRecnum(stream, await bomLength(stream), Infinity, r, ctx.signal);
}

async function walkToRecnum(source: ByteSource, from: number, to: number, r: number, signal: AbortSignal | undefined): Promise<number> {
  const reader = new LineReader(source, from, { signal });
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

async function memberOf(ix: SkipIndex, fh: FileHandle, o: number, ctx: FileQueryContext): Promise<Buffer> {
  const c0 = ix.blocks[o + B_CSTART]!;
  const c1 = ix.blocks[o + B_CEND]!;
  ctx.counters.bytes += c1 - c0;
  return readMember(fh, c0, c1 - c0);
}

/** Which blocks may hold a row of the query, decided from the block table alone. */
function blockTest(q: EventQuery): (b: Float64Array, o: number) => boolean {
  const types = admittedTypes(q);
  let mask = 0;
  for (const t of types) mask |= ETYPE_BIT[t.charCodeAt(0)]!;
  const arkAdmitted = types.has('A') || types.has('R') || types.has('K');
  const fAdmitted = types.has('F');
  const exit = q.exitFrom !== null || q.exitTo !== null;
  const exLo = q.exitFrom ?? -Infinity;
  const exHi = q.exitTo ?? Infinity;
  const lo = q.from ?? -Infinity;
  const hi = q.to ?? Infinity;
  return (b, o) => {
    if ((b[o + B_MASK]! & mask) === 0) return false;
    if (q.recnumMax !== null && b[o + B_REC_MIN]! > q.recnumMax) return false;
    if (q.recnumMin !== null && b[o + B_REC_MAX]! < q.recnumMin) return false;
    if (q.from !== null || q.to !== null) {
      let ok = false;
      if (arkAdmitted && b[o + B_T_MAX]! >= lo && b[o + B_T_MIN]! <= hi) ok = true;
      if (fAdmitted && b[o + B_F_MAX]! >= lo && b[o + B_F_MIN]! <= hi) ok = true;
      if (!ok) return false;
    }
    if (exit) {
      if (q.dump) {
        // Stored values: only finish rows carry an exit time (their own time).
        if (!fAdmitted || b[o + B_F_MAX]! < exLo || b[o + B_F_MIN]! > exHi) return false;
      } else if (b[o + B_AE_OPEN]! <= 0 && (b[o + B_AE_MAX]! < exLo || b[o + B_AE_MIN]! > exHi)) {
        // Every accept of the block has its finish in the indexed part, none in range; rejects
        // have no exit time.
        return false;
      }
    }
    return true;
  };
}

/** Per pattern field with a column: which dictionary ids may match (1) or cannot (0). */
function columnMasks(ix: SkipIndex, q: EventQuery): Array<[Uint16Array, Uint8Array]> {
  const out: Array<[Uint16Array, Uint8Array]> = [];
  COL_FIELDS.forEach((f, i) => {
    const alts = q.patterns[f];
    if (!alts) return;
    const dict = ix.header.dicts[f];
    const m = new Uint8Array(COL_OVERFLOW + 1);
    m[COL_OVERFLOW] = 1;
    for (let id = 1; id <= dict.length; id++) {
      const v = dict[id - 1]!;
      for (const w of alts) {
        if (w.test(v)) {
          m[id] = 1;
          break;
        }
      }
    }
    out.push([ix.cols[i]!, m]);
  });
  return out;
}

/** Uniqueid hashes an exact uniqueid filter allows, or null when the filter is not exact. */
function uidHashes(q: EventQuery): Set<number> | null {
  const alts = q.patterns.uniqueid;
  if (!alts) return null;
  const out = new Set<number>();
  for (const w of alts) {
    if (w.exact === null) return null;
    const h = uniqueidHash(w.exact);
    if (h === -1) return null;
    out.add(h);
  }
  return out;
}

/**
 * The indexed part of one file: blocks that cannot hold a row are skipped; in the others only
 * the lines the columns admit (and the finish lines waiting accepts need) are read and parsed,
 * then checked with the real filter.
 */
async function* indexScan(ix: SkipIndex, fh: FileHandle, gz: boolean, pos: number, offsetOf: ((end: number, recnum: number) => number) | undefined, ctx: FileQueryContext): AsyncGenerator<EventRow> {
  const { q, merge, stats } = ctx;
  const types = admittedTypes(q);
  const admittedByte = new Uint8Array(256);
  for (const t of types) admittedByte[t.charCodeAt(0)] = 1;
  const mayHold = blockTest(q);
  const masks = columnMasks(ix, q);
  // Plain arrays and an indexed loop: this runs once per line of every candidate block.
  const maskCols = masks.map(([c]) => c);
  const maskBits = masks.map(([, m]) => m);
  const nMasks = masks.length;
  const uids = uidHashes(q);
  const { blocks, lineStart, kind, uid } = ix;
  const nb = ix.header.blocks;
  const out: EventRow[] = [];
  const lines: number[] = [];
  const isCand: boolean[] = [];
  const candHashes = new Set<number>();
  for (let bi = 0; bi < nb; bi++) {
    if (merge.done) return;
    ctx.signal?.throwIfAborted();
    const o = bi * BF;
    const bEnd = blocks[o + B_END]!;
    if (bEnd <= pos) continue;
    const cand = merge.admitting && mayHold(blocks, o);
    const needFin = !q.dump && (merge.pendingCount > 0 || cand);
    if (!cand && !needFin) continue;
    let lf = blocks[o + B_LINE_FROM]!;
    const lt = blocks[o + B_LINE_TO]!;
    while (lf < lt && lineStart[lf]! < pos) lf++;
    lines.length = 0;
    isCand.length = 0;
    candHashes.clear();
    const pending = merge.pendingHashes;
    for (let i = lf; i < lt; i++) {
      const k = kind[i]!;
      if (k === 0) {
        // Not an event: counted as the scan counts the malformed lines it looks at.
        if (cand) stats.malformed++;
        continue;
      }
      if (cand && admittedByte[k] === 1) {
        let ok = true;
        for (let f = 0; f < nMasks; f++) {
          if (maskBits[f]![maskCols[f]![i]!] !== 1) {
            ok = false;
            break;
          }
        }
        if (ok && uids !== null && uid[i] !== UID_UNKNOWN && !uids.has(uid[i]!)) ok = false;
        if (ok) {
          lines.push(i);
          isCand.push(true);
          if (!q.dump && (k === 65 || k === 75)) candHashes.add(uid[i]!);
          continue;
        }
      }
      if (needFin && k === 70) {
        const h = uid[i]!;
        if (h === UID_UNKNOWN || pending.has(h) || candHashes.has(h)) {
          lines.push(i);
          isCand.push(false);
        }
      }
    }
    if (lines.length === 0) continue;
    const bStart = blocks[o + B_START]!;
    const lineEnd = (i: number) => (i + 1 < lt ? lineStart[i + 1]! : bEnd);
    let buf: Buffer;
    let base: number;
    if (gz) {
      buf = await memberOf(ix, fh, o, ctx);
      base = bStart;
    } else if (lines.length * 8 > lt - lf) {
      // Dense: one read of the block.
      base = lineStart[lf]!;
      buf = await readRange(fh, base, bEnd - base);
      ctx.counters.bytes += buf.length;
    } else {
      // Sparse: read the wanted lines only (adjacent ones together), in parallel.
      ({ buf, base } = readLines(fh, lines, lineStart, lineEnd));
      ctx.counters.bytes += buf.length;
    }
    for (let j = 0; j < lines.length; j++) {
      const i = lines[j]!;
      const s = lineStart[i]!;
      const e = lineEnd(i) - 1;
      const text = buf.toString('utf8', locate(base, s, buf), locate(base, e, buf));
      const v = parseJsonText(text);
      const rec = v === undefined ? null : toStoredEvent(v, null);
      if (rec === null) {
        stats.malformed++;
        continue;
      }
      if (rec.etype === 'F' && merge.pendingCount > 0) merge.offerFinish(rec);
      if (isCand[j] && merge.admitting && matchesRecord(rec, q, types)) merge.addCandidate(rec, offsetOf ? offsetOf(e + 1, rec.recnum) : e + 1, text);
      merge.drain(out);
      if (merge.done) break;
    }
    for (const row of out) yield row;
    out.length = 0;
  }
}

/** Sparse reads land in one buffer at their own places; `locate` maps a file position into it. */
const placed = new WeakMap<Buffer, { starts: number[]; at: number[] }>();

function locate(base: number, pos: number, buf: Buffer): number {
  const p = placed.get(buf);
  if (!p) return pos - base;
  // Binary search for the run holding pos.
  let lo = 0;
  let hi = p.starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (p.starts[mid]! <= pos) lo = mid;
    else hi = mid - 1;
  }
  return p.at[lo]! + (pos - p.starts[lo]!);
}

async function readRange(fh: FileHandle, pos: number, len: number): Promise<Buffer> {
  const buf = await readAt(fh, len, pos);
  const got = buf.length;
  if (got < len) throw evioError('STORE_IO', `the file ended at byte ${pos + got}, inside a block its index describes (it was rewritten meanwhile); query again`);
  return buf;
}

function readLines(fh: FileHandle, lines: number[], lineStart: Float64Array, lineEnd: (i: number) => number): { buf: Buffer; base: number } {
  const starts: number[] = [];
  const ends: number[] = [];
  for (const i of lines) {
    const s = lineStart[i]!;
    const e = lineEnd(i);
    if (ends.length > 0 && ends[ends.length - 1] === s) ends[ends.length - 1] = e;
    else {
      starts.push(s);
      ends.push(e);
    }
  }
  const at: number[] = [];
  let total = 0;
  for (let k = 0; k < starts.length; k++) {
    at.push(total);
    total += ends[k]! - starts[k]!;
  }
  const buf = Buffer.allocUnsafe(total);
  // Synchronous preads: a few short lines of one block, almost always from the page cache,
  // where a pread costs microseconds and a promise round trip through the thread pool ten
  // times more (measured: BENCHMARKS.md, section 11). Bounded by one block's lines.
  for (let k = 0; k < starts.length; k++) {
    const len = ends[k]! - starts[k]!;
    let got = 0;
    while (got < len) {
      const n = readSync(fh.fd, buf, at[k]! + got, len - got, starts[k]! + got);
      if (n <= 0) throw evioError('STORE_IO', `the file ended at byte ${starts[k]! + got}, inside a line its index describes (it was rewritten meanwhile); query again`);
      got += n;
    }
  }
  placed.set(buf, { starts, at });
  return { buf, base: 0 };
}

/** Whether a path exists (a family member may be rotated away between listing and opening). */
export async function exists(path: string): Promise<boolean> {
  return statPath(path).then(
    () => true,
    () => false,
  );
}
