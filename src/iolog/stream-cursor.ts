// A read cursor over one stream file of a session (ttyout, stdin, ...): the timing file says
// how many bytes each record takes, the cursor hands them out in order. Skips are lazy: a
// plain file just moves its position, a gzip file inflates and drops only when bytes after
// the skip are wanted. Memory stays bounded by one inflated chunk whatever the file size.
// A plain file is read ahead (growing up to STREAM_READ_AHEAD): most records are a few bytes
// (one per echoed keystroke), and each read is a thread-pool round trip.
import type { FileHandle } from 'node:fs/promises';
import type { Gunzip } from 'node:zlib';
import { openNoFollow, syncFlushGunzip } from './decoded-file.js';
import { STREAM_READ_AHEAD } from './limits.js';

/** The first read, which also tells gzip from plain: most stream files are small. */
const FIRST_READ = 4096;

export class StreamCursor {
  private opened = false;
  private fh: FileHandle | null = null;
  private gzip = false;
  /** Plain files: the next byte's file position. */
  private position = 0;
  /**
   * Plain files: bytes [aheadStart, aheadStart + aheadLen) of the file. A new buffer is taken
   * at each refill (never refilled in place), so pieces handed out stay valid.
   */
  private ahead: Buffer | null = null;
  private aheadStart = 0;
  private aheadLen = 0;
  /** The next refill's size: doubles up to STREAM_READ_AHEAD, so a small file reads little. */
  private aheadSize = 2 * FIRST_READ;
  /** gzip: the inflated chunks and the unread rest of the current one. */
  private gunzip: Gunzip | null = null;
  private iter: AsyncIterator<Buffer> | null = null;
  private current: Buffer | null = null;
  private currentOff = 0;
  private pendingSkip = 0;
  private eof = false;
  /** Set when the gzip data was damaged; the cursor is at EOF from there on. */
  damage: string | null = null;

  constructor(readonly path: string) {}

  private async ensureOpen(): Promise<void> {
    if (this.opened) return;
    this.opened = true;
    this.fh = await openNoFollow(this.path);
    if (!this.fh) {
      this.eof = true; // a missing stream file is an empty stream
      return;
    }
    // The magic test of isGzip, on a first read that a plain file keeps as its read-ahead.
    await this.readAhead(0, FIRST_READ);
    const b = this.ahead!;
    this.gzip = this.aheadLen >= 2 && b[0] === 0x1f && b[1] === 0x8b;
    if (this.gzip) {
      const head = b.subarray(0, this.aheadLen);
      this.ahead = null;
      this.aheadLen = 0;
      const gunzip = syncFlushGunzip();
      // The first read goes in first. A short one reached the end of the file, as the read
      // stream would have found one read later: a small file needs no more reads.
      if (head.length < FIRST_READ) gunzip.end(head);
      else {
        gunzip.write(head);
        const source = this.fh.createReadStream({ start: head.length, autoClose: false });
        source.on('error', (e) => gunzip.destroy(e));
        source.pipe(gunzip);
      }
      this.gunzip = gunzip;
      this.iter = (gunzip as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
    }
  }

  /** Reads up to `size` bytes at `at` into a new read-ahead buffer; the bytes read. */
  private async readAhead(at: number, size: number): Promise<number> {
    const buf = Buffer.allocUnsafe(size);
    const { bytesRead } = await this.fh!.read(buf, 0, size, at);
    this.ahead = buf;
    this.aheadStart = at;
    this.aheadLen = bytesRead;
    return bytesRead;
  }

  /** Skips n bytes without reading them (yet). */
  skip(n: number): void {
    this.pendingSkip += n;
  }

  /** The next inflated chunk, or null at EOF (damage included). */
  private async nextChunk(): Promise<Buffer | null> {
    if (this.eof || !this.iter) return null;
    try {
      const r = await this.iter.next();
      if (r.done) {
        this.eof = true;
        return null;
      }
      return r.value;
    } catch (err) {
      this.eof = true;
      this.damage = (err as Error).message;
      return null;
    }
  }

  /** Applies the pending skip to a gzip stream (inflating and dropping). */
  private async applySkip(): Promise<void> {
    while (this.pendingSkip > 0) {
      if (!this.current || this.currentOff >= this.current.length) {
        this.current = await this.nextChunk();
        this.currentOff = 0;
        if (!this.current) {
          this.pendingSkip = 0;
          return;
        }
      }
      const step = Math.min(this.pendingSkip, this.current.length - this.currentOff);
      this.currentOff += step;
      this.pendingSkip -= step;
    }
  }

  /**
   * Yields up to n bytes in pieces of at most maxPiece bytes. Fewer than n bytes in total
   * means the file ended early (a short or still-buffered stream file).
   */
  async *take(n: number, maxPiece: number): AsyncGenerator<Uint8Array> {
    await this.ensureOpen();
    if (!this.fh) return;
    let done = 0;
    if (!this.gzip) {
      this.position += this.pendingSkip;
      this.pendingSkip = 0;
      while (done < n) {
        const want = Math.min(n - done, maxPiece);
        // Pieces are cut as without read-ahead: a whole `want` unless the file ends first.
        if (this.position < this.aheadStart || this.position + want > this.aheadStart + this.aheadLen) {
          const size = Math.max(want, this.aheadSize);
          this.aheadSize = Math.min(this.aheadSize * 2, STREAM_READ_AHEAD);
          if ((await this.readAhead(this.position, size)) === 0) return;
        }
        const off = this.position - this.aheadStart;
        const step = Math.min(want, this.aheadLen - off);
        this.position += step;
        done += step;
        yield this.ahead!.subarray(off, off + step);
      }
      return;
    }
    await this.applySkip();
    while (done < n) {
      if (!this.current || this.currentOff >= this.current.length) {
        this.current = await this.nextChunk();
        this.currentOff = 0;
        if (!this.current) return;
      }
      const step = Math.min(n - done, maxPiece, this.current.length - this.currentOff);
      const piece = this.current.subarray(this.currentOff, this.currentOff + step);
      this.currentOff += step;
      done += step;
      yield piece;
    }
  }

  async close(): Promise<void> {
    this.gunzip?.destroy();
    this.gunzip = null;
    this.iter = null;
    this.current = null;
    this.ahead = null;
    const fh = this.fh;
    this.fh = null;
    if (fh) await fh.close().catch(() => undefined);
  }
}
