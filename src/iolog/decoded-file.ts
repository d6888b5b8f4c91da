// Opening one session file: plain or gzip, judged per file by the magic 1f 8b (as sudo does).
// gzip is inflated with finishFlush Z_SYNC_FLUSH, so a live file (sync-flushed, no trailer yet)
// and a 0-byte file decode instead of failing with "unexpected end of file".
// Files are opened through safe-open.ts: a symlink planted inside a session directory is
// refused (O_NOFOLLOW), a FIFO or device node is refused before any read without blocking
// (O_NONBLOCK, fstat), and the descriptor must lie exactly at the path asked for, so a directory
// swapped for a symlink after the path was checked cannot lead outside the roots.
import type { FileHandle } from 'node:fs/promises';
import { resolve } from 'node:path';
import { constants as zc, createGunzip, type Gunzip } from 'node:zlib';
import { evioError, isEvioError } from '../errors.js';
import { openChecked, OPEN_READ } from '../safe-open.js';

/**
 * Opens a session file (a real path: session paths come resolved from the roots) for reading;
 * null when it does not exist. NOT_A_REGULAR_FILE and PATH_CHANGED as safe-open.ts says.
 */
export async function openNoFollow(path: string): Promise<FileHandle | null> {
  try {
    const real = resolve(path);
    return await openChecked(real, OPEN_READ, 'file', { at: real, shown: path });
  } catch (err) {
    if (isEvioError(err)) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    if (code === 'ELOOP') throw evioError('IOLOG_READ', `${path} is a symbolic link; session files must be regular files`);
    throw evioError('IOLOG_READ', `cannot open ${path}: ${(err as Error).message}`);
  }
}

export async function isGzip(fh: FileHandle): Promise<boolean> {
  const magic = Buffer.alloc(2);
  const { bytesRead } = await fh.read(magic, 0, 2, 0);
  return bytesRead === 2 && magic[0] === 0x1f && magic[1] === 0x8b;
}

export function syncFlushGunzip(): Gunzip {
  return createGunzip({ finishFlush: zc.Z_SYNC_FLUSH, chunkSize: 64 * 1024 });
}

export interface DecodedChunks {
  gzip: boolean;
  /** Decoded bytes; a gzip error ends the iteration after calling onError. */
  chunks: AsyncIterable<Buffer>;
}

/**
 * The whole decoded content of a file as chunks (timing files, asciicast files). Errors inside
 * the gzip data end the stream early and are reported through `onError` (the bytes before the
 * damage are still delivered). `start` skips that many decoded bytes. With `wantTrailer` (a
 * file its writer has finished: sudo's complete mark), gzip data must end with its trailer: a
 * file cut short inflates without error under Z_SYNC_FLUSH (as a live one must), so the
 * trailer's ISIZE (the decoded length mod 2^32, RFC 1952; sudo writes one gzip member) is
 * compared with what was decoded.
 */
export async function decodedChunks(path: string, onError: (msg: string) => void, start = 0, wantTrailer = false): Promise<DecodedChunks | null> {
  const fh = await openNoFollow(path);
  if (!fh) return null;
  const gzip = await isGzip(fh);
  let isize: number | null = null;
  if (gzip && wantTrailer) {
    const size = (await fh.stat()).size;
    if (size >= 18) {
      const tail = Buffer.alloc(4);
      await fh.read(tail, 0, 4, size - 4);
      isize = tail.readUInt32LE(0);
    }
  }
  async function* plain(): AsyncGenerator<Buffer> {
    try {
      const buf = Buffer.allocUnsafe(64 * 1024);
      let pos = start;
      for (;;) {
        const { bytesRead } = await fh!.read(buf, 0, buf.length, pos);
        if (bytesRead === 0) return;
        pos += bytesRead;
        yield Buffer.from(buf.subarray(0, bytesRead));
      }
    } finally {
      await fh!.close();
    }
  }
  async function* inflated(): AsyncGenerator<Buffer> {
    const source = fh!.createReadStream({ start: 0, autoClose: true });
    const gunzip = syncFlushGunzip();
    source.on('error', (e) => gunzip.destroy(e));
    source.pipe(gunzip);
    let decoded = 0;
    try {
      // A start inside the data: inflated and dropped (gzip cannot be entered in the middle).
      let skip = start;
      for await (const c of gunzip) {
        const b = c as Buffer;
        decoded += b.length;
        if (skip >= b.length) {
          skip -= b.length;
          continue;
        }
        yield skip ? b.subarray(skip) : b;
        skip = 0;
      }
      if (wantTrailer && isize !== (decoded % 2 ** 32)) {
        onError(`${path}: gzip data is truncated (it ends without its trailer, though the session is marked complete); read up to the cut`);
      }
    } catch (err) {
      onError(`${path}: gzip data is damaged (${(err as Error).message}); read up to the damage`);
    } finally {
      source.destroy();
      gunzip.destroy();
    }
  }
  return { gzip, chunks: gzip ? inflated() : plain() };
}
