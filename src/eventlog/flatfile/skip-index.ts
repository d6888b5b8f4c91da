// The sidecar skip index of one flat file (plain or gzip members): an accelerator only. Every
// answer it helps give is the answer a scan gives; an index that does not describe the file it
// sits beside (missing, stale, truncated, corrupt, another version) is not used.
//
// Per block of lines (about `blockBytes` of data; for our gzip files one gzip member), a row of
// the block table: byte range (decompressed), compressed range (gzip members), line range,
// min/max recnum, min/max creation time of A/R/K lines, min/max time of F lines (exit times),
// the exit times of the block's accepts whose finish the index has seen (min/max) and how many
// accepts still wait for one, a mask of the event types present, a keyed check of each of the
// block's column slices (index-key.ts) and a CRC-32 of the block's data (plain: its bytes; gzip:
// its member decompressed) — what binds the index to the data (index-verify.ts).
// Per line, columns (so that a query reads only the columns it tests, block by block):
//   start offset within the block (u32), event type byte (u8, 0: not an event), a 32-bit hash of
//   the uniqueid (the hash the finish merge uses; UID_UNKNOWN when it cannot stand for the
//   value), and for submituser, submithost, runuser, runhost and runcommand the id of the value
//   in a per-file dictionary (u16: an exact dictionary; 0 = absent or not a string,
//   COL_OVERFLOW = beyond 65534 distinct values, i.e. unknown).
//
// Per segment, for the query planner and exact uniqueid lookups (format 4):
//   the uniqueid table: every (uniqueid hash, block) pair of the segment's event lines, sorted,
//   as u64 (hash << 32 | block) in chunks of UID_CHUNK entries; the head holds each chunk's
//   first hash (a fence) and keyed check, so a lookup reads one or two chunks, never a column;
//   line counts: per event type (head) and per dictionary id of each field (body), which the
//   planner turns into selectivity estimates (index-plan.ts).
//
// The file is "EVFFIX04" followed by segments, each describing the lines that follow the
// previous one's. A build writes one or more segments into a new file (renamed into place); an
// extension after appends adds a segment at the end, so its cost is the new lines', not the
// whole index's (docs/flatfile.md, "File layout").
import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { crc32 } from 'node:zlib';
import { segmentMac } from './index-key.js';
import { readAtSync } from './read-at.js';

export const INDEX_VERSION = 4;
export const MAGIC = Buffer.from('EVFFIX04');

/** Fields per block in the block table. */
export const BF = 25;
export const B_START = 0;
export const B_END = 1;
export const B_CSTART = 2;
export const B_CEND = 3;
export const B_LINE_FROM = 4;
export const B_LINE_TO = 5;
export const B_REC_MIN = 6;
export const B_REC_MAX = 7;
export const B_T_MIN = 8;
export const B_T_MAX = 9;
export const B_F_MIN = 10;
export const B_F_MAX = 11;
export const B_AE_MIN = 12;
export const B_AE_MAX = 13;
export const B_AE_OPEN = 14;
export const B_MASK = 15;
/** Keyed check of the block's slice of column c: B_CRC + c (index-key.ts, sliceCheck). */
export const B_CRC = 16;

export const COL_FIELDS = ['submituser', 'submithost', 'runuser', 'runhost', 'runcommand'] as const;
export type ColField = (typeof COL_FIELDS)[number];

/** Columns: line start in its block, event type, uniqueid hash, then one per COL_FIELDS entry. */
export const C_START = 0;
export const C_KIND = 1;
export const C_UID = 2;
export const C_DICT = 3;
export const NCOLS = C_DICT + COL_FIELDS.length;
export const COL_WIDTH: readonly number[] = [4, 1, 4, ...COL_FIELDS.map(() => 2)];

/** CRC-32 of the block's data (after the column checks). */
export const B_DCRC = B_CRC + NCOLS;

export const UID_UNKNOWN = 0xffffffff;
export const COL_OVERFLOW = 0xffff;
export const MAX_DICT = 0xfffe;

/** Default block size: chosen by measurement (BENCHMARKS.md, section 11, block size). */
export const DEFAULT_BLOCK_BYTES = 256 << 10;

/**
 * Unindexed blocks at the end of a plain file that make the append path or a query extend its
 * index (1 MiB with the default blocks); a shorter tail is scanned about as fast as an index
 * would serve it.
 */
export const EXTEND_BLOCKS = 4;

export const ETYPE_BIT: Record<number, number> = { 65: 1, 82: 2, 75: 4, 70: 8 };

/** Entries (u64: uniqueid hash << 32 | block) per checked chunk of a segment's uniqueid table. */
export const UID_CHUNK = 2048;

/** Slots of SegmentHead.kinds: lines that are not events, then A, R, K, F. */
export const KIND_SLOT: Record<number, number> = { 0: 0, 65: 1, 82: 2, 75: 3, 70: 4 };

/**
 * Slots of one field in a segment's counts: id 0 (absent), the dictionary ids through the
 * segment (1..dictLen), then the lines whose value overflowed the dictionary.
 */
export function countSlots(dictLen: number): number {
  return dictLen + 2;
}

/** The JSON head of one segment (docs/flatfile.md, "File layout"). */
export interface SegmentHead {
  format: 'evio-ff-index';
  version: number;
  data: 'plain' | 'gz';
  /** Inode of the data file the index describes. */
  ino: string;
  /** Position of this segment in the file (0, 1, ...). */
  seq: number;
  /** Decompressed start of this segment's lines (the previous segment's `usize`). */
  from: number;
  /** Decompressed end of the lines indexed through this segment. */
  usize: number;
  /** Plain: usize. Gz: the compressed bytes through this segment's last member. */
  dataSize: number;
  /** CRC-32 of the data's first and last 64 KiB of [0, dataSize). */
  sample: number;
  /**
   * The data file's ctime (ns) when it was `dataSize` long as this segment was written ('' when
   * it had grown already): the same size with another ctime is a file changed in place.
   */
  dataCtime: string;
  lineFrom: number;
  lines: number;
  blockFrom: number;
  blocks: number;
  blockBytes: number;
  /** Lines without a recnum (numbered by their line) through this segment: the index is then not used. */
  legacy: number;
  /** Dictionary values new in this segment (their ids follow the earlier segments'). */
  dictAdd: Record<ColField, string[]>;
  /** Updates of earlier segments' blocks: [block, aeMin, aeMax, accepts finished] per entry. */
  patches: number[];
  /** The body: the block table (f64), the columns (COL_WIDTH each), the accepts still waiting. */
  tableCrc: number;
  cols: number[];
  openAt: number;
  openBytes: number;
  openCrc: number;
  /** Some waiting accepts were not kept (their blocks stay "open" for good). */
  openLost: boolean;
  bodyBytes: number;
  /** Lines of this segment per KIND_SLOT (not events, A, R, K, F). */
  kinds: number[];
  /** Lines of this segment that start with evio's canonical prefix (prefilter.ts): a scan decides them without parsing. */
  canon: number;
  /** Where the per-field id counts start in the body (u32, COL_FIELDS order, countSlots each). */
  countsAt: number;
  countsBytes: number;
  /** The uniqueid table: where it starts in the body, its entries, each chunk's first hash and keyed check. */
  uidAt: number;
  uidCount: number;
  uidFence: number[];
  uidChecks: number[];
  /** HMAC-SHA-256 of this head (with `mac` empty), the block table and the counts, under the install's key. */
  mac: string;
}

/** One segment as loaded: where its body is, what it covers. */
export interface Segment {
  head: SegmentHead;
  /** File position of the body. */
  bodyAt: number;
}

/** An index as a query uses it: the block table and dictionaries in memory, the columns on disk. */
export interface SkipIndex {
  /** The index file, and its identity when it was read (the store's cache checks it). */
  path: string;
  fileIno: bigint;
  fileSize: number;
  data: 'plain' | 'gz';
  dataIno: string;
  dataSize: number;
  usize: number;
  sample: number;
  /** The last segment's `dataCtime`. */
  dataCtime: string;
  blockBytes: number;
  legacy: number;
  blocks: number;
  lines: number;
  /** All segments' block rows, later segments' patches applied. */
  table: Float64Array;
  dicts: Record<ColField, string[]>;
  /** Lines per dictionary id (0: absent) over all segments, and lines whose value overflowed the dictionary. */
  counts: Record<ColField, number[]>;
  overflow: Record<ColField, number>;
  /** Lines per KIND_SLOT over all segments, and lines with the canonical prefix. */
  kinds: number[];
  canon: number;
  segs: Segment[];
  /** File position after the last segment used (an extension writes there). */
  end: number;
}

/** Where the index of `dataPath` lives: beside it, or in a configured cache folder. */
export function indexPathFor(dataPath: string, cacheDir: string | null): string {
  if (cacheDir === null) return `${dataPath}.evidx`;
  const h = createHash('sha1').update(dataPath).digest('hex').slice(0, 16);
  return join(cacheDir, `${h}-${basename(dataPath)}.evidx`);
}

const SAMPLE = 64 << 10;

/** CRC-32 of the first and last 64 KiB of [0, size) of the data file (-1: shorter than size). */
export async function sampleOf(fh: FileHandle, size: number): Promise<number> {
  // Two short reads, nearly always from the page cache (read-at.ts).
  const head = readAtSync(fh.fd, Math.min(SAMPLE, size), 0);
  const tailFrom = Math.max(0, size - SAMPLE);
  const tail = readAtSync(fh.fd, size - tailFrom, tailFrom);
  if (head.length + tail.length !== Math.min(SAMPLE, size) + size - tailFrom) return -1;
  return crc32(tail, crc32(head)) >>> 0;
}

/** The segment of block `b`. */
export function segmentOf(ix: SkipIndex, b: number): Segment {
  const segs = ix.segs;
  let lo = 0;
  let hi = segs.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (segs[mid]!.head.blockFrom <= b) lo = mid;
    else hi = mid - 1;
  }
  return segs[lo]!;
}

export function pad8(n: number): number {
  return (n + 7) & ~7;
}

/**
 * A segment's first bytes: the u32 length and CRC-32 of its JSON head, the head, padding to 8
 * (the body follows). Sets the head's `mac` over the head, `table` (the body's block table) and
 * `counts` (the body's id counts).
 */
export function segmentPrefix(head: SegmentHead, table: Uint8Array, counts: Uint8Array): Buffer {
  head.mac = '';
  head.mac = segmentMac(Buffer.from(JSON.stringify(head), 'utf8'), table, counts);
  const json = Buffer.from(JSON.stringify(head), 'utf8');
  const out = Buffer.alloc(pad8(8 + json.length));
  out.writeUInt32LE(json.length, 0);
  out.writeUInt32LE(crc32(json) >>> 0, 4);
  json.copy(out, 8);
  return out;
}

/** The data file's ctime (ns) when it is `size` bytes long now, else '' (SegmentHead.dataCtime). */
export async function ctimeAt(fh: FileHandle, size: number): Promise<string> {
  const st = await fh.stat({ bigint: true });
  return Number(st.size) === size ? String(st.ctimeNs) : '';
}
