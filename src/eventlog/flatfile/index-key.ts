// The key that binds skip indexes to this installation (docs/security.md, "Skip indexes"). A
// CRC-32 only catches damage: whoever can write an index file can recompute it. So each segment
// head carries an HMAC-SHA-256, under a per-install secret, of the head and its block table
// (which holds the block summaries, the dictionaries' place in the head, and a keyed check of
// every column slice) and id counts; the head holds a keyed check of every uniqueid-table
// chunk. An index whose MAC fails is not used (the file is scanned). The secret
// is `index.key` (32 random bytes, 0600) in evio's home, made on first use; the engine names it
// (stores.ts). A process that never names one (a library user, a unit test) uses a fixed public
// key: its indexes are then checked for damage only, as before.
import { createHmac, hash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../../private-files.js';

const KEY_BYTES = 32;
const UNKEYED = Buffer.from('evio skip index: no per-install key', 'utf8');

let key: Buffer = UNKEYED;
let keyFile: string | null = null;

/** The key in use (handed to the upkeep thread). */
export function indexKey(): Buffer {
  return key;
}

export function setIndexKey(k: Buffer): void {
  key = Buffer.from(k);
}

/** Where the key of evio's home `home` lives. */
export function indexKeyFileIn(home: string): string {
  return join(home, 'index.key');
}

/** Uses the key in `file` (0600), made on first use; loaded once per file per process. */
export function useIndexKeyFile(file: string): void {
  if (keyFile === file) return;
  let k: Buffer | null = null;
  try {
    k = readFileSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (k === null) {
    mkdirSync(dirname(file), { recursive: true, mode: PRIVATE_DIR_MODE });
    const fresh = randomBytes(KEY_BYTES);
    try {
      writeFileSync(file, fresh, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
      k = fresh;
    } catch (err) {
      // Another process made it first: use theirs.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      k = readFileSync(file);
    }
  }
  if (k.length !== KEY_BYTES) throw new Error(`${file} holds ${k.length} bytes, not ${KEY_BYTES}`);
  key = k;
  keyFile = file;
}

/** The MAC of a segment: its head (JSON, `mac` empty), its block table and its id counts. */
export function segmentMac(headJson: Buffer, table: Uint8Array, counts: Uint8Array): string {
  return createHmac('sha256', key).update('evio-ff-index segment\0').update(headJson).update(table).update(counts).digest('hex');
}

/**
 * The keyed check of chunk `k` of the uniqueid table of the segment whose blocks start at
 * `blockFrom` (its head carries it, under the MAC): a sliceCheck in a column number no column
 * has, bound to the segment and the chunk's place, so chunks cannot be moved between them.
 */
export function uidChunkCheck(chunk: Uint8Array, blockFrom: number, k: number): number {
  return sliceCheck(chunk, blockFrom, (0x80000000 + k) >>> 0);
}

/**
 * The keyed check of column `c`'s slice of block `b` (32 bits: a forger without the key has one
 * chance in 2^32 per try, and a failed try only makes the block read without the index).
 * SHA-256 of key, block, column and slice: one call, no HMAC objects (a query checks thousands).
 */
export function sliceCheck(slice: Uint8Array, b: number, c: number): number {
  const need = key.length + 8 + slice.length;
  // One scratch buffer per thread, not a concatenation per slice: a query checks thousands
  // (measured: 4,000 slices of 1.5 KB, 20 ms with Buffer.concat, 12-15 ms like this).
  if (scratch.length < need) scratch = Buffer.allocUnsafe(Math.max(need, 64 << 10));
  key.copy(scratch, 0);
  scratch.writeUInt32LE(b >>> 0, key.length);
  scratch.writeUInt32LE(c, key.length + 4);
  scratch.set(slice, key.length + 8);
  return hash('sha256', scratch.subarray(0, need), 'buffer').readUInt32LE(0);
}

let scratch = Buffer.allocUnsafe(0);
