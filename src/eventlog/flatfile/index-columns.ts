// The columns of a skip index, read block by block as a query needs them: a window of
// consecutive wanted blocks of one segment is read with one positioned read per column (the
// columns of a segment are contiguous), and each block's slice is checked against its keyed
// check in the block table (index-key.ts: a CRC-32 would let whoever can write the file forge
// a slice) before it is used. A slice that fails its check is not used: the caller
// reads the block's lines without the index (never a wrong answer from a damaged index). A
// long-lived process keeps checked slices for its next queries (index-kept-slices.ts).
import type { FileHandle } from 'node:fs/promises';
import { keepSlice, keptSlice, type ColumnSlice } from './index-kept-slices.js';
import { sliceCheck } from './index-key.js';
import { readIntoSync } from './read-at.js';
import { B_CRC, B_LINE_FROM, B_LINE_TO, BF, COL_WIDTH, NCOLS, segmentOf, type Segment, type SkipIndex } from './skip-index.js';

export type { ColumnSlice } from './index-kept-slices.js';

/** Lines per window: 64 Ki lines are 256 KiB of the widest column. */
const WINDOW_LINES = 1 << 16;

interface Window {
  /** Blocks [b0, b1) of `seg`, lines [l0, ...). */
  b0: number;
  b1: number;
  l0: number;
  buf: ArrayBuffer;
  /** 1: the block's slice passed its check; 2: failed it. */
  checked: Uint8Array;
}

export class ColumnReader {
  private readonly windows: Array<Window | null> = Array.from({ length: NCOLS }, () => null);
  /** Index bytes read (for the benchmarks' accounting). */
  bytesRead = 0;

  constructor(
    private readonly fh: FileHandle,
    private readonly ix: SkipIndex,
    /** Blocks the query may read: a window stops at the first block it will not. */
    private readonly wanted: Uint8Array,
    /** Keep checked slices for later queries, and use those kept (a long-lived process). */
    private readonly keep = false,
  ) {}

  /** Column `c` of block `b`, or null when its slice is damaged (or the file was cut). */
  get(c: number, b: number): ColumnSlice | null {
    if (this.keep) {
      const kept = keptSlice(this.ix, b, c);
      if (kept !== undefined) return kept;
    }
    let w: Window | null = this.windows[c]!;
    if (w === null || b < w.b0 || b >= w.b1) w = this.load(c, b);
    if (w === null) return null;
    const t = this.ix.table;
    const o = b * BF;
    const width = COL_WIDTH[c]!;
    const from = (t[o + B_LINE_FROM]! - w.l0) * width;
    const len = (t[o + B_LINE_TO]! - t[o + B_LINE_FROM]!) * width;
    const k = b - w.b0;
    if (w.checked[k] === 0) w.checked[k] = sliceCheck(new Uint8Array(w.buf, from, len), b, c) === t[o + B_CRC + c] ? 1 : 2;
    if (w.checked[k] === 2) return null;
    const n = len / width;
    const slice = width === 4 ? new Uint32Array(w.buf, from, n) : width === 2 ? new Uint16Array(w.buf, from, n) : new Uint8Array(w.buf, from, n);
    return this.keep ? keepSlice(this.ix, b, c, slice) : slice;
  }

  private load(c: number, b: number): Window | null {
    const ix = this.ix;
    const t = ix.table;
    const seg: Segment = segmentOf(ix, b);
    const segEnd = seg.head.blockFrom + seg.head.blocks;
    const l0 = t[b * BF + B_LINE_FROM]!;
    let b1 = b + 1;
    while (b1 < segEnd && this.wanted[b1] === 1 && t[b1 * BF + B_LINE_TO]! - l0 <= WINDOW_LINES) b1++;
    const l1 = t[(b1 - 1) * BF + B_LINE_TO]!;
    const width = COL_WIDTH[c]!;
    const len = (l1 - l0) * width;
    const pos = seg.bodyAt + seg.head.cols[c]! + (l0 - seg.head.lineFrom) * width;
    const old = this.windows[c];
    const buf = old && old.buf.byteLength >= len ? old.buf : new ArrayBuffer(Math.max(len, 4096));
    const view = Buffer.from(buf, 0, len);
    // Synchronous: a window is at most 256 KiB, nearly always in the page cache (read-at.ts).
    const got = readIntoSync(this.fh.fd, view, 0, len, pos);
    this.bytesRead += got;
    if (got < len) {
      this.windows[c] = null;
      return null;
    }
    const w: Window = { b0: b, b1, l0, buf, checked: new Uint8Array(b1 - b) };
    this.windows[c] = w;
    return w;
  }
}
