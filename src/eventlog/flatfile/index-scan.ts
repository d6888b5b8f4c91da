// Reading the indexed part of one file through its skip index (skip-index.ts): blocks that
// cannot hold a row are skipped from the block table alone; in the others the columns the query
// tests are read (index-columns.ts) and only the lines they admit (and the finish lines waiting
// accepts need) are read and parsed, then checked with the real filter, so a hash collision or
// a dictionary "unknown" costs a parse, never a row.
import type { FileHandle } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import { evioError } from '../../errors.js';
import { admittedTypes, matchesRecord } from '../filter.js';
import type { EventQuery, EventRow } from '../types.js';
import type { FileQueryContext } from './query-context.js';
import { bufferSource, readMember } from './gzip.js';
import { ColumnReader, type ColumnSlice } from './index-columns.js';
import { SAMPLE_BLOCKS, sampleIntact } from './index-verify.js';
import { lacksRecnum, parseJsonText, toStoredEvent } from './parse-line.js';
import { blocksOfUids } from './index-uid-table.js';
import { uniqueidHash } from './prefilter.js';
import { readIntoSync } from './read-at.js';
import { BATCH_ROWS } from '../row-batches.js';
import { scanRows } from './scan.js';
import {
  B_AE_MAX, B_AE_MIN, B_AE_OPEN, B_CEND, B_CSTART, B_END, B_F_MAX, B_F_MIN, B_LINE_FROM, B_MASK, B_REC_MAX, B_REC_MIN, B_START, B_T_MAX, B_T_MIN, BF,
  C_DICT, C_KIND, C_START, C_UID, COL_FIELDS, COL_OVERFLOW, ETYPE_BIT, UID_UNKNOWN, type ColField, type SkipIndex,
} from './skip-index.js';

type OffsetOf = ((end: number, recnum: number, numberedByLine?: boolean) => number) | undefined;

/**
 * Gaps between wanted lines below which one read takes both. A pread costs a few µs; copying
 * from the page cache ran at 0.6–6 GB/s on the development machine, depending on the load: a
 * 32 KiB gap read 144 MB for the 7 MB of lines of a 2 % query, 4 KiB (a page) 19 MB.
 */
export const READ_GAP = 4 << 10;

/** The member (decompressed) of block row `o` of a gzip file's index. */
export async function memberOf(ix: SkipIndex, fh: FileHandle, o: number, ctx: Pick<FileQueryContext, 'counters' | 'signal'>): Promise<Buffer> {
  const c0 = ix.table[o + B_CSTART]!;
  const c1 = ix.table[o + B_CEND]!;
  ctx.counters.bytes += c1 - c0;
  return readMember(fh, c0, c1 - c0, ctx.signal);
}

/** Which blocks may hold a row of the query, decided from the block table alone. */
export function blockTest(q: EventQuery): (b: Float64Array, o: number) => boolean {
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

/** Per pattern field with a column: its column and which dictionary ids may match (1) or cannot (0). */
export function columnMasks(ix: SkipIndex, q: EventQuery): Array<[number, Uint8Array]> {
  const out: Array<[number, Uint8Array]> = [];
  COL_FIELDS.forEach((f, i) => {
    const alts = q.patterns[f];
    if (!alts) return;
    const dict = ix.dicts[f];
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
    out.push([C_DICT + i, m]);
  });
  return out;
}

/** Lines whose `f` has an id the mask admits (the overflow id included), from the index's id counts. */
export function admittedLines(ix: SkipIndex, f: ColField, mask: Uint8Array): number {
  const c = ix.counts[f];
  let sum = mask[COL_OVERFLOW] === 1 ? ix.overflow[f] : 0;
  for (let id = 1; id < c.length; id++) if (mask[id] === 1) sum += c[id]!;
  return sum;
}

/** Uniqueid hashes an exact uniqueid filter allows, or null when the filter is not exact. */
export function uidHashes(q: EventQuery): Set<number> | null {
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
 * Rows of the indexed part of one file from `pos` on, into the shared merge. Returns null when
 * the index was read to its end, or the block where a damaged column slice (or an index file
 * replaced meanwhile) stopped it: the caller reads the rest of the file without the index.
 */
export async function* indexScan(ix: SkipIndex, fh: FileHandle, gz: boolean, pos: number, offsetOf: OffsetOf, ctx: FileQueryContext): AsyncGenerator<EventRow[], number | null> {
  const { q, merge, stats } = ctx;
  const types = admittedTypes(q);
  const admittedByte = new Uint8Array(256);
  for (const t of types) admittedByte[t.charCodeAt(0)] = 1;
  const masks = columnMasks(ix, q);
  // A field whose admitted values are on no line (the id counts): no block holds a row.
  const none = masks.some(([c, m]) => admittedLines(ix, COL_FIELDS[c - C_DICT]!, m) === 0);
  const blockMay = blockTest(q);
  const mayHold = none ? () => false : blockMay;
  const nMasks = masks.length;
  const maskBits = masks.map(([, m]) => m);
  const maskSlices: ColumnSlice[] = [];
  const uids = uidHashes(q);
  const t = ix.table;
  const nb = ix.blocks;
  let ifh: FileHandle;
  try {
    ifh = await open(ix.path, 'r');
  } catch {
    return firstBlockFrom(ix, pos);
  }
  try {
    if ((await ifh.stat({ bigint: true })).ino !== ix.fileIno) return firstBlockFrom(ix, pos);
    // An exact uniqueid: its blocks from the uniqueid tables (index-uid-table.ts). The finishes
    // waiting accepts need carry the same uniqueid, so no other block is read at all. A chunk
    // that fails its check: every block's uid column is read instead.
    const uidBlocks = uids === null ? null : blocksOfUids(ifh.fd, ix, uids);
    // Blocks whose columns the query may read: a column window stops before the others.
    const wanted = new Uint8Array(nb);
    for (let bi = 0; bi < nb; bi++) wanted[bi] = t[bi * BF + B_END]! > pos && (uidBlocks === null || uidBlocks[bi] === 1) && (!q.dump || mayHold(t, bi * BF)) ? 1 : 0;
    // A few blocks re-checked against the data (index-verify.ts): one changed since it was
    // indexed makes the rest of the file read without the index.
    if (!(await sampleIntact(ix, fh, gz, SAMPLE_BLOCKS, firstBlockFrom(ix, pos), ctx.signal))) return firstBlockFrom(ix, pos);
    const cols = new ColumnReader(ifh, ix, wanted, ctx.index.keepColumns === true);
    /** Rows resolved, gathered over blocks into batches of about BATCH_ROWS (row-batches.ts). */
    let out: EventRow[] = [];
    const lines: number[] = [];
    const isCand: boolean[] = [];
    const hits: number[] = [];
    const candHashes = new Set<number>();
    // The driving column: of the pattern columns admitting few ids, the one on fewest lines (the id counts).
    let driver = -1;
    let driverIds: number[] = [];
    let driverLines = Infinity;
    for (let f = 0; f < nMasks; f++) {
      const ids: number[] = [];
      const m = maskBits[f]!;
      for (let id = 0; id < m.length && ids.length <= 8; id++) if (m[id] === 1) ids.push(id);
      const on = admittedLines(ix, COL_FIELDS[masks[f]![0] - C_DICT]!, m);
      if (ids.length <= 8 && on < driverLines) {
        driver = f;
        driverIds = ids;
        driverLines = on;
      }
    }
    let uid: ColumnSlice | null = null;
    /** Line i (type k) passes the type, the column masks and the uniqueid filter. */
    const admitted = (i: number, k: number): boolean => {
      if (admittedByte[k] !== 1) return false;
      for (let f = 0; f < nMasks; f++) if (maskBits[f]![maskSlices[f]![i]!] !== 1) return false;
      return !(uids !== null && uid![i] !== UID_UNKNOWN && !uids.has(uid![i]!));
    };
    /** The block where a damaged column slice stopped the index (null: read to its end). */
    let stopped: number | null = null;
    blocks: for (let bi = 0; bi < nb; bi++) {
      if (merge.done) break;
      ctx.signal?.throwIfAborted();
      if (wanted[bi] === 0 && (q.dump || uidBlocks !== null)) continue;
      const o = bi * BF;
      const bStart = t[o + B_START]!;
      const bEnd = t[o + B_END]!;
      if (bEnd <= pos) continue;
      const cand = merge.admitting && mayHold(t, o);
      const needFin = !q.dump && (merge.pendingCount > 0 || cand);
      if (!cand && !needFin) continue;
      const kind = cols.get(C_KIND, bi);
      if (!kind) {
        stopped = bi;
        break blocks;
      }
      const n = kind.length;
      let start: ColumnSlice | null = null;
      let first = 0;
      if (bStart < pos) {
        start = cols.get(C_START, bi);
        if (!start) {
          stopped = bi;
          break blocks;
        }
        while (first < n && bStart + start[first]! < pos) first++;
      }
      if (cand) {
        for (let f = 0; f < nMasks; f++) {
          const c = cols.get(masks[f]![0], bi);
          if (!c) {
            stopped = bi;
            break blocks;
          }
          maskSlices[f] = c;
        }
      }
      uid = (cand && uids !== null) || needFin ? cols.get(C_UID, bi) : null;
      if (((cand && uids !== null) || needFin) && !uid) {
        stopped = bi;
        break blocks;
      }
      lines.length = 0;
      isCand.length = 0;
      candHashes.clear();
      if (cand) {
        if (driver >= 0) {
          // A column whose admitted ids are few: jump from match to match with the typed
          // array's indexOf (native, fast before the JIT warms up) instead of testing every line.
          const col = maskSlices[driver]! as Uint16Array;
          for (const id of driverIds) for (let i = col.indexOf(id, first); i !== -1; i = col.indexOf(id, i + 1)) hits.push(i);
          if (driverIds.length > 1) hits.sort((x, y) => x - y);
          for (let h = 0; h < hits.length; h++) {
            const i = hits[h]!;
            const k = kind[i]!;
            if (k !== 0 && admitted(i, k)) {
              lines.push(i);
              isCand.push(true);
              if (!q.dump && (k === 65 || k === 75)) candHashes.add(uid![i]!);
            }
          }
          hits.length = 0;
          // Not events: counted as the scan counts the malformed lines it looks at.
          for (let i = kind.indexOf(0, first); i !== -1; i = kind.indexOf(0, i + 1)) stats.malformed++;
        } else {
          for (let i = first; i < n; i++) {
            const k = kind[i]!;
            if (k === 0) {
              stats.malformed++;
              continue;
            }
            if (admitted(i, k)) {
              lines.push(i);
              isCand.push(true);
              if (!q.dump && (k === 65 || k === 75)) candHashes.add(uid![i]!);
            }
          }
        }
      }
      if (needFin) {
        // The finish lines waiting accepts need (uniqueid hash pending, or unknown).
        const pending = merge.pendingHashes;
        const nCand = lines.length;
        if (pending.size + candHashes.size <= 32) {
          const want = [UID_UNKNOWN, ...pending.keys(), ...candHashes];
          for (const h of want) for (let i = uid!.indexOf(h, first); i !== -1; i = uid!.indexOf(h, i + 1)) if (kind[i] === 70) hits.push(i);
        } else {
          for (let i = first; i < n; i++) {
            if (kind[i] !== 70) continue;
            const h = uid![i]!;
            if (h === UID_UNKNOWN || pending.has(h) || candHashes.has(h)) hits.push(i);
          }
        }
        if (hits.length > 0) {
          // In file order with the candidates: a finish counts only after its accept.
          hits.sort((x, y) => x - y);
          let h = 0;
          let c = 0;
          const merged: number[] = [];
          const mergedCand: boolean[] = [];
          while (h < hits.length || c < nCand) {
            if (c < nCand && (h >= hits.length || lines[c]! < hits[h]!)) {
              merged.push(lines[c++]!);
              mergedCand.push(true);
            } else {
              const i = hits[h++]!;
              if (merged.length > 0 && merged[merged.length - 1] === i) continue;
              merged.push(i);
              mergedCand.push(false);
            }
          }
          hits.length = 0;
          lines.length = 0;
          isCand.length = 0;
          for (let j = 0; j < merged.length; j++) {
            lines.push(merged[j]!);
            isCand.push(mergedCand[j]!);
          }
        }
      }
      if (lines.length === 0) continue;
      start ??= cols.get(C_START, bi);
      if (!start) {
        stopped = bi;
        break blocks;
      }
      const st = start;
      const lineStart = (i: number) => bStart + st[i]!;
      const lineEnd = (i: number) => (i + 1 < n ? bStart + st[i + 1]! : bEnd);
      let buf: Buffer;
      /** Where wanted line j starts in `buf`. */
      let at: number[];
      if (gz) {
        // A member of ours (about 64 KiB) is inflated here, synchronously: decompressing ahead
        // on the thread pool was measured slower (BENCHMARKS.md, section 11: a zlib handle per
        // member costs more than it saves). A larger one goes through the pool (gzip.ts).
        buf = await memberOf(ix, fh, o, ctx);
        at = lines.map((i) => lineStart(i) - bStart);
      } else {
        // The wanted lines, runs closer than READ_GAP read together (dense: the block at once).
        ({ buf, at } = readLines(fh, lines, lineStart, lineEnd));
        ctx.counters.bytes += buf.length;
      }
      const lineBase = t[o + B_LINE_FROM]! + 1;
      for (let j = 0; j < lines.length; j++) {
        const i = lines[j]!;
        const s = lineStart(i);
        const e = lineEnd(i) - 1;
        const text = buf.toString('utf8', at[j]!, at[j]! + (e - s));
        const v = parseJsonText(text);
        // A line without recnum is numbered by its line (1-based, every line counted), as a scan numbers it.
        const byLine = v !== undefined && lacksRecnum(v);
        const rec = v === undefined ? null : toStoredEvent(v, lineBase + i);
        if (rec === null) {
          stats.malformed++;
          continue;
        }
        if (rec.etype === 'F' && merge.pendingCount > 0) merge.offerFinish(rec);
        if (isCand[j] && merge.admitting && matchesRecord(rec, q, types)) merge.addCandidate(rec, offsetOf ? offsetOf(e + 1, rec.recnum, byLine) : e + 1, text);
        merge.drain(out);
        if (merge.done) break;
      }
      if (out.length >= BATCH_ROWS || merge.done) {
        yield out;
        out = [];
      }
    }
    if (out.length > 0) yield out;
    return stopped;
  } finally {
    await ifh.close();
  }
}

/** The first block holding bytes at or after `pos`. */
function firstBlockFrom(ix: SkipIndex, pos: number): number {
  let b = 0;
  while (b < ix.blocks && ix.table[b * BF + B_END]! <= pos) b++;
  return b;
}

/**
 * The rest of a gzip file of ours from block `from` on, without the index's columns: each
 * member is decompressed and scanned (its range is in the block table, checked by its CRC).
 */
export async function* scanGzipFrom(ix: SkipIndex, fh: FileHandle, from: number, pos: number, offsetOf: OffsetOf, ctx: FileQueryContext): AsyncGenerator<EventRow[]> {
  for (let bi = from; bi < ix.blocks && !ctx.merge.done; bi++) {
    const o = bi * BF;
    const data = await memberOf(ix, fh, o, ctx);
    yield* scanRows(bufferSource(data, ix.table[o + B_START]!), ctx.q, {
      merge: ctx.merge,
      start: Math.max(pos, ix.table[o + B_START]!),
      maxOpenAccepts: ctx.maxOpenAccepts,
      signal: ctx.signal,
      stats: ctx.stats,
      freq: ctx.freq,
      budget: ctx.buffers,
      sizeHint: data.length,
      ...(offsetOf ? { offsetOf } : {}),
    });
  }
}

/**
 * Reads the wanted lines of a block into one buffer, runs closer than READ_GAP with one read;
 * `at[j]` is where line `lines[j]` starts in it.
 */
function readLines(fh: FileHandle, lines: number[], lineStart: (i: number) => number, lineEnd: (i: number) => number): { buf: Buffer; at: number[] } {
  const starts: number[] = [];
  const ends: number[] = [];
  const at: number[] = [];
  let total = 0;
  for (const i of lines) {
    const s = lineStart(i);
    const e = lineEnd(i);
    if (ends.length > 0 && s - ends[ends.length - 1]! < READ_GAP) {
      total += e - ends[ends.length - 1]!;
      ends[ends.length - 1] = e;
    } else {
      starts.push(s);
      ends.push(e);
      total += e - s;
    }
    at.push(total - (e - s));
  }
  const buf = Buffer.allocUnsafe(total);
  // Synchronous preads: runs of lines of one block, almost always from the page cache, where a
  // pread costs microseconds and a promise round trip through the thread pool ten times more
  // (measured: BENCHMARKS.md, section 11). Bounded by one block.
  let w = 0;
  for (let k = 0; k < starts.length; k++) {
    const len = ends[k]! - starts[k]!;
    const got = readIntoSync(fh.fd, buf, w, len, starts[k]!);
    if (got < len) throw evioError('STORE_IO', `the file ended at byte ${starts[k]! + got}, inside a line its index describes (it was rewritten meanwhile); query again`);
    w += len;
  }
  return { buf, at };
}

