// The sidecar skip index of one flat file (plain or gzip members): an accelerator only. Every
// answer it helps give is the answer a scan gives; an index that does not describe the file it
// sits beside (missing, stale, truncated, corrupt, another version) is not used.
//
// Per block of lines (about `blockBytes` of data; for our gzip files one gzip member):
//   byte range (decompressed), compressed range (gzip members), line range, min/max recnum,
//   min/max creation time of A/R/K lines, min/max time of F lines (exit times), the exit times
//   of the block's accepts whose finish the index has seen (min/max) and how many accepts still
//   wait for one, and a mask of the event types present.
// Per line (columns, so that a selective query reads only the lines it needs):
//   start offset, event type byte (0: not an event), a 32-bit hash of the uniqueid (the hash the
//   finish merge uses; UID_UNKNOWN when it cannot stand for the value), and for submituser,
//   submithost, runuser, runhost and runcommand the id of the value in a per-file dictionary
//   (an exact small dictionary: 0 = absent or not a string, COL_OVERFLOW = beyond 65534
//   distinct values, i.e. unknown).
//
// File layout: "EVFFIX01", u32 length of the JSON header, the header, then the body (typed
// arrays, each padded to 8 bytes). The header holds the version, the data file's inode, the
// indexed sizes, a CRC-32 of samples of the indexed data (its first and last 64 KiB), a CRC-32
// of the body, the dictionaries and the accepts still waiting for their finish (to extend the
// index after appends without reading the indexed part again).
import { randomBytes } from 'node:crypto';
import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { mkdir, open, readdir, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { crc32 } from 'node:zlib';
import { parseJsonLine, lacksRecnum, toStoredEvent } from './parse-line.js';
import { uniqueidHash } from './prefilter.js';
import { readAt } from './read-at.js';

export const INDEX_VERSION = 1;
const MAGIC = Buffer.from('EVFFIX01');

/** Fields per block in the block table. */
export const BF = 16;
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

export const COL_FIELDS = ['submituser', 'submithost', 'runuser', 'runhost', 'runcommand'] as const;
export type ColField = (typeof COL_FIELDS)[number];
export const UID_UNKNOWN = 0xffffffff;
export const COL_OVERFLOW = 0xffff;
const MAX_DICT = 0xfffe;
/** Accepts waiting for their finish kept in the header for extensions; beyond, they stay open for good. */
const MAX_OPEN_KEPT = 100_000;

/** Default block size: chosen by measurement (BENCHMARKS.md, workload 1, index block size). */
export const DEFAULT_BLOCK_BYTES = 256 << 10;

export const ETYPE_BIT: Record<number, number> = { 65: 1, 82: 2, 75: 4, 70: 8 };

export interface IndexHeader {
  format: 'evio-ff-index';
  version: number;
  data: 'plain' | 'gz';
  /** Inode of the data file the index describes. */
  ino: string;
  /** Plain: end of the indexed prefix. Gz: the compressed file's size. */
  dataSize: number;
  /** Decompressed end of the indexed lines. */
  usize: number;
  /** CRC-32 of the data's first and last 64 KiB of [0, dataSize). */
  sample: number;
  /** CRC-32 of the body. */
  body: number;
  bodyBytes: number;
  blocks: number;
  lines: number;
  /** Lines without a recnum (numbered by their line): the index is then not used. */
  legacy: number;
  blockBytes: number;
  dicts: Record<ColField, string[]>;
  /** Accepts of the indexed part still waiting for their finish: [uniqueid, block]. */
  open: Array<[string | null, number]>;
  /** Some waiting accepts were not kept (their blocks stay "open" for good). */
  openLost: boolean;
}

export interface SkipIndex {
  header: IndexHeader;
  blocks: Float64Array;
  lineStart: Float64Array;
  kind: Uint8Array;
  uid: Uint32Array;
  cols: Uint16Array[];
}

/** Where the index of `dataPath` lives: beside it, or in a configured cache folder. */
export function indexPathFor(dataPath: string, cacheDir: string | null): string {
  if (cacheDir === null) return `${dataPath}.evidx`;
  const h = createHash('sha1').update(dataPath).digest('hex').slice(0, 16);
  return join(cacheDir, `${h}-${basename(dataPath)}.evidx`);
}


const SAMPLE = 64 << 10;

/** CRC-32 of the first and last 64 KiB of [0, size) of the data file. */
export async function sampleOf(fh: FileHandle, size: number): Promise<number> {
  const head = await readAt(fh, Math.min(SAMPLE, size), 0);
  const tailFrom = Math.max(0, size - SAMPLE);
  const tail = await readAt(fh, size - tailFrom, tailFrom);
  if (head.length + tail.length !== Math.min(SAMPLE, size) + size - tailFrom) return -1;
  return crc32(tail, crc32(head)) >>> 0;
}

// ---- building ----

class Grow<T extends Float64Array | Uint32Array | Uint16Array | Uint8Array> {
  length = 0;
  constructor(public data: T) {}
  push(v: number): void {
    if (this.length === this.data.length) {
      const d = new (this.data.constructor as new (n: number) => T)(Math.max(1024, this.data.length * 2));
      d.set(this.data);
      this.data = d;
    }
    this.data[this.length++] = v;
  }
  view(): T {
    return this.data.subarray(0, this.length) as T;
  }
}

/** Builds (or extends) the index of one file, block by block, line by line. */
export class IndexBuilder {
  readonly blocks: Grow<Float64Array>;
  readonly lineStart: Grow<Float64Array>;
  readonly kind: Grow<Uint8Array>;
  readonly uid: Grow<Uint32Array>;
  readonly cols: Array<Grow<Uint16Array>>;
  readonly dicts: Record<ColField, string[]>;
  private readonly dictIds: Array<Map<string, number>>;
  private readonly open = new Map<string | undefined, number[]>();
  private openCount = 0;
  openLost: boolean;
  legacy: number;
  /** Index of the block being built (-1: none). */
  private cur = -1;
  usize: number;

  constructor(prev: SkipIndex | null, start: number) {
    const copy = <T extends Float64Array | Uint32Array | Uint16Array | Uint8Array>(a: T | undefined, make: (n: number) => T): Grow<T> => {
      const g = new Grow(make(Math.max(1024, (a?.length ?? 0) * 2)));
      if (a) {
        g.data.set(a);
        g.length = a.length;
      }
      return g;
    };
    this.blocks = copy(prev?.blocks, (n) => new Float64Array(n));
    this.lineStart = copy(prev?.lineStart, (n) => new Float64Array(n));
    this.kind = copy(prev?.kind, (n) => new Uint8Array(n));
    this.uid = copy(prev?.uid, (n) => new Uint32Array(n));
    this.cols = COL_FIELDS.map((_, i) => copy(prev?.cols[i], (n) => new Uint16Array(n)));
    this.dicts = Object.fromEntries(COL_FIELDS.map((f) => [f, [...(prev?.header.dicts[f] ?? [])]])) as Record<ColField, string[]>;
    this.dictIds = COL_FIELDS.map((f) => new Map(this.dicts[f].map((v, i) => [v, i + 1])));
    for (const [u, b] of prev?.header.open ?? []) this.addOpen(u ?? undefined, b);
    this.openLost = prev?.header.openLost ?? false;
    this.legacy = prev?.header.legacy ?? 0;
    this.usize = start;
  }

  get blockCount(): number {
    return this.blocks.length / BF;
  }

  get lineCount(): number {
    return this.lineStart.length;
  }

  private addOpen(u: string | undefined, block: number): void {
    const list = this.open.get(u);
    if (list) list.push(block);
    else this.open.set(u, [block]);
    this.openCount++;
  }

  beginBlock(start: number, cstart = -1, cend = -1): void {
    this.cur = this.blockCount;
    const b = [start, start, cstart, cend, this.lineCount, this.lineCount, Infinity, -Infinity, Infinity, -Infinity, Infinity, -Infinity, Infinity, -Infinity, 0, 0];
    for (const v of b) this.blocks.push(v);
  }

  /** A complete line buf[s, e) (e at its '\n') starting at file position `at`. */
  line(buf: Buffer, s: number, e: number, at: number): void {
    const b = this.blocks.data;
    const o = this.cur * BF;
    this.lineStart.push(at);
    b[o + B_END] = at + (e - s) + 1;
    b[o + B_LINE_TO] = this.lineCount;
    this.usize = at + (e - s) + 1;
    const v = parseJsonLine(buf, s, e);
    if (v !== undefined && lacksRecnum(v)) this.legacy++;
    const rec = v === undefined ? null : toStoredEvent(v, lacksRecnum(v) ? 0 : null);
    if (rec === null) {
      this.kind.push(0);
      this.uid.push(UID_UNKNOWN);
      for (const c of this.cols) c.push(0);
      return;
    }
    const et = rec.etype.charCodeAt(0);
    this.kind.push(et);
    const h = typeof rec.uniqueid === 'string' ? uniqueidHash(rec.uniqueid) : -1;
    this.uid.push(h === -1 ? UID_UNKNOWN : h);
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
      this.cols[i]!.push(id);
    }
    if (rec.recnum < b[o + B_REC_MIN]!) b[o + B_REC_MIN] = rec.recnum;
    if (rec.recnum > b[o + B_REC_MAX]!) b[o + B_REC_MAX] = rec.recnum;
    b[o + B_MASK] = b[o + B_MASK]! | ETYPE_BIT[et]!;
    if (et === 70) {
      if (rec.time < b[o + B_F_MIN]!) b[o + B_F_MIN] = rec.time;
      if (rec.time > b[o + B_F_MAX]!) b[o + B_F_MAX] = rec.time;
      // The first finish after an accept with its uniqueid is that accept's finish.
      const list = this.open.get(rec.uniqueid);
      if (list) {
        this.open.delete(rec.uniqueid);
        this.openCount -= list.length;
        for (const bi of list) {
          const p = bi * BF;
          b[p + B_AE_OPEN] = b[p + B_AE_OPEN]! - 1;
          if (rec.time < b[p + B_AE_MIN]!) b[p + B_AE_MIN] = rec.time;
          if (rec.time > b[p + B_AE_MAX]!) b[p + B_AE_MAX] = rec.time;
        }
      }
    } else {
      if (rec.time < b[o + B_T_MIN]!) b[o + B_T_MIN] = rec.time;
      if (rec.time > b[o + B_T_MAX]!) b[o + B_T_MAX] = rec.time;
      if (et === 65 || et === 75) {
        b[o + B_AE_OPEN] = b[o + B_AE_OPEN]! + 1;
        if (this.openCount < MAX_OPEN_KEPT) this.addOpen(rec.uniqueid, this.cur);
        else this.openLost = true; // stays open for good: never skipped by exit filters
      }
    }
  }

  /** Drops the current block when it holds no line (a block is never empty). */
  endBlock(): void {
    const o = this.cur * BF;
    if (this.blocks.data[o + B_LINE_FROM] === this.blocks.data[o + B_LINE_TO]) this.blocks.length -= BF;
    this.cur = -1;
  }

  finish(data: 'plain' | 'gz', ino: bigint, dataSize: number, sample: number, blockBytes: number): SkipIndex {
    const header: IndexHeader = {
      format: 'evio-ff-index',
      version: INDEX_VERSION,
      data,
      ino: String(ino),
      dataSize,
      usize: this.usize,
      sample,
      body: 0,
      bodyBytes: 0,
      blocks: this.blockCount,
      lines: this.lineCount,
      legacy: this.legacy,
      blockBytes,
      dicts: this.dicts,
      open: [...this.open].flatMap(([u, list]) => list.map((bi): [string | null, number] => [u ?? null, bi])),
      openLost: this.openLost,
    };
    return { header, blocks: this.blocks.view(), lineStart: this.lineStart.view(), kind: this.kind.view(), uid: this.uid.view(), cols: this.cols.map((c) => c.view()) };
  }
}

// ---- file format ----

function pad8(n: number): number {
  return (n + 7) & ~7;
}

function bodyParts(ix: SkipIndex): Buffer[] {
  const parts: Buffer[] = [];
  for (const a of [ix.blocks, ix.lineStart, ix.kind, ix.uid, ...ix.cols]) {
    const b = Buffer.from(a.buffer, a.byteOffset, a.byteLength);
    parts.push(b);
    const p = pad8(b.length) - b.length;
    if (p) parts.push(Buffer.alloc(p));
  }
  return parts;
}

export function serializeIndex(ix: SkipIndex): Buffer {
  const body = Buffer.concat(bodyParts(ix));
  ix.header.body = crc32(body) >>> 0;
  ix.header.bodyBytes = body.length;
  const head = Buffer.from(JSON.stringify(ix.header), 'utf8');
  const len = Buffer.alloc(4);
  len.writeUInt32LE(head.length);
  const headPad = Buffer.alloc(pad8(8 + 4 + head.length) - (8 + 4 + head.length));
  return Buffer.concat([MAGIC, len, head, headPad, body]);
}

/** Parses an index file; null when it is not a complete, intact index of this version. */
export function parseIndex(buf: Buffer): SkipIndex | null {
  if (buf.length < 12 || !buf.subarray(0, 8).equals(MAGIC)) return null;
  const hlen = buf.readUInt32LE(8);
  if (12 + hlen > buf.length) return null;
  let header: IndexHeader;
  try {
    header = JSON.parse(buf.toString('utf8', 12, 12 + hlen)) as IndexHeader;
  } catch {
    return null;
  }
  if (header?.format !== 'evio-ff-index' || header.version !== INDEX_VERSION) return null;
  const bodyAt = pad8(12 + hlen);
  if (buf.length - bodyAt !== header.bodyBytes) return null;
  // Typed array views need their element alignment: copy only when the body is not aligned.
  let body = buf.subarray(bodyAt) as Uint8Array;
  if (body.byteOffset % 8 !== 0) {
    body = new Uint8Array(header.bodyBytes);
    body.set(buf.subarray(bodyAt));
  }
  if (crc32(body) >>> 0 !== header.body) return null;
  const nb = header.blocks;
  const nl = header.lines;
  let off = 0;
  const take = <T>(make: (b: ArrayBuffer, o: number, n: number) => T, n: number, size: number): T => {
    const v = make(body.buffer as ArrayBuffer, body.byteOffset + off, n);
    off += pad8(n * size);
    return v;
  };
  const expected = pad8(nb * BF * 8) + pad8(nl * 8) + pad8(nl) + pad8(nl * 4) + COL_FIELDS.length * pad8(nl * 2);
  if (expected !== header.bodyBytes) return null;
  const blocks = take((b, o, n) => new Float64Array(b, o, n), nb * BF, 8);
  const lineStart = take((b, o, n) => new Float64Array(b, o, n), nl, 8);
  const kind = take((b, o, n) => new Uint8Array(b, o, n), nl, 1);
  const uid = take((b, o, n) => new Uint32Array(b, o, n), nl, 4);
  const cols = COL_FIELDS.map(() => take((b, o, n) => new Uint16Array(b, o, n), nl, 2));
  return { header, blocks, lineStart, kind, uid, cols };
}

/** Reads and checks the index at `idxPath` against the open data file; null when unusable. */
export async function loadIndex(idxPath: string, data: FileHandle, data_: { ino: bigint; size: number }, gz: boolean): Promise<SkipIndex | null> {
  let buf: Buffer;
  try {
    const fh = await open(idxPath, 'r');
    try {
      // Into a buffer of its own (offset 0, so the body's arrays can be viewed in place).
      const size = (await fh.stat()).size;
      buf = Buffer.from(new ArrayBuffer(size));
      let got = 0;
      while (got < size) {
        const { bytesRead } = await fh.read(buf, got, size - got, got);
        if (bytesRead <= 0) break;
        got += bytesRead;
      }
      buf = buf.subarray(0, got);
    } finally {
      await fh.close();
    }
  } catch {
    return null;
  }
  const ix = parseIndex(buf);
  if (!ix) return null;
  return (await indexMatches(ix, data, data_, gz)) ? ix : null;
}

/** The index describes this data file: same inode, its sizes fit, the sampled bytes agree. */
export async function indexMatches(ix: SkipIndex, data: FileHandle, st: { ino: bigint; size: number }, gz: boolean): Promise<boolean> {
  const h = ix.header;
  if (h.ino !== String(st.ino) || h.data !== (gz ? 'gz' : 'plain')) return false;
  if (gz ? h.dataSize !== st.size : h.dataSize > st.size) return false;
  return (await sampleOf(data, h.dataSize)) === h.sample;
}

/** Writes the index atomically (temp file, rename); removes temp files dead builders left. */
export async function saveIndex(idxPath: string, ix: SkipIndex): Promise<void> {
  const dir = dirname(idxPath);
  await mkdir(dir, { recursive: true });
  await removeDeadTemps(idxPath);
  const tmp = `${idxPath}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  const fh = await open(tmp, 'wx', 0o640);
  let done = false;
  try {
    await fh.writeFile(serializeIndex(ix));
    await fh.close();
    await rename(tmp, idxPath);
    done = true;
  } finally {
    if (!done) {
      await fh.close().catch(() => undefined);
      await unlink(tmp).catch(() => undefined);
    }
  }
}

/** Index temp files of processes that no longer run (a build killed half-way). */
async function removeDeadTemps(idxPath: string): Promise<void> {
  const prefix = `${basename(idxPath)}.tmp-`;
  let names: string[];
  try {
    names = await readdir(dirname(idxPath));
  } catch {
    return;
  }
  for (const n of names) {
    if (!n.startsWith(prefix)) continue;
    const pid = Number(n.slice(prefix.length).split('-')[0]);
    let dead = false;
    try {
      process.kill(pid, 0);
    } catch (err) {
      dead = (err as NodeJS.ErrnoException).code === 'ESRCH';
    }
    if (dead) await unlink(join(dirname(idxPath), n)).catch(() => undefined);
  }
}

/** Removes the index of a data file (a rewrite makes it describe another file). */
export async function dropIndex(idxPath: string): Promise<void> {
  await unlink(idxPath).catch(() => undefined);
}
