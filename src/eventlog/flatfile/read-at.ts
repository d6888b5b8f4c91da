// One positioned read of a byte range, looping over short reads (a read may return less than
// asked before the end of the file). Shorter only at the end of the file.
import { readSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';

/** Up to `len` bytes at `pos`; fewer only where the file ends. */
export async function readAt(fh: FileHandle, len: number, pos: number): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(len);
  let got = 0;
  while (got < len) {
    const { bytesRead } = await fh.read(buf, got, len - got, pos + got);
    if (bytesRead <= 0) break;
    got += bytesRead;
  }
  return got === len ? buf : buf.subarray(0, got);
}

/**
 * The same, synchronously: for the short reads of a query's hot path (a gzip member, a few
 * lines) that are almost always in the page cache, where a pread costs microseconds and a
 * promise round trip through the thread pool ten times more (BENCHMARKS.md, section 11).
 */
export function readAtSync(fd: number, len: number, pos: number): Buffer {
  const buf = Buffer.allocUnsafe(len);
  const got = readIntoSync(fd, buf, 0, len, pos);
  return got === len ? buf : buf.subarray(0, got);
}

/** `len` bytes at `pos` into buf[at, at + len), synchronously; the count read (less only at the end of the file). */
export function readIntoSync(fd: number, buf: Uint8Array, at: number, len: number, pos: number): number {
  let got = 0;
  while (got < len) {
    const n = readSync(fd, buf, at + got, len - got, pos + got);
    if (n <= 0) break;
    got += n;
  }
  return got;
}
