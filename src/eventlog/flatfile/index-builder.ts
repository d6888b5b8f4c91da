// Builds the segments of a skip index (skip-index.ts), block by block, line by line. A builder
// starts empty (a new index) or from the state an existing index ended in (an extension): the
// dictionaries, the counts and the accepts still waiting for their finish, so that the indexed
// part is never read again. It hands out a segment whenever the caller asks (at block ends), so
// a build of a large file holds at most one segment's columns in memory.
import { crc32 } from 'node:zlib';
import { sliceCheck } from './index-key.js';
import { buildUidTable, uidHeadFields } from './index-uid-table.js';
import type { StoredEvent } from '../types.js';
import { parseJsonLine, lacksRecnum, toStoredEvent } from './parse-line.js';
import { probeCanonicalPrefix, uniqueidHash, type PrefixProbe } from './prefilter.js';
import {
  B_AE_MAX, B_AE_MIN, B_AE_OPEN, B_CRC, B_DCRC, B_END, B_F_MAX, B_F_MIN, B_LINE_FROM, B_LINE_TO, B_MASK, B_REC_MAX, B_REC_MIN, B_T_MAX, B_T_MIN, BF,
  C_DICT, C_KIND, C_START, C_UID, COL_FIELDS, COL_OVERFLOW, COL_WIDTH, countSlots, ETYPE_BIT, INDEX_VERSION, KIND_SLOT, MAX_DICT, NCOLS, pad8, segmentPrefix, UID_UNKNOWN,
  type ColField, type SegmentHead,
} from './skip-index.js';

/** Accepts waiting for their finish kept for extensions; beyond, they stay open for good. */
const MAX_OPEN_KEPT = 100_000;

/** Where an index ended: what an extension continues from. */
export interface BuilderBase {
  data: 'plain' | 'gz';
  ino: string;
  blockBytes: number;
  seq: number;
  usize: number;
  lines: number;
  blocks: number;
  legacy: number;
  dicts: Record<ColField, string[]>;
  open: Array<[string | null, number]>;
  openLost: boolean;
}

export function emptyBase(data: 'plain' | 'gz', ino: bigint | string, blockBytes: number, start: number): BuilderBase {
  return {
    data, ino: String(ino), blockBytes, seq: 0, usize: start, lines: 0, blocks: 0, legacy: 0,
    dicts: Object.fromEntries(COL_FIELDS.map((f) => [f, []])) as unknown as Record<ColField, string[]>,
    open: [], openLost: false,
  };
}

type Col = Uint32Array | Uint8Array | Uint16Array;

/** A segment as written, with what a reader would load of it (an extension keeps it in memory). */
export interface BuiltSegment {
  bytes: Buffer;
  head: SegmentHead;
  table: Float64Array;
  /** The segment's id counts (segmentCounts). */
  counts: Uint32Array;
  /** Where its body starts, from the segment's first byte. */
  bodyOffset: number;
}

class Grow<T extends Float64Array | Col> {
  length = 0;
  constructor(public data: T) {}
  push(v: number): void {
    if (this.length === this.data.length) {
      const d = new (this.data.constructor as new (n: number) => T)(this.data.length * 2);
      d.set(this.data);
      this.data = d;
    }
    this.data[this.length++] = v;
  }
  view(from = 0, to = this.length): T {
    return this.data.subarray(from, to) as T;
  }
  clear(): void {
    this.length = 0;
  }
}

const newCol = (c: number): Grow<Col> => new Grow(COL_WIDTH[c] === 4 ? new Uint32Array(4096) : COL_WIDTH[c] === 2 ? new Uint16Array(4096) : new Uint8Array(4096));

export class IndexBuilder {
  readonly dicts: Record<ColField, string[]>;
  private readonly dictIds: Array<Map<string, number>>;
  private readonly dictFrom: number[];
  private readonly open = new Map<string | undefined, number[]>();
  private openCount = 0;
  private openLost: boolean;
  private legacy: number;
  private seq: number;
  /** Rows of this segment's blocks, and the segment's columns. */
  private readonly table = new Grow(new Float64Array(BF * 64));
  private readonly cols: Array<Grow<Col>> = Array.from({ length: NCOLS }, (_, c) => newCol(c));
  /** Block and line numbers where this segment starts. */
  private blockFrom: number;
  private lineFrom: number;
  private segStart: number;
  /** Exit-time updates of blocks of earlier segments: block -> [aeMin, aeMax, finished]. */
  private readonly patches = new Map<number, [number, number, number]>();
  /** Row (in this segment) of the block being built, -1: none. */
  private cur = -1;
  private blockStart = 0;
  usize: number;

  constructor(readonly base: BuilderBase) {
    this.dicts = Object.fromEntries(COL_FIELDS.map((f) => [f, [...base.dicts[f]]])) as unknown as Record<ColField, string[]>;
    this.dictIds = COL_FIELDS.map((f) => new Map(this.dicts[f].map((v, i) => [v, i + 1])));
    this.dictFrom = COL_FIELDS.map((f) => this.dicts[f].length);
    for (const [u, b] of base.open) this.addOpen(u ?? undefined, b);
    this.openLost = base.openLost;
    this.legacy = base.legacy;
    this.seq = base.seq;
    this.blockFrom = base.blocks;
    this.lineFrom = base.lines;
    this.usize = base.usize;
    this.segStart = base.usize;
  }

  /** Blocks and lines in all segments so far, this one's included. */
  get blockCount(): number {
    return this.blockFrom + this.table.length / BF;
  }

  get lineCount(): number {
    return this.lineFrom + this.cols[0]!.length;
  }

  /** Lines of the segment being built. */
  get segmentLines(): number {
    return this.cols[0]!.length;
  }

  private addOpen(u: string | undefined, block: number): void {
    const list = this.open.get(u);
    if (list) list.push(block);
    else this.open.set(u, [block]);
    this.openCount++;
  }

  beginBlock(start: number, cstart = -1, cend = -1): void {
    this.cur = this.table.length / BF;
    this.blockStart = start;
    const n = this.lineCount;
    const row = [start, start, cstart, cend, n, n, Infinity, -Infinity, Infinity, -Infinity, Infinity, -Infinity, Infinity, -Infinity, 0, 0];
    for (const v of row) this.table.push(v);
    for (let c = 0; c < NCOLS; c++) this.table.push(0);
    this.table.push(0);
    this.dataCrc = 0;
  }

  /** CRC-32 of the current block's lines so far. */
  private dataCrc = 0;
  /** Lines of this segment with the canonical prefix (SegmentHead.canon). */
  private canon = 0;
  private readonly probe: PrefixProbe = { recnum: 0, etype: 0, uidHash: 0 };

  /** A complete line buf[s, e) (e at its '\n') starting at file position `at`. */
  line(buf: Buffer, s: number, e: number, at: number): void {
    this.dataCrc = crc32(buf.subarray(s, e + 1), this.dataCrc);
    if (probeCanonicalPrefix(buf, s, e, this.probe, false)) this.canon++;
    const v = parseJsonLine(buf, s, e);
    if (v !== undefined && lacksRecnum(v)) this.legacy++;
    // A line without recnum is numbered by its line, as a scan numbers it (lines count from 1).
    const rec = v === undefined ? null : toStoredEvent(v, this.lineCount + 1);
    this.record(rec, at, e - s + 1);
  }

  /** A line of `len` bytes (its '\n' included) at `at` holding `rec` (null: not an event). */
  record(rec: StoredEvent | null, at: number, len: number): void {
    const t = this.table.data;
    const o = this.cur * BF;
    const cols = this.cols;
    cols[C_START]!.push(at - this.blockStart);
    t[o + B_END] = at + len;
    this.usize = at + len;
    t[o + B_LINE_TO] = this.lineCount;
    if (rec === null) {
      cols[C_KIND]!.push(0);
      cols[C_UID]!.push(UID_UNKNOWN);
      for (let i = 0; i < COL_FIELDS.length; i++) cols[3 + i]!.push(0);
      return;
    }
    const et = rec.etype.charCodeAt(0);
    cols[C_KIND]!.push(et);
    const h = typeof rec.uniqueid === 'string' ? uniqueidHash(rec.uniqueid) : -1;
    cols[C_UID]!.push(h === -1 ? UID_UNKNOWN : h);
    for (let i = 0; i < COL_FIELDS.length; i++) {
      const val = rec[COL_FIELDS[i]!];
      let id = 0;
      if (typeof val === 'string') {
        const ids = this.dictIds[i]!;
        const known = ids.get(val);
        if (known !== undefined) id = known;
        else if (ids.size < MAX_DICT) {
          this.dicts[COL_FIELDS[i]!].push(val);
          id = ids.size + 1;
          ids.set(val, id);
        } else id = COL_OVERFLOW;
      }
      cols[3 + i]!.push(id);
    }
    if (rec.recnum < t[o + B_REC_MIN]!) t[o + B_REC_MIN] = rec.recnum;
    if (rec.recnum > t[o + B_REC_MAX]!) t[o + B_REC_MAX] = rec.recnum;
    t[o + B_MASK] = t[o + B_MASK]! | ETYPE_BIT[et]!;
    if (et === 70) {
      if (rec.time < t[o + B_F_MIN]!) t[o + B_F_MIN] = rec.time;
      if (rec.time > t[o + B_F_MAX]!) t[o + B_F_MAX] = rec.time;
      // The first finish after an accept with its uniqueid is that accept's finish.
      const list = this.open.get(rec.uniqueid);
      if (list) {
        this.open.delete(rec.uniqueid);
        this.openCount -= list.length;
        for (const bi of list) this.finished(bi, rec.time);
      }
    } else {
      if (rec.time < t[o + B_T_MIN]!) t[o + B_T_MIN] = rec.time;
      if (rec.time > t[o + B_T_MAX]!) t[o + B_T_MAX] = rec.time;
      if (et === 65 || et === 75) {
        t[o + B_AE_OPEN] = t[o + B_AE_OPEN]! + 1;
        if (this.openCount < MAX_OPEN_KEPT) this.addOpen(rec.uniqueid, this.blockFrom + this.cur);
        else this.openLost = true; // stays open for good: never skipped by exit filters
      }
    }
  }

  /** An accept of block `bi` got its finish at `time`. */
  private finished(bi: number, time: number): void {
    if (bi >= this.blockFrom) {
      const t = this.table.data;
      const p = (bi - this.blockFrom) * BF;
      t[p + B_AE_OPEN] = t[p + B_AE_OPEN]! - 1;
      if (time < t[p + B_AE_MIN]!) t[p + B_AE_MIN] = time;
      if (time > t[p + B_AE_MAX]!) t[p + B_AE_MAX] = time;
      return;
    }
    const p = this.patches.get(bi);
    if (p) {
      if (time < p[0]) p[0] = time;
      if (time > p[1]) p[1] = time;
      p[2]++;
    } else this.patches.set(bi, [time, time, 1]);
  }

  /**
   * Ends the block (dropped when it holds no line: a block is never empty): its column checks
   * and the CRC-32 of its data (`dataCrc`: a gzip member's, given; else its lines').
   */
  endBlock(dataCrc = this.dataCrc): void {
    const t = this.table.data;
    const o = this.cur * BF;
    const l0 = t[o + B_LINE_FROM]! - this.lineFrom;
    const l1 = t[o + B_LINE_TO]! - this.lineFrom;
    const block = this.blockFrom + this.cur;
    this.cur = -1;
    if (l0 === l1) {
      this.table.length -= BF;
      return;
    }
    for (let c = 0; c < NCOLS; c++) {
      const v = this.cols[c]!.view(l0, l1);
      t[o + B_CRC + c] = sliceCheck(new Uint8Array(v.buffer, v.byteOffset, v.byteLength), block, c);
    }
    t[o + B_DCRC] = dataCrc >>> 0;
  }

  /**
   * The segment of the blocks built since the last one (null when there are none), for a data
   * file whose indexed part ends at `dataSize` (compressed size for gzip) with that `sample`
   * and, when it was that long as the segment was taken, that ctime (skip-index.ts, ctimeAt).
   */
  takeSegment(dataSize: number, sample: number, dataCtime = ''): BuiltSegment | null {
    const nb = this.table.length / BF;
    if (nb === 0) return null;
    const lines = this.segmentLines;
    const parts: Buffer[] = [];
    let at = 0;
    const put = (b: Uint8Array) => {
      parts.push(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
      at += b.byteLength;
      const p = pad8(at) - at;
      if (p) {
        parts.push(Buffer.alloc(p));
        at += p;
      }
    };
    const table = this.table.view();
    const tableBytes = new Uint8Array(table.buffer, table.byteOffset, table.byteLength);
    put(tableBytes);
    const colAt: number[] = [];
    for (let c = 0; c < NCOLS; c++) {
      colAt.push(at);
      const v = this.cols[c]!.view();
      put(new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
    }
    const kindCol = this.cols[C_KIND]!.view() as Uint8Array;
    const counts = segmentCounts(this.cols.slice(C_DICT).map((c) => c.view() as Uint16Array), COL_FIELDS.map((f) => this.dicts[f].length));
    const countsAt = at;
    put(new Uint8Array(counts.buffer, counts.byteOffset, counts.byteLength));
    const kinds = [0, 0, 0, 0, 0];
    for (let i = 0; i < kindCol.length; i++) {
      const k = KIND_SLOT[kindCol[i]!] ?? 0;
      kinds[k] = kinds[k]! + 1;
    }
    const lineTo: number[] = [];
    for (let b = 0; b < nb; b++) lineTo.push(table[b * BF + B_LINE_TO]! - this.lineFrom);
    const uids = buildUidTable(this.cols[C_UID]!.view() as Uint32Array, kindCol, lineTo, this.blockFrom);
    const uidAt = at;
    put(uids.bytes);
    const openJson = Buffer.from(JSON.stringify([...this.open].flatMap(([u, list]) => list.map((bi) => [u ?? null, bi]))), 'utf8');
    const openAt = at;
    put(openJson);
    const patches: number[] = [];
    for (const [bi, [lo, hi, n]] of this.patches) patches.push(bi, lo, hi, n);
    const head: SegmentHead = {
      format: 'evio-ff-index',
      version: INDEX_VERSION,
      data: this.base.data,
      ino: this.base.ino,
      seq: this.seq,
      from: this.segStart,
      usize: this.usize,
      dataSize,
      sample,
      dataCtime,
      lineFrom: this.lineFrom,
      lines,
      blockFrom: this.blockFrom,
      blocks: nb,
      blockBytes: this.base.blockBytes,
      legacy: this.legacy,
      dictAdd: Object.fromEntries(COL_FIELDS.map((f, i) => [f, this.dicts[f].slice(this.dictFrom[i])])) as unknown as Record<ColField, string[]>,
      patches,
      tableCrc: crc32(tableBytes) >>> 0,
      cols: colAt,
      openAt,
      openBytes: openJson.length,
      openCrc: crc32(openJson) >>> 0,
      openLost: this.openLost,
      bodyBytes: at,
      kinds,
      canon: this.canon,
      countsAt,
      countsBytes: counts.byteLength,
      ...uidHeadFields(uids, uidAt),
      mac: '',
    };
    const prefix = segmentPrefix(head, tableBytes, new Uint8Array(counts.buffer, counts.byteOffset, counts.byteLength));
    const out: BuiltSegment = { bytes: Buffer.concat([prefix, ...parts]), head, table: Float64Array.from(table), counts, bodyOffset: prefix.length };
    // The next segment starts here.
    this.seq++;
    this.blockFrom += nb;
    this.lineFrom += lines;
    this.segStart = this.usize;
    this.table.clear();
    for (const c of this.cols) c.clear();
    this.patches.clear();
    this.canon = 0;
    for (let i = 0; i < COL_FIELDS.length; i++) this.dictFrom[i] = this.dicts[COL_FIELDS[i]!].length;
    return out;
  }
}

/**
 * Lines per dictionary id of each field (COL_FIELDS order, countSlots(dictLen) slots each: id 0,
 * the ids 1..dictLen, then COL_OVERFLOW), from the fields' columns.
 */
export function segmentCounts(fieldCols: Uint16Array[], dictLens: number[]): Uint32Array {
  const out = new Uint32Array(dictLens.reduce((a, n) => a + countSlots(n), 0));
  let base = 0;
  fieldCols.forEach((col, f) => {
    const len = dictLens[f]!;
    for (let i = 0; i < col.length; i++) {
      const id = col[i]!;
      const k = base + (id === COL_OVERFLOW ? len + 1 : id);
      out[k] = out[k]! + 1;
    }
    base += countSlots(len);
  });
  return out;
}
