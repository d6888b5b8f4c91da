// Checked column slices kept between the queries of a long-lived process (the service): a
// query reads a block's column slice from the index file and checks its keyed hash
// (index-columns.ts) — thousands of SHA-256 calls for a rare value in a large log, most of a
// selective query's time. The service keeps each checked slice (a copy: the file may change
// under it, the copy was checked) for the next query, bounded by KEPT_BUDGET_BYTES across all
// indexes. Slices are kept per loaded index object: an index reloaded or rebuilt (a new object,
// even if the file got the same inode number back) never sees another's slices.
import { NCOLS, type SkipIndex } from './skip-index.js';

export type ColumnSlice = Uint32Array | Uint16Array | Uint8Array;

/** The process-wide bound on kept slices (bytes of column data). */
export const KEPT_BUDGET_BYTES = 64 << 20;

let budget = KEPT_BUDGET_BYTES;
let keptBytes = 0;
/** Indexes in the order they were last used (the first is evicted first); each: slices by block and column. */
const kept = new Map<SkipIndex, { slices: Map<number, ColumnSlice>; bytes: number }>();

/** Hits and misses since the process started (tests, metrics). */
export const keptSliceStats = { hits: 0, kept: 0 };

const keyOf = (b: number, c: number) => b * NCOLS + c;

/** The kept slice of column `c` of block `b`, if any. */
export function keptSlice(ix: SkipIndex, b: number, c: number): ColumnSlice | undefined {
  const entry = kept.get(ix);
  const s = entry?.slices.get(keyOf(b, c));
  if (s !== undefined) keptSliceStats.hits++;
  return s;
}

/** Keeps a copy of a checked slice; the least recently used indexes' slices go to stay within the budget. */
export function keepSlice(ix: SkipIndex, b: number, c: number, checked: ColumnSlice): ColumnSlice {
  const bytes = checked.byteLength;
  let entry = kept.get(ix);
  if (entry === undefined) {
    entry = { slices: new Map(), bytes: 0 };
    kept.set(ix, entry);
  } else {
    // Most recently used last.
    kept.delete(ix);
    kept.set(ix, entry);
  }
  for (const [other, e] of kept) {
    if (keptBytes + bytes <= budget || other === ix) break;
    kept.delete(other);
    keptBytes -= e.bytes;
  }
  // One index larger than the budget keeps what fits (the blocks its queries read first).
  if (keptBytes + bytes > budget) return checked;
  const copy = checked.slice();
  entry.slices.set(keyOf(b, c), copy);
  entry.bytes += bytes;
  keptBytes += bytes;
  keptSliceStats.kept++;
  return copy;
}

/** Bytes of column data kept now. */
export function keptBytesTotal(): number {
  return keptBytes;
}

/** Tests: another budget (and nothing kept). */
export function setKeptBudget(bytes: number): void {
  budget = bytes;
  kept.clear();
  keptBytes = 0;
}
