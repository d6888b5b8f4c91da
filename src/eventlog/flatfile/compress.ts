// Compression of a rotated flat file (`evio events rotate --compress`): the file becomes
// `<file>.gz` written as independent gzip members of about 64 KiB each (gzip.ts), and its skip
// index is built in the same pass (one block per member, the member's compressed range its
// restart point). The member size was chosen by measurement (BENCHMARKS.md, section 11): smaller
// members let a selective query decompress less (a member holding no match is never
// inflated) and cost compression (each member starts a new dictionary).
//
// Crash safety: the .gz is written under a temp name, synced, its index saved, then renamed into
// place, and only then is the plain file removed. Killed before the rename: the plain file is
// untouched (the temp file is garbage). Killed between the rename and the removal: both exist
// and are complete; the family reader reads the plain one (family.ts), and compressing again
// replaces the .gz.
import { randomBytes } from 'node:crypto';
import { open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { syncDir } from '../../common/job-files.js';
import { gzipMember } from './gzip.js';
import { GzipIndexer } from './index-build.js';
import { emptyBase, IndexBuilder } from './index-builder.js';
import { NewIndexFile } from './index-write.js';
import { indexPathFor } from './skip-index.js';

/** Uncompressed bytes per gzip member (a longer line makes a longer member). */
export const DEFAULT_MEMBER_BYTES = 64 << 10;

export interface CompressOptions {
  blockBytes?: number;
  /** Write the skip index too (default true); null = beside the file. */
  index?: { enabled: boolean; cacheDir: string | null };
  signal?: AbortSignal;
  /** Test hook: after the temp file is complete (the kill test stops there). */
  onStep?: (step: string) => Promise<void> | void;
}

export interface CompressResult {
  path: string;
  bytes: number;
  compressedBytes: number;
  members: number;
}

export async function compressRotated(path: string, opts: CompressOptions = {}): Promise<CompressResult> {
  const blockBytes = opts.blockBytes ?? DEFAULT_MEMBER_BYTES;
  const target = `${path}.gz`;
  const tmp = join(dirname(path), `${basename(path)}.gz.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  const src = await open(path, 'r');
  let out: Awaited<ReturnType<typeof open>> | null = null;
  let idx: NewIndexFile | null = null;
  let renamed = false;
  try {
    const st = await src.stat();
    out = await open(tmp, 'wx+', st.mode & 0o777);
    const wantIndex = opts.index?.enabled !== false;
    // The index of a gzip file describes the file it will be renamed to (same inode).
    idx = wantIndex ? await NewIndexFile.create(indexPathFor(target, opts.index?.cacheDir ?? null)).catch(() => null) : null;
    const ino = (await out.stat({ bigint: true })).ino;
    const indexer = idx ? new GzipIndexer(new IndexBuilder(emptyBase('gz', ino, blockBytes, 0)), out, idx) : null;
    let u = 0;
    let c = 0;
    let members = 0;
    let pending = Buffer.alloc(0);
    const chunk = Buffer.allocUnsafe(1 << 20);
    let pos = 0;
    const emit = async (data: Buffer) => {
      if (data.length === 0) return;
      const m = gzipMember(data);
      let w = 0;
      while (w < m.length) w += (await out!.write(m, w, m.length - w)).bytesWritten;
      if (indexer) await indexer.member(data, c, c + m.length);
      u += data.length;
      c += m.length;
      members++;
    };
    for (;;) {
      opts.signal?.throwIfAborted();
      const { bytesRead } = await src.read(chunk, 0, chunk.length, pos);
      if (bytesRead <= 0) break;
      pos += bytesRead;
      pending = pending.length ? Buffer.concat([pending, chunk.subarray(0, bytesRead)]) : Buffer.from(chunk.subarray(0, bytesRead));
      // Cut members at line ends, about blockBytes each (a longer line makes a longer member).
      while (pending.length >= blockBytes) {
        let cut = pending.lastIndexOf(10, blockBytes - 1);
        if (cut === -1) cut = pending.indexOf(10, blockBytes);
        if (cut === -1) break;
        await emit(pending.subarray(0, cut + 1));
        pending = pending.subarray(cut + 1);
      }
    }
    await emit(pending);
    await out.sync();
    if (indexer && idx) {
      if (indexer.indexable) {
        await indexer.finish(c);
        await idx.commit();
      } else await idx.abort();
    }
    await out.close();
    out = null;
    await opts.onStep?.('written');
    await rename(tmp, target);
    renamed = true;
    await unlink(path);
    await unlink(indexPathFor(path, opts.index?.cacheDir ?? null)).catch(() => undefined);
    await syncDir(dirname(path));
    return { path: target, bytes: u, compressedBytes: c, members };
  } finally {
    await src.close();
    if (out) await out.close().catch(() => undefined);
    if (idx) await idx.abort();
    if (!renamed) await unlink(tmp).catch(() => undefined);
  }
}
