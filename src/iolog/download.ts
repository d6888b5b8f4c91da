// Raw download (GET /REST/iologfile?file=): a file as it is on disk, or a sudo session
// directory as a tar stream (its regular files, one level, under the directory's name).
// Each file is sent with the size it had when opened, so a live session still gives a
// well-formed tar. Symlinks are skipped; everything is opened through openNoFollow (no symlink,
// no FIFO or device, and only where the path was checked to lie: safe-open.ts).
import { lstat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import tar from 'tar-stream';
import { evioError } from '../errors.js';
import { openNoFollow } from './decoded-file.js';
import { isSudoSessionDir, readDirents, resolveIologPath } from './locate.js';

export interface Download {
  filename: string;
  contentType: string;
  stream: Readable;
  size?: number;
}

export async function openDownload(roots: readonly string[], file: string, signal?: AbortSignal): Promise<Download> {
  const real = resolveIologPath(roots, file, 'file');
  const st = await lstat(real).catch((err: NodeJS.ErrnoException) => {
    // Resolved a moment ago: gone (or a directory on its path swapped) since.
    throw evioError('NOT_FOUND', `file "${file}" does not exist`, err);
  });
  if (st.isFile()) {
    const fh = await openNoFollow(real);
    if (!fh) throw evioError('NOT_FOUND', `file "${file}" does not exist`);
    const size = (await fh.stat()).size;
    const stream = fh.createReadStream({ start: 0, end: Math.max(0, size - 1), autoClose: true, signal });
    if (size === 0) {
      stream.destroy();
      const empty = new PassThrough();
      empty.end();
      return { filename: basename(real), contentType: 'application/octet-stream', stream: empty, size: 0 };
    }
    return { filename: basename(real), contentType: 'application/octet-stream', stream, size };
  }
  if (!st.isDirectory() || !(await isSudoSessionDir(real))) {
    throw evioError('IOLOG_NOT_A_SESSION', `file "${file}" is a directory but not a sudo session directory; only sessions are sent as tar`);
  }
  const name = basename(real);
  const pack = tar.pack();
  const files = (await readDirents(real)).filter((e) => e.isFile()).map((e) => e.name).sort();
  (async () => {
    for (const f of files) {
      if (signal?.aborted) break;
      const fh = await openNoFollow(join(real, f)).catch(() => null);
      if (!fh) continue;
      try {
        const fst = await fh.stat();
        await new Promise<void>((resolve, reject) => {
          const header = { name: `${name}/${f}`, size: fst.size, mode: fst.mode & 0o777, mtime: fst.mtime };
          const entry = pack.entry(header, (err) => (err ? reject(err) : resolve()));
          if (fst.size === 0) {
            entry.end(undefined);
            return;
          }
          const rs = fh.createReadStream({ start: 0, end: fst.size - 1, autoClose: false });
          rs.on('error', reject);
          rs.pipe(entry);
        });
      } finally {
        await fh.close();
      }
    }
    pack.finalize();
  })().catch((err: unknown) => pack.destroy(err as Error));
  // tar-stream packs are streamx streams; the door expects a Node Readable.
  const out = new PassThrough();
  pack.on('error', (err: Error) => out.destroy(err));
  out.on('close', () => pack.destroy());
  pack.pipe(out);
  return { filename: `${name}.tar`, contentType: 'application/x-tar', stream: out };
}
