// A read cursor over one stream file of a session (ttyout, stdin, ...): the timing file says
// how many bytes each record takes, the cursor hands them out in order. Skips are lazy: a
// plain file just moves its position, a gzip file inflates and drops only when bytes after
// the skip are wanted. Memory stays bounded by one inflated chunk whatever the file size.
import type { FileHandle } from 'node:fs/promises';
import type { Gunzip } from 'node:zlib';
import { isGzip, openNoFollow, syncFlushGunzip } from './decoded-file.js';

export class StreamCursor {
  private opened = false;
  private fh: FileHandle | null = null;
  private gzip = false;
  /** Plain files: the next byte's file position. */
  private position = 0;
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
    this.gzip = await isGzip(this.fh);
    if (this.gzip) {
      const source = this.fh.createReadStream({ start: 0, autoClose: false });
      const gunzip = syncFlushGunzip();
      source.on('error', (e) => gunzip.destroy(e));
      source.pipe(gunzip);
      this.gunzip = gunzip;
      this.iter = (gunzip as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
    }
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
        const buf = Buffer.allocUnsafe(want);
        const { bytesRead } = await this.fh.read(buf, 0, want, this.position);
        if (bytesRead === 0) return;
        this.position += bytesRead;
        done += bytesRead;
        yield bytesRead === want ? buf : buf.subarray(0, bytesRead);
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
    const fh = this.fh;
    this.fh = null;
    if (fh) await fh.close().catch(() => undefined);
  }
}
