// One file of a session being written (a stream file or `timing`), plain or gzip, on the log
// server's hot path. Records are copied into a per-file buffer (no allocation per record; the
// buffer starts small, grows to the write threshold and is released after a flush, so thousands
// of idle sessions hold little). A full buffer is handed to the kernel at once:
// - plain: one positional write (writeSync: the page cache, not the disk; a record of 64 KiB or
//   more with nothing buffered is written from the caller's bytes without a copy);
// - gzip: one write into the file's deflate stream (zlib runs in libuv's pool, off the event
//   loop); its output is appended to the file as it comes. One gzip member per file, as sudo's
//   gzdopen writes, so readers that check the trailer (ISIZE) of a finished session agree.
// Nothing is fsync'ed except in flush() (sync flush of the deflate stream, then fdatasync) and
// end(). A failed write poisons the file: every later call throws the same IOLOG_WRITE.
import { closeSync, fdatasync, fsync, writeSync } from 'node:fs';
import { promisify } from 'node:util';
import { constants as zc, createGzip, gzipSync, type Gzip } from 'node:zlib';
import { evioError, isEvioError, type EvioError } from '../../errors.js';

const fdatasyncAsync = promisify(fdatasync);
const fsyncAsync = promisify(fsync);

/** A buffer this full is handed to the kernel (or to zlib) at once. */
export const WRITE_AT = 64 * 1024;
const FIRST_CAPACITY = 4 * 1024;

export class OutputFile {
  private buf: Buffer | null = null;
  private len = 0;
  private gz: Gzip | null = null;
  private failure: EvioError | null = null;
  /** Bytes in the file (the next write's offset). */
  private pos: number;
  /** Written since the last fdatasync. */
  private dirty = false;
  private ended = false;

  /**
   * `fd` open for writing at size `pos` (0 for a new file). `gzip`: what is appended is deflated
   * (`level` 1-9); a non-empty gzip file is only ever continued through `gz`, the deflate stream
   * that wrote it (reopen.ts rewrites a compressed file that way).
   */
  constructor(
    /** The file's name in messages. */
    readonly shown: string,
    private fd: number,
    readonly gzip: boolean,
    pos: number,
    private readonly level: number,
  ) {
    this.pos = pos;
  }

  /** Bytes held here or in the deflate stream, not yet handed to the kernel. */
  get buffered(): number {
    return this.len + (this.gz ? this.gz.writableLength : 0);
  }

  /** Size of the file on disk as written so far (compressed bytes for gzip). */
  get size(): number {
    return this.pos;
  }

  private fail(err: unknown): EvioError {
    if (!this.failure) {
      this.failure = isEvioError(err) ? err : evioError('IOLOG_WRITE', `cannot write ${this.shown}: ${(err as Error).message}`, err);
    }
    return this.failure;
  }

  /** Throws the first failure of this file, if any. */
  check(): void {
    if (this.failure) throw this.failure;
  }

  /** A buffer with at least `n` free bytes at `this.length`; write there, then advance(). */
  room(n: number): Buffer {
    this.check();
    const need = this.len + n;
    if (this.buf === null || this.buf.length < need) {
      let cap = this.buf ? this.buf.length * 2 : FIRST_CAPACITY;
      while (cap < need) cap *= 2;
      const next = Buffer.allocUnsafe(cap);
      if (this.buf && this.len > 0) this.buf.copy(next, 0, 0, this.len);
      this.buf = next;
    }
    return this.buf;
  }

  get length(): number {
    return this.len;
  }

  /** Marks bytes up to `end` of the buffer from room() as taken. */
  advance(end: number): void {
    this.len = end;
    if (this.len >= WRITE_AT) this.spill();
  }

  /** Appends bytes (copied, or written at once when large and nothing is buffered). */
  append(data: Uint8Array): void {
    this.check();
    const n = data.length;
    if (n === 0) return;
    if (!this.gzip && this.len === 0 && n >= WRITE_AT) {
      this.writeOut(data, n);
      return;
    }
    const buf = this.room(n);
    buf.set(data, this.len);
    this.advance(this.len + n);
  }

  /** Called before this file's buffer goes to the kernel (timing: the streams' buffers go first). */
  beforeSpill: (() => void) | null = null;

  /** Hands the buffer to the kernel (plain) or to the deflate stream (gzip). */
  spill(): void {
    if (this.len === 0) return;
    this.beforeSpill?.();
    if (this.gzip) {
      // The deflate stream keeps the bytes until its worker has read them: hand them over, start a new buffer.
      const chunk = this.buf!.subarray(0, this.len);
      this.buf = null;
      this.len = 0;
      this.deflate().write(chunk);
    } else {
      const n = this.len;
      this.len = 0;
      this.writeOut(this.buf!, n);
    }
  }

  /** Positional write of `n` bytes at the end of the file, all of them. */
  private writeOut(data: Uint8Array, n: number): void {
    try {
      let off = 0;
      while (off < n) {
        const w = writeSync(this.fd, data, off, n - off, this.pos);
        off += w;
        this.pos += w;
      }
      this.dirty = true;
    } catch (err) {
      throw this.fail(err);
    }
  }

  private deflate(): Gzip {
    if (this.gz) return this.gz;
    const gz = createGzip({ level: this.level });
    gz.on('data', (out: Buffer) => {
      if (this.failure) return;
      try {
        this.writeOut(out, out.length);
      } catch {
        // kept in this.failure, thrown by the next call
      }
    });
    gz.on('error', (err) => this.fail(err));
    this.gz = gz;
    return gz;
  }

  /** Everything appended so far written to the file (gzip: sync-flushed), not yet fsync'ed. */
  async drain(): Promise<void> {
    this.check();
    if (this.gzip) {
      if (this.len === 0 && this.gz === null) return;
      this.spill();
      const gz = this.deflate();
      await new Promise<void>((resolve) => gz.flush(zc.Z_SYNC_FLUSH, () => resolve()));
      // The flush's output is delivered before its callback; wait out any that is still queued.
      while (gz.readableLength > 0 && !this.failure) await new Promise((r) => setImmediate(r));
    } else {
      this.spill();
    }
    this.check();
    this.release();
  }

  /** A buffer grown for a burst is given back once it is empty, so an idle session holds none. */
  private release(): void {
    if (this.len === 0) this.buf = null;
  }

  /** fdatasync when something was written since the last one. */
  async sync(): Promise<void> {
    this.check();
    if (!this.dirty) return;
    this.dirty = false;
    try {
      await fdatasyncAsync(this.fd);
    } catch (err) {
      this.dirty = true;
      throw this.fail(err);
    }
  }

  /**
   * The file's end: plain files get their buffer written; gzip files their final block and
   * trailer (an unused one an empty member, as gzclose leaves it), then everything is synced.
   */
  async end(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    this.check();
    if (this.gzip) {
      if (this.gz === null && this.len === 0) {
        if (this.pos === 0) this.writeOut(EMPTY_GZIP, EMPTY_GZIP.length);
      } else {
        this.spill();
        const gz = this.deflate();
        await new Promise<void>((resolve, reject) => {
          gz.once('end', resolve);
          gz.once('error', reject);
          gz.end();
          gz.resume();
        }).catch((err) => {
          throw this.fail(err);
        });
        this.gz = null;
      }
    } else {
      this.spill();
    }
    this.check();
    await this.sync();
  }

  /** fsync (data and metadata, e.g. after a mode change). */
  async fsyncAll(): Promise<void> {
    try {
      await fsyncAsync(this.fd);
    } catch (err) {
      throw this.fail(err);
    }
  }

  get descriptor(): number {
    return this.fd;
  }

  /** Closes the descriptor (and drops a deflate stream without ending it). Idempotent. */
  close(): void {
    if (this.gz) {
      this.gz.removeAllListeners('data');
      this.gz.on('error', () => undefined);
      this.gz.destroy();
      this.gz = null;
    }
    this.buf = null;
    this.len = 0;
    if (this.fd >= 0) {
      const fd = this.fd;
      this.fd = -1;
      try {
        closeSync(fd);
      } catch {
        // already closed: nothing to give back
      }
    }
  }
}

/** A gzip member with no content (header, empty final block, trailer). */
const EMPTY_GZIP = gzipSync(Buffer.alloc(0));
