// Reading a skip index (skip-index.ts): the segment heads and block tables, checked (CRC-32 of
// each head and table, each segment's MAC under the install's key (index-key.ts), the segments'
// continuity, the data file's inode, size and sampled bytes, its blocks' CRC-32s: all of them
// after a change in place, a few at random on every load (index-verify.ts));
// the columns stay on disk (index-columns.ts). A segment cut short (a writer killed in the
// middle), corrupt or not continuing the one before ends the index there: the index covers what
// comes before and the rest of the file is scanned. Nothing usable: null, the file is scanned.
import type { FileHandle } from 'node:fs/promises';
import { open, stat } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { timingSafeEqual } from 'node:crypto';
import type { BuilderBase } from './index-builder.js';
import { segmentMac } from './index-key.js';
import { uidHeadValid } from './index-uid-table.js';
import { sampleIntact, unchangedInPlace } from './index-verify.js';
import { readAt, readAtSync, readIntoSync } from './read-at.js';
import {
  B_AE_MAX, B_AE_MIN, B_AE_OPEN, BF, COL_FIELDS, countSlots, INDEX_VERSION, MAGIC, NCOLS, pad8, sampleOf,
  type ColField, type Segment, type SegmentHead, type SkipIndex,
} from './skip-index.js';

/** Heads longer than this are not ours (a corrupt length). */
const MAX_HEAD = 256 << 20;

function validHead(h: SegmentHead, seq: number, prev: SegmentHead | null): boolean {
  if (h?.format !== 'evio-ff-index' || h.version !== INDEX_VERSION || h.seq !== seq) return false;
  if (!Array.isArray(h.cols) || h.cols.length !== NCOLS || !Array.isArray(h.patches)) return false;
  if (!Array.isArray(h.kinds) || h.kinds.length !== 5 || !Number.isInteger(h.canon) || !uidHeadValid(h) || !Number.isInteger(h.countsBytes) || h.countsBytes < 0 || h.countsBytes % 4 !== 0) return false;
  if (prev === null) return h.from >= 0 && h.lineFrom === 0 && h.blockFrom === 0;
  return h.data === prev.data && h.ino === prev.ino && h.from === prev.usize && h.lineFrom === prev.lineFrom + prev.lines && h.blockFrom === prev.blockFrom + prev.blocks && h.dataSize >= prev.dataSize;
}

/**
 * The segment starting at `pos` of an index file `size` bytes long, when it is whole: its head
 * passes its CRC-32 and parses, its body is all there. Null otherwise.
 */
export function segmentAt(fd: number, pos: number, size: number): { head: SegmentHead; bodyAt: number; end: number } | null {
  if (pos + 8 > size) return null;
  const pre = readAtSync(fd, 8, pos);
  if (pre.length < 8) return null;
  const hlen = pre.readUInt32LE(0);
  if (hlen > MAX_HEAD || pos + 8 + hlen > size) return null;
  const hb = readAtSync(fd, hlen, pos + 8);
  if (hb.length < hlen || crc32(hb) >>> 0 !== pre.readUInt32LE(4)) return null;
  let head: SegmentHead;
  try {
    head = JSON.parse(hb.toString('utf8')) as SegmentHead;
  } catch {
    return null;
  }
  const bodyAt = pos + pad8(8 + hlen);
  const end = bodyAt + head.bodyBytes;
  return end <= size ? { head, bodyAt, end } : null;
}

/** Reads the segments of an open index file; null when not even the first is intact. */
interface ReadSegment {
  seg: Segment;
  table: Float64Array;
  counts: Uint32Array;
  end: number;
}

async function readSegments(fh: FileHandle, size: number): Promise<ReadSegment[] | null> {
  // Synchronous preads: a few short reads per segment, from the page cache (read-at.ts).
  const fd = fh.fd;
  const magic = readAtSync(fd, MAGIC.length, 0);
  if (!magic.equals(MAGIC)) return null;
  const out: ReadSegment[] = [];
  let pos = MAGIC.length;
  let prev: SegmentHead | null = null;
  while (pos + 8 <= size) {
    const whole = segmentAt(fd, pos, size);
    if (!whole || !validHead(whole.head, out.length, prev)) break;
    const { head, bodyAt, end } = whole;
    const tb = Buffer.from(new ArrayBuffer(head.blocks * BF * 8));
    if (readIntoSync(fd, tb, 0, tb.length, bodyAt) !== tb.length || crc32(tb) >>> 0 !== head.tableCrc) break;
    const cb = Buffer.from(new ArrayBuffer(head.countsBytes));
    if (readIntoSync(fd, cb, 0, cb.length, bodyAt + head.countsAt) !== cb.length) break;
    if (!macMatches(head, tb, cb)) break;
    out.push({ seg: { head, bodyAt }, table: new Float64Array(tb.buffer, 0, head.blocks * BF), counts: new Uint32Array(cb.buffer, 0, cb.length / 4), end });
    prev = head;
    pos = end;
  }
  return out.length ? out : null;
}

/** The segment's MAC is the one the install's key gives its head and table (index-key.ts). */
function macMatches(head: SegmentHead, table: Buffer, counts: Buffer): boolean {
  const mac = head.mac;
  if (typeof mac !== 'string' || !/^[0-9a-f]{64}$/.test(mac)) return false;
  head.mac = '';
  const want = segmentMac(Buffer.from(JSON.stringify(head), 'utf8'), table, counts);
  head.mac = mac;
  return timingSafeEqual(Buffer.from(want, 'hex'), Buffer.from(mac, 'hex'));
}

/** Reads and checks the index at `idxPath` against the open data file; null when unusable. */
export async function loadIndex(idxPath: string, data: FileHandle, st: { ino: bigint; size: number }, gz: boolean): Promise<SkipIndex | null> {
  let fh: FileHandle;
  try {
    fh = await open(idxPath, 'r');
  } catch {
    return null;
  }
  try {
    const ist = await fh.stat({ bigint: true });
    const segs = await readSegments(fh, Number(ist.size));
    if (!segs) return null;
    // The longest prefix of segments that describes this data file.
    let n = segs.length;
    while (n > 0 && !(await headMatches(segs[n - 1]!.seg.head, data, st, gz))) n--;
    if (n === 0) return null;
    const used = segs.slice(0, n);
    const last = used[n - 1]!.seg.head;
    const blocks = last.blockFrom + last.blocks;
    const table = new Float64Array(blocks * BF);
    const sums = emptySums();
    for (const { seg, table: t, counts } of used) if (!addSegment(table, sums, seg.head, t, counts)) return null;
    const ix: SkipIndex = {
      path: idxPath,
      fileIno: ist.ino,
      fileSize: Number(ist.size),
      data: last.data,
      dataIno: last.ino,
      dataSize: last.dataSize,
      usize: last.usize,
      sample: last.sample,
      dataCtime: last.dataCtime,
      blockBytes: last.blockBytes,
      legacy: last.legacy,
      blocks,
      lines: last.lineFrom + last.lines,
      table,
      ...sums,
      segs: used.map((s) => s.seg),
      end: used[n - 1]!.end,
    };
    // The data changed in place since (its blocks' CRC-32s): not used, the file is scanned.
    if (!(await unchangedInPlace(ix, data, gz)) || !(await sampleIntact(ix, data, gz))) return null;
    return ix;
  } catch {
    return null;
  } finally {
    await fh.close();
  }
}

/** What an index sums over its segments: dictionaries, id counts, lines per type. */
export type IndexSums = Pick<SkipIndex, 'dicts' | 'counts' | 'overflow' | 'kinds' | 'canon'>;

export function emptySums(): IndexSums {
  const per = <T>(f: () => T) => Object.fromEntries(COL_FIELDS.map((k) => [k, f()])) as unknown as Record<ColField, T>;
  return { dicts: per(() => [] as string[]), counts: per(() => [0] as number[]), overflow: per(() => 0), kinds: [0, 0, 0, 0, 0], canon: 0 };
}

/** A copy of `s` that adding to does not change `s`. */
export function copySums(s: IndexSums): IndexSums {
  const per = <T>(f: (k: ColField) => T) => Object.fromEntries(COL_FIELDS.map((k) => [k, f(k)])) as unknown as Record<ColField, T>;
  return { dicts: per((k) => [...s.dicts[k]]), counts: per((k) => [...s.counts[k]]), overflow: per((k) => s.overflow[k]), kinds: [...s.kinds], canon: s.canon };
}

/**
 * Adds a segment's blocks, dictionary values, id counts and patches (exit times learnt for
 * accepts of earlier blocks) to the index's table and sums; false when a patch names a block
 * that is not an earlier one or the counts do not fit the dictionaries.
 */
export function addSegment(table: Float64Array, sums: IndexSums, h: SegmentHead, segTable: Float64Array, counts: Uint32Array): boolean {
  table.set(segTable, h.blockFrom * BF);
  const { dicts } = sums;
  for (const f of COL_FIELDS) for (const v of h.dictAdd[f] ?? []) dicts[f].push(v);
  if (counts.length !== COL_FIELDS.reduce((a, f) => a + countSlots(dicts[f].length), 0)) return false;
  let base = 0;
  for (const f of COL_FIELDS) {
    const len = dicts[f].length;
    const c = sums.counts[f];
    while (c.length <= len) c.push(0);
    for (let id = 0; id <= len; id++) c[id] = c[id]! + counts[base + id]!;
    sums.overflow[f] += counts[base + len + 1]!;
    base += countSlots(len);
  }
  for (let k = 0; k < 5; k++) sums.kinds[k] = sums.kinds[k]! + (h.kinds[k] ?? 0);
  sums.canon += h.canon;
  for (let k = 0; k + 3 < h.patches.length; k += 4) {
    const p = h.patches[k]! * BF;
    if (p < 0 || p >= h.blockFrom * BF) return false;
    if (h.patches[k + 1]! < table[p + B_AE_MIN]!) table[p + B_AE_MIN] = h.patches[k + 1]!;
    if (h.patches[k + 2]! > table[p + B_AE_MAX]!) table[p + B_AE_MAX] = h.patches[k + 2]!;
    table[p + B_AE_OPEN] = table[p + B_AE_OPEN]! - h.patches[k + 3]!;
  }
  return true;
}

/** The segment describes this data file: same inode, its sizes fit, the sampled bytes agree. */
async function headMatches(h: SegmentHead, data: FileHandle, st: { ino: bigint; size: number }, gz: boolean): Promise<boolean> {
  if (h.ino !== String(st.ino) || h.data !== (gz ? 'gz' : 'plain')) return false;
  if (gz ? h.dataSize !== st.size : h.dataSize > st.size) return false;
  return (await sampleOf(data, h.dataSize)) === h.sample;
}

/** The index file is the one `ix` was read from, as long as it was then (no extension, no rebuild since). */
export async function indexFileUnchanged(idxPath: string, ix: SkipIndex): Promise<boolean> {
  try {
    const s = await stat(idxPath, { bigint: true });
    return s.ino === ix.fileIno && Number(s.size) === ix.fileSize;
  } catch {
    return false;
  }
}

/** The index (held in memory) still describes this data file. */
export async function indexMatches(ix: SkipIndex, data: FileHandle, st: { ino: bigint; size: number }, gz: boolean): Promise<boolean> {
  if (ix.dataIno !== String(st.ino) || ix.data !== (gz ? 'gz' : 'plain')) return false;
  if (gz ? ix.dataSize !== st.size : ix.dataSize > st.size) return false;
  return (await sampleOf(data, ix.dataSize)) === ix.sample && (await unchangedInPlace(ix, data, gz));
}

/** Where the index ended, for an extension: its dictionaries and the accepts still waiting. */
export async function baseOf(ix: SkipIndex): Promise<BuilderBase | null> {
  const last = ix.segs[ix.segs.length - 1]!;
  const h = last.head;
  let waiting: Array<[string | null, number]>;
  try {
    const fh = await open(ix.path, 'r');
    try {
      const ist = await fh.stat({ bigint: true });
      if (ist.ino !== ix.fileIno) return null; // replaced since it was read
      const b = await readAt(fh, h.openBytes, last.bodyAt + h.openAt);
      if (b.length !== h.openBytes || crc32(b) >>> 0 !== h.openCrc) return null;
      waiting = JSON.parse(b.toString('utf8')) as Array<[string | null, number]>;
    } finally {
      await fh.close();
    }
  } catch {
    return null;
  }
  return {
    data: ix.data,
    ino: ix.dataIno,
    blockBytes: ix.blockBytes,
    seq: ix.segs.length,
    usize: ix.usize,
    lines: ix.lines,
    blocks: ix.blocks,
    legacy: ix.legacy,
    dicts: ix.dicts,
    open: waiting,
    openLost: h.openLost,
  };
}
