// Writing skip index files (skip-index.ts).
// - A new index (a build, a compression, a compaction) is written under a temp name, segment by
//   segment as the builder hands them out, then renamed into place: readers see the old index
//   or the new one, never a part. Temp files of dead builders are removed by the next writer.
// - An extension adds a segment at the end of the existing file, holding `<index>.lock` (never
//   waiting for it: a busy index is extended by the next query). It first cuts the file back to
//   where the last intact segment ends (what a killed writer left is garbage readers already
//   ignore). A reader that loaded the index before the extension keeps its view; the added
//   segment is checked (CRC-32) like every other.
// - Past MAX_SEGMENTS the extension rewrites the index as one segment (a new file, renamed), so a
//   query reads a bounded number of segment heads however often the file was appended to.
import { randomBytes } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { mkdir, open, readdir, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { crc32 } from 'node:zlib';
import { FileLock, type HeldLock } from '../../common/file-lock.js';
import { baseOf } from './index-load.js';
import { COL_WIDTH, INDEX_VERSION, MAGIC, NCOLS, pad8, type SegmentHead, type SkipIndex } from './skip-index.js';

/** Segments an index may have before an extension rewrites it as one. */
export const MAX_SEGMENTS = 16;

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
    await mkdir(dirname(idxPath), { recursive: true });
    await removeDeadTemps(idxPath);
    const tmp = `${idxPath}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
    const fh = await open(tmp, 'wx', 0o640);
    try {
      await writeAll(fh, MAGIC, 0);
    } catch (err) {
      await fh.close().catch(() => undefined);
      await unlink(tmp).catch(() => undefined);
      throw err;
    }
    return new NewIndexFile(idxPath, tmp, fh);
  }

  async write(segment: Buffer | null): Promise<void> {
    if (!segment) return;
    await writeAll(this.fh, segment, this.pos);
    this.pos += segment.length;
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
  write(segment: Buffer | null): Promise<void>;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

/** The end of an existing index, held under its lock for one extension. */
export async function appendSink(ix: SkipIndex): Promise<SegmentSink | null> {
  let held: HeldLock;
  try {
    held = await new FileLock(ix.path, { timeoutMs: 0 }).acquire();
  } catch {
    return null; // another writer extends it now
  }
  let fh: FileHandle;
  try {
    fh = await open(ix.path, 'r+');
    const st = await fh.stat({ bigint: true });
    if (st.ino !== ix.fileIno || Number(st.size) < ix.end) {
      await fh.close();
      await held.release();
      return null;
    }
    // What a killed writer left after the last intact segment.
    await fh.truncate(ix.end);
  } catch {
    await held.release();
    return null;
  }
  let pos = ix.end;
  const end = async () => {
    await fh.close().catch(() => undefined);
    await held.release();
  };
  return {
    async write(seg) {
      if (!seg) return;
      let w = 0;
      while (w < seg.length) w += (await fh.write(seg, w, seg.length - w, pos + w)).bytesWritten;
      pos += seg.length;
    },
    commit: end,
    async abort() {
      // Segments written stay: each is complete and checked on reading.
      await end();
    },
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
    const openJson = Buffer.from(JSON.stringify(base.open), 'utf8');
    const tableBytes = Buffer.from(ix.table.buffer, ix.table.byteOffset, ix.table.byteLength);
    const head: SegmentHead = {
      format: 'evio-ff-index', version: INDEX_VERSION, data: ix.data, ino: ix.dataIno, seq: 0,
      from: ix.segs[0]!.head.from, usize: ix.usize, dataSize: ix.dataSize, sample: ix.sample,
      lineFrom: 0, lines, blockFrom: 0, blocks: ix.blocks, blockBytes: ix.blockBytes, legacy: ix.legacy,
      dictAdd: ix.dicts, patches: [], tableCrc: crc32(tableBytes) >>> 0, cols: colAt,
      openAt: at, openBytes: openJson.length, openCrc: crc32(openJson) >>> 0, openLost: base.openLost,
      bodyBytes: pad8(at + openJson.length),
    };
    const headBuf = Buffer.from(JSON.stringify(head), 'utf8');
    const pre = Buffer.alloc(8);
    pre.writeUInt32LE(headBuf.length, 0);
    pre.writeUInt32LE(crc32(headBuf) >>> 0, 4);
    const bodyAt = out.size + pad8(8 + headBuf.length);
    await out.write(Buffer.concat([pre, headBuf, Buffer.alloc(bodyAt - out.size - 8 - headBuf.length)]));
    await writeAll(out.handle, tableBytes, bodyAt);
    const chunk = Buffer.allocUnsafe(1 << 20);
    for (let c = 0; c < NCOLS; c++) {
      let dst = bodyAt + colAt[c]!;
      for (const seg of ix.segs) {
        let left = seg.head.lines * COL_WIDTH[c]!;
        let from = seg.bodyAt + seg.head.cols[c]!;
        while (left > 0) {
          const n = Math.min(left, chunk.length);
          const { bytesRead } = await src.read(chunk, 0, n, from);
          if (bytesRead !== n) return false;
          await writeAll(out.handle, chunk.subarray(0, n), dst);
          dst += n;
          from += n;
          left -= n;
        }
      }
    }
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
