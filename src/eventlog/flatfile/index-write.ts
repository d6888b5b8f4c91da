// Writing skip index files (skip-index.ts).
// - A new index (a build, a compression, a compaction) is written under a temp name, segment by
//   segment as the builder hands them out, then renamed into place: readers see the old index
//   or the new one, never a part. Temp files of dead builders are removed by the next writer.
// - An extension adds a segment at the end of the existing file with one positioned write, no
//   lock (appendSink). It first cuts off what a killed writer left after the last intact segment
//   (garbage readers already ignore), and gives way when a whole segment follows (another writer
//   extended it). A reader that loaded the index before the extension keeps its view; the added
//   segment is checked (CRC-32) like every other.
// - Past MAX_SEGMENTS the extension rewrites the index as one segment (a new file, renamed), so a
//   query reads a bounded number of segment heads however often the file was appended to.
import { randomBytes } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { mkdir, open, readdir, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { crc32 } from 'node:zlib';
import { closeSync, fstatSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import { addSegment, baseOf, copySums, segmentAt } from './index-load.js';
import { allUidEntries, sortedTable, uidHeadFields } from './index-uid-table.js';
import { readIntoSync } from './read-at.js';
import type { BuiltSegment } from './index-builder.js';
import { BF, COL_FIELDS, COL_WIDTH, countSlots, INDEX_VERSION, MAGIC, NCOLS, pad8, segmentPrefix, type Segment, type SegmentHead, type SkipIndex } from './skip-index.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../../private-files.js';

/** Segments an index may have before an extension rewrites it as one. */
export const MAX_SEGMENTS = 64;

async function writeAll(fh: FileHandle, buf: Buffer, pos: number): Promise<void> {
  let w = 0;
  while (w < buf.length) w += (await fh.write(buf, w, buf.length - w, pos + w)).bytesWritten;
}

/** A new index file being written; `commit` renames it into place. */
export class NewIndexFile implements SegmentSink {
  private pos = MAGIC.length;
  private done = false;

  private constructor(
    readonly idxPath: string,
    private readonly tmp: string,
    private readonly fh: FileHandle,
  ) {}

  static async create(idxPath: string): Promise<NewIndexFile> {
    await mkdir(dirname(idxPath), { recursive: true, mode: PRIVATE_DIR_MODE });
    await removeDeadTemps(idxPath);
    const tmp = `${idxPath}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
    const fh = await open(tmp, 'wx', PRIVATE_FILE_MODE);
    try {
      await writeAll(fh, MAGIC, 0);
    } catch (err) {
      await fh.close().catch(() => undefined);
      await unlink(tmp).catch(() => undefined);
      throw err;
    }
    return new NewIndexFile(idxPath, tmp, fh);
  }

  async write(segment: BuiltSegment | null): Promise<void> {
    if (!segment) return;
    await writeAll(this.fh, segment.bytes, this.pos);
    this.pos += segment.bytes.length;
  }

  /** Raw bytes at the end (a compaction copying columns). */
  get size(): number {
    return this.pos;
  }

  async commit(): Promise<void> {
    await this.fh.close();
    await rename(this.tmp, this.idxPath);
    this.done = true;
  }

  async abort(): Promise<void> {
    if (this.done) return;
    this.done = true;
    await this.fh.close().catch(() => undefined);
    await unlink(this.tmp).catch(() => undefined);
  }

  get handle(): FileHandle {
    return this.fh;
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

/** Where segments go: a new file (renamed into place at the end) or the end of the existing one. */
export interface SegmentSink {
  write(segment: BuiltSegment | null): Promise<void>;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

/**
 * The end of an existing index, for one extension; null when another writer extended it since
 * `ix` was read (a valid segment follows) or it was replaced. No lock: each segment goes out in
 * one positioned write, and whatever two racing writers leave is checked on reading (CRC-32,
 * continuity) — at worst a segment is lost and the next extension writes it again.
 */
export async function appendSink(ix: SkipIndex): Promise<SegmentSink | null> {
  let fd: number;
  try {
    fd = openSync(ix.path, 'r+');
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd, { bigint: true });
    if (st.ino !== ix.fileIno) throw new Error('replaced');
    if (Number(st.size) > ix.end) {
      if (segmentAt(fd, ix.end, Number(st.size))) throw new Error('extended by another writer');
      // What a killed writer left after the last intact segment.
      ftruncateSync(fd, ix.end);
    } else if (Number(st.size) < ix.end) throw new Error('cut');
  } catch {
    closeSync(fd);
    return null;
  }
  let pos = ix.end;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    closeSync(fd);
  };
  return {
    async write(seg) {
      if (!seg) return;
      let w = 0;
      while (w < seg.bytes.length) w += writeSync(fd, seg.bytes, w, seg.bytes.length - w, pos + w);
      pos += seg.bytes.length;
    },
    commit: close,
    // Segments written stay: each is complete and checked on reading.
    abort: close,
  };
}

/** `ix` with segments added at its end (written by this process): no need to read them back. */
export function withSegments(ix: SkipIndex, added: BuiltSegment[]): SkipIndex {
  if (added.length === 0) return ix;
  const blocks = ix.blocks + added.reduce((n, s) => n + s.head.blocks, 0);
  const table = new Float64Array(blocks * BF);
  table.set(ix.table.subarray(0, ix.blocks * BF));
  const sums = copySums(ix);
  const segs: Segment[] = ix.segs.slice();
  let pos = ix.end;
  for (const s of added) {
    const h = s.head;
    // Segments this process built: their patches name earlier blocks.
    addSegment(table, sums, h, s.table, s.counts);
    segs.push({ head: h, bodyAt: pos + s.bodyOffset });
    pos += s.bytes.length;
  }
  const last = added[added.length - 1]!.head;
  return {
    ...ix, fileSize: pos, end: pos, dataSize: last.dataSize, usize: last.usize, sample: last.sample, dataCtime: last.dataCtime, legacy: last.legacy,
    blocks, lines: last.lineFrom + last.lines, table, ...sums, segs,
  };
}

/**
 * Rewrites `ix` as one segment in a new file: the block table as loaded (patches applied), the
 * dictionaries whole, each column the concatenation of the segments' columns (copied, in
 * pieces), the accepts still waiting as the last segment left them. The column slices do not
 * change, so their CRCs in the table stay valid.
 */
export async function compactIndex(ix: SkipIndex): Promise<boolean> {
  const base = await baseOf(ix);
  if (!base) return false;
  const src = await open(ix.path, 'r');
  let out: NewIndexFile | null = null;
  try {
    const st = await src.stat({ bigint: true });
    if (st.ino !== ix.fileIno) return false;
    out = await NewIndexFile.create(ix.path);
    const lines = ix.lines;
    const colAt: number[] = [];
    let at = pad8(ix.table.byteLength);
    for (let c = 0; c < NCOLS; c++) {
      colAt.push(at);
      at += pad8(lines * COL_WIDTH[c]!);
    }
    // The id counts summed, the uniqueid tables merged (their chunks checked as they are read).
    const counts = new Uint32Array(COL_FIELDS.reduce((a, f) => a + countSlots(ix.dicts[f].length), 0));
    let cb = 0;
    for (const f of COL_FIELDS) {
      const len = ix.dicts[f].length;
      for (let id = 0; id <= len; id++) counts[cb + id] = ix.counts[f][id] ?? 0;
      counts[cb + len + 1] = ix.overflow[f];
      cb += countSlots(len);
    }
    const countsBytes = Buffer.from(counts.buffer, counts.byteOffset, counts.byteLength);
    const countsAt = at;
    at += pad8(countsBytes.length);
    const entries = allUidEntries(src.fd, ix);
    if (entries === null) return false;
    const uids = sortedTable(entries, 0);
    const uidAt = at;
    at += pad8(uids.bytes.byteLength);
    const openJson = Buffer.from(JSON.stringify(base.open), 'utf8');
    const tableBytes = Buffer.from(ix.table.buffer, ix.table.byteOffset, ix.table.byteLength);
    const head: SegmentHead = {
      format: 'evio-ff-index', version: INDEX_VERSION, data: ix.data, ino: ix.dataIno, seq: 0,
      from: ix.segs[0]!.head.from, usize: ix.usize, dataSize: ix.dataSize, sample: ix.sample, dataCtime: ix.dataCtime,
      lineFrom: 0, lines, blockFrom: 0, blocks: ix.blocks, blockBytes: ix.blockBytes, legacy: ix.legacy,
      dictAdd: ix.dicts, patches: [], tableCrc: crc32(tableBytes) >>> 0, cols: colAt,
      openAt: at, openBytes: openJson.length, openCrc: crc32(openJson) >>> 0, openLost: base.openLost,
      bodyBytes: pad8(at + openJson.length), kinds: [...ix.kinds], canon: ix.canon, countsAt, countsBytes: countsBytes.length, ...uidHeadFields(uids, uidAt), mac: '',
    };
    const prefix = segmentPrefix(head, tableBytes, countsBytes);
    const bodyAt = out.size + prefix.length;
    await writeAll(out.handle, prefix, out.size);
    await writeAll(out.handle, tableBytes, bodyAt);
    const chunk = Buffer.allocUnsafe(1 << 20);
    for (let c = 0; c < NCOLS; c++) {
      let dst = bodyAt + colAt[c]!;
      for (const seg of ix.segs) {
        let left = seg.head.lines * COL_WIDTH[c]!;
        let from = seg.bodyAt + seg.head.cols[c]!;
        while (left > 0) {
          // Synchronous: pieces of an index in the page cache, copied into the page cache.
          const n = Math.min(left, chunk.length);
          if (readIntoSync(src.fd, chunk, 0, n, from) !== n) return false;
          for (let w = 0; w < n; ) w += writeSync(out.handle.fd, chunk, w, n - w, dst + w);
          dst += n;
          from += n;
          left -= n;
        }
      }
    }
    await writeAll(out.handle, countsBytes, bodyAt + countsAt);
    await writeAll(out.handle, Buffer.from(uids.bytes.buffer, uids.bytes.byteOffset, uids.bytes.byteLength), bodyAt + uidAt);
    const tail = Buffer.alloc(pad8(openJson.length));
    openJson.copy(tail);
    await writeAll(out.handle, tail, bodyAt + at);
    await out.commit();
    out = null;
    return true;
  } finally {
    await src.close();
    if (out) await out.abort();
  }
}

/** Removes the index of a data file (a rewrite makes it describe another file). */
export async function dropIndex(idxPath: string): Promise<void> {
  await unlink(idxPath).catch(() => undefined);
}
