// Checks that a skip index still describes its data, block by block: each block row holds the
// CRC-32 of the block's data as it was indexed (plain: its bytes; gzip: its member
// decompressed). A block whose data no longer has it was changed in place since: the index must
// not be used for it, or it could skip a line that now matches (turn a match into a miss).
// - A plain file as long as when its index was written but with another ctime (a write in
//   place; ctime cannot be set back, unlike mtime) has every block checked once (a CRC pass,
//   no parsing; remembered for that ctime).
// - Every load of an index and every query through one re-check a few blocks picked at random:
//   an edit in a file that has grown since is found with a probability that grows with each
//   query (docs/security.md, "Skip indexes").
import { randomInt } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { readMember } from './gzip.js';
import { readAt } from './read-at.js';
import { B_CEND, B_CSTART, B_DCRC, B_END, B_START, BF, type SkipIndex } from './skip-index.js';

/** Blocks re-checked at random per load and per query. */
export const SAMPLE_BLOCKS = 2;

/** Block `b`'s data still has the CRC-32 the index recorded. */
export async function blockIntact(ix: SkipIndex, fh: FileHandle, gz: boolean, b: number, signal?: AbortSignal): Promise<boolean> {
  const o = b * BF;
  const t = ix.table;
  let data: Buffer;
  try {
    if (gz) data = await readMember(fh, t[o + B_CSTART]!, t[o + B_CEND]! - t[o + B_CSTART]!, signal);
    else {
      const len = t[o + B_END]! - t[o + B_START]!;
      data = await readAt(fh, len, t[o + B_START]!);
      if (data.length !== len) return false;
    }
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    return false;
  }
  return crc32(data) >>> 0 === t[o + B_DCRC];
}

/** `k` blocks of [from, ix.blocks) picked at random are intact. */
export async function sampleIntact(ix: SkipIndex, fh: FileHandle, gz: boolean, k = SAMPLE_BLOCKS, from = 0, signal?: AbortSignal): Promise<boolean> {
  const n = ix.blocks - from;
  if (n <= 0) return true;
  for (let i = 0; i < Math.min(k, n); i++) if (!(await blockIntact(ix, fh, gz, from + randomInt(n), signal))) return false;
  return true;
}

/** Full checks passed, by index and data identity and the data's ctime. */
const verified = new Set<string>();
const MAX_VERIFIED = 1024;

/**
 * A plain file changed in place since its index was written (same size, another ctime) has all
 * its blocks intact; true without reading when its size or ctime says it was not.
 */
export async function unchangedInPlace(ix: SkipIndex, fh: FileHandle, gz: boolean): Promise<boolean> {
  if (gz || ix.dataCtime === '') return true;
  const st = await fh.stat({ bigint: true });
  if (Number(st.size) !== ix.dataSize || String(st.ctimeNs) === ix.dataCtime) return true;
  const key = `${ix.path}\0${ix.fileIno}\0${ix.fileSize}\0${ix.dataIno}\0${st.ctimeNs}`;
  if (verified.has(key)) return true;
  for (let b = 0; b < ix.blocks; b++) if (!(await blockIntact(ix, fh, gz, b))) return false;
  if (verified.size >= MAX_VERIFIED) verified.clear();
  verified.add(key);
  return true;
}
