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
/** Uses so far: an index's last use orders the eviction. */
let clock = 0;
interface Kept {
  /** Slices by block and column. */
  slices: Map<number, ColumnSlice>;
  bytes: number;
  lastUsed: number;
}
const kept = new Map<SkipIndex, Kept>();

/** Slices answered from memory and slices kept, since the process started (tests, metrics). */
export const keptSliceStats = { hits: 0, kept: 0 };

const keyOf = (b: number, c: number) => b * NCOLS + c;

/** The kept slice of column `c` of block `b`, if any. */
export function keptSlice(ix: SkipIndex, b: number, c: number): ColumnSlice | undefined {
  const entry = kept.get(ix);
  if (entry === undefined) return undefined;
  const s = entry.slices.get(keyOf(b, c));
  if (s !== undefined) {
    keptSliceStats.hits++;
    entry.lastUsed = ++clock;
  }
  return s;
}

/** Keeps a copy of a checked slice; the least recently used indexes' slices go to stay within the budget. */
export function keepSlice(ix: SkipIndex, b: number, c: number, checked: ColumnSlice): ColumnSlice {
  const bytes = checked.byteLength;
  while (keptBytes + bytes > budget && evictOtherThan(ix));
  // One index larger than the budget keeps what fits (the blocks its queries read first).
  if (keptBytes + bytes > budget) return checked;
  let entry = kept.get(ix);
  if (entry === undefined) {
    entry = { slices: new Map(), bytes: 0, lastUsed: 0 };
    kept.set(ix, entry);
  }
  entry.lastUsed = ++clock;
  const copy = checked.slice();
  entry.slices.set(keyOf(b, c), copy);
  entry.bytes += bytes;
  keptBytes += bytes;
  keptSliceStats.kept++;
  return copy;
}

/** Drops the slices of the least recently used index but `ix`; false when there is none. */
function evictOtherThan(ix: SkipIndex): boolean {
  let oldest: SkipIndex | null = null;
  let at = Infinity;
  for (const [other, e] of kept) {
    if (other !== ix && e.lastUsed < at) {
      oldest = other;
      at = e.lastUsed;
    }
  }
  if (oldest === null) return false;
  keptBytes -= kept.get(oldest)!.bytes;
  kept.delete(oldest);
  return true;
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
