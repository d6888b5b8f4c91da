// The uniqueid table of a skip-index segment (skip-index.ts): every distinct (uniqueid hash,
// block) pair of the segment's event lines, as u64 `hash << 32 | block` (little-endian: the
// block in the low u32, the hash in the high one), sorted, so that an exact `uniqueid` query
// finds its blocks by binary search instead of reading every block's uid column. Lines whose
// hash cannot stand for the value (UID_UNKNOWN) are in it under that hash: every lookup takes
// their blocks too. The table is cut into chunks of UID_CHUNK entries; the segment head (under
// the MAC) holds each chunk's first hash and keyed check (index-key.ts), so a lookup reads and
// checks one or two chunks of 16 KiB per segment.
import { uidChunkCheck } from './index-key.js';
import { readIntoSync } from './read-at.js';
import { UID_CHUNK, UID_UNKNOWN, type SegmentHead, type SkipIndex } from './skip-index.js';

/** A built table: its bytes (to write at `uidAt`), entries, fences and chunk checks. */
export interface UidTable {
  bytes: Uint8Array;
  count: number;
  fence: number[];
  checks: number[];
}

/**
 * The table of a segment's lines: `uid` the uniqueid-hash column, `kind` the type column (0:
 * not an event, left out), block `blockFrom + b` holding lines [lineTo[b-1], lineTo[b]) of them.
 */
export function buildUidTable(uid: Uint32Array, kind: Uint8Array, lineTo: ArrayLike<number>, blockFrom: number): UidTable {
  const entries = new BigUint64Array(uid.length);
  const halves = new Uint32Array(entries.buffer);
  let n = 0;
  let l = 0;
  for (let b = 0; b < lineTo.length; b++) {
    const end = lineTo[b]!;
    for (; l < end; l++) {
      if (kind[l] === 0) continue;
      halves[2 * n] = blockFrom + b;
      halves[2 * n + 1] = uid[l]!;
      n++;
    }
  }
  return sortedTable(entries.subarray(0, n), blockFrom);
}

/** Sorts and deduplicates entries into a table of the segment starting at block `blockFrom`. */
export function sortedTable(entries: BigUint64Array, blockFrom: number): UidTable {
  entries.sort();
  let w = 0;
  for (let r = 0; r < entries.length; r++) if (w === 0 || entries[r] !== entries[w - 1]) entries[w++] = entries[r]!;
  const bytes = new Uint8Array(entries.buffer, entries.byteOffset, w * 8);
  const halves = new Uint32Array(entries.buffer, entries.byteOffset, w * 2);
  const fence: number[] = [];
  const checks: number[] = [];
  for (let k = 0; k * UID_CHUNK < w; k++) {
    fence.push(halves[2 * k * UID_CHUNK + 1]!);
    checks.push(uidChunkCheck(bytes.subarray(k * UID_CHUNK * 8, Math.min(w, (k + 1) * UID_CHUNK) * 8), blockFrom, k));
  }
  return { bytes, count: w, fence, checks };
}

/** The head fields of a table (with the body position it is written at). */
export function uidHeadFields(t: UidTable, uidAt: number): Pick<SegmentHead, 'uidAt' | 'uidCount' | 'uidFence' | 'uidChecks'> {
  return { uidAt, uidCount: t.count, uidFence: t.fence, uidChecks: t.checks };
}

/** The fences and checks agree with the entry count (validHead). */
export function uidHeadValid(h: SegmentHead): boolean {
  if (!Array.isArray(h.uidFence) || !Array.isArray(h.uidChecks) || !Number.isInteger(h.uidCount) || h.uidCount < 0) return false;
  const chunks = Math.ceil(h.uidCount / UID_CHUNK);
  return h.uidFence.length === chunks && h.uidChecks.length === chunks;
}

/** Chunk `k` of segment `h`'s table read from the index file at `bodyAt`, checked; null when cut or damaged. */
function readChunk(fd: number, h: SegmentHead, bodyAt: number, k: number): Uint32Array | null {
  const n = Math.min(UID_CHUNK, h.uidCount - k * UID_CHUNK);
  const buf = Buffer.allocUnsafe(n * 8);
  if (readIntoSync(fd, buf, 0, buf.length, bodyAt + h.uidAt + k * UID_CHUNK * 8) !== buf.length) return null;
  if (uidChunkCheck(buf, h.blockFrom, k) !== h.uidChecks[k]) return null;
  return new Uint32Array(buf.buffer, buf.byteOffset, n * 2);
}

/**
 * The blocks (1 in the returned array) whose event lines may carry one of the uniqueid `hashes`
 * (or a uniqueid the hash cannot stand for), from the tables of every segment of `ix` read
 * through `fd` (the index file); null when a chunk is cut short or fails its check (the caller
 * then reads the uid column of every block, as before).
 */
export function blocksOfUids(fd: number, ix: SkipIndex, hashes: Iterable<number>): Uint8Array | null {
  const out = new Uint8Array(ix.blocks);
  const want = [...new Set([...hashes, UID_UNKNOWN])];
  for (const seg of ix.segs) {
    const h = seg.head;
    const chunks = h.uidFence.length;
    if (chunks === 0) continue;
    const read = new Map<number, Uint32Array | null>();
    for (const x of want) {
      // Chunks that may hold x: from the one before the first fence >= x to the last fence <= x.
      let lo = 0;
      let hi = chunks;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (h.uidFence[mid]! >= x) hi = mid;
        else lo = mid + 1;
      }
      const first = Math.max(0, lo - 1);
      for (let k = first; k < chunks && (k === first || h.uidFence[k]! <= x); k++) {
        let c = read.get(k);
        if (c === undefined) {
          c = readChunk(fd, h, seg.bodyAt, k);
          read.set(k, c);
        }
        if (c === null) return null;
        for (let i = 0; i < c.length; i += 2) {
          if (c[i + 1] !== x) continue;
          const b = c[i]!;
          if (b < ix.blocks) out[b] = 1;
        }
      }
    }
  }
  return out;
}

/** Every entry of every segment of `ix` (read through `fd`, checked), for a compaction; null when one fails. */
export function allUidEntries(fd: number, ix: SkipIndex): BigUint64Array | null {
  const total = ix.segs.reduce((a, s) => a + s.head.uidCount, 0);
  const out = new BigUint64Array(total);
  const halves = new Uint32Array(out.buffer);
  let at = 0;
  for (const seg of ix.segs) {
    const h = seg.head;
    for (let k = 0; k < h.uidFence.length; k++) {
      const c = readChunk(fd, h, seg.bodyAt, k);
      if (c === null) return null;
      halves.set(c, at * 2);
      at += c.length / 2;
    }
  }
  return out;
}
