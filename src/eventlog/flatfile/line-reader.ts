// Sequential reading of an NDJSON file into one reusable buffer, in the manner of node-postgres'
// pg-protocol parser: bytes are read straight into the free tail of the buffer, the caller
// consumes whole lines in place through cursors, and only the unconsumed partial line is moved to
// the front before the next read. No string per chunk, no array of lines, no per-chunk Buffer
// concatenation: memory stays one buffer (grown only while a single line does not fit).
//
// Line splitting is hand-rolled on Buffers on purpose: this is the hot path of every flat-file
// query and rewrite (split2/readline would allocate a string per line before we know whether the
// line is even wanted; see prefilter.ts).
import type { FileHandle } from 'node:fs/promises';
import type { BufferBudget, BufferGrant } from '../types.js';

/** Where bytes come from: a file, or a test double that cuts reads at chosen sizes. */
export interface ByteSource {
  /** Like fs read(): reads up to `length` bytes at file position `position`; 0 at end of file. */
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<number>;
}

export function fileSource(fh: FileHandle): ByteSource {
  return {
    async read(buffer, offset, length, position) {
      const { bytesRead } = await fh.read(buffer, offset, length, position);
      return bytesRead;
    },
  };
}

export const DEFAULT_READ_SIZE = 1 << 20;
/** A line longer than this is skipped as malformed instead of growing the buffer further. */
export const DEFAULT_MAX_LINE_BYTES = 32 << 20;

export interface LineReaderOptions {
  readSize?: number;
  maxLineBytes?: number;
  /** Bytes expected from the start position (the file's size less it): a small file gets a small buffer. */
  sizeHint?: number;
  /**
   * Checked before every read: fill() may read many times before it returns (skipping a line
   * longer than maxLineBytes reads to its newline, gigabytes in a hostile file).
   */
  signal?: AbortSignal | undefined;
  /** fill() returns false at the first line longer than maxLineBytes instead of skipping it (rewrites fail there). */
  stopOnOversized?: boolean;
  /**
   * Where the buffer's bytes are reserved (a query's answer: the engine's ReaderBudget). The
   * buffer is then allocated at the first fill, as large as the reservation allows (which may
   * wait), and released by settle().
   */
  budget?: BufferBudget | undefined;
}

const NO_BYTES = Buffer.alloc(0);

export class LineReader {
  /** The one buffer; valid bytes are [start, end). Bytes past `end` are stale: never trust them. */
  buf: Buffer;
  /** First byte not yet consumed by the caller (always the start of a line). */
  start = 0;
  /** End of the bytes read so far. */
  end = 0;
  /** End of the last complete line in the buffer (index just after its '\n'); = start if none. */
  complete = 0;
  /** Bytes [complete, scanned) were searched and hold no '\n'. */
  private scanned = 0;
  /** File position of buf[0]. */
  base: number;
  /** No more bytes will come. */
  eof = false;
  /** Lines dropped because they exceeded maxLineBytes (counted as malformed by the caller). */
  oversized = 0;

  private readonly readSize: number;
  private readonly maxLineBytes: number;
  private readonly signal: AbortSignal | undefined;
  private readonly stopOnOversized: boolean;
  /** True while discarding the rest of an oversized line. */
  private discarding = false;
  /** The read-ahead started by the last fill, into [end, ...). */
  private inflight: Promise<number> | null = null;
  private readonly budget: BufferBudget | undefined;
  /** The buffer's size before the first fill. */
  private readonly initialSize: number;
  /** The bytes the buffer holds in the budget (null: not reserved, or no budget). */
  private grant: BufferGrant | null = null;

  constructor(
    private readonly source: ByteSource,
    startPosition: number,
    opts: LineReaderOptions = {},
  ) {
    this.readSize = Math.max(1, opts.readSize ?? DEFAULT_READ_SIZE);
    this.maxLineBytes = Math.max(1, opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES);
    this.signal = opts.signal;
    this.stopOnOversized = opts.stopOnOversized ?? false;
    // Room for several reads between compactions, so that most reads can run ahead; no more
    // than the file needs (it may grow meanwhile: the buffer then grows too).
    const room = Math.max(8 * this.readSize, 64);
    this.initialSize = opts.sizeHint === undefined ? room : Math.max(64, Math.min(room, opts.sizeHint + 1));
    this.budget = opts.budget;
    this.buf = this.budget ? NO_BYTES : Buffer.allocUnsafe(this.initialSize);
    this.base = startPosition;
  }

  /** File position of buffer index i. */
  pos(i: number): number {
    return this.base + i;
  }

  /**
   * Makes room and reads the next bytes. Returns false once the file is exhausted and no complete
   * line is left to consume; then [start, end) holds a torn last line (no '\n'), if any.
   *
   * Read-ahead: before returning, the next read is started into the free tail of the buffer
   * ([end, ...), which the caller does not touch while it consumes [start, complete)), so the
   * copy from the page cache overlaps the caller's work on this buffer.
   */
  async fill(): Promise<boolean> {
    if (this.budget && this.buf === NO_BYTES && !this.eof) {
      // Reserved before the first read: the budget may grant less than asked, or make us wait.
      this.grant = await this.budget.reserve(this.initialSize, this.signal);
      this.buf = Buffer.allocUnsafe(this.grant.bytes);
    }
    for (;;) {
      if (this.eof) return false;
      this.signal?.throwIfAborted();
      let n: number;
      if (this.inflight) {
        const p = this.inflight;
        this.inflight = null;
        n = await p;
      } else {
        this.makeRoom();
        n = await this.source.read(this.buf, this.end, Math.min(this.readSize, this.buf.length - this.end), this.base + this.end);
      }
      if (n <= 0) {
        this.eof = true;
        if (this.discarding) {
          // The oversized line ran to the end of the file without a newline.
          this.discarding = false;
          this.start = this.end;
        }
        return false;
      }
      const from = this.end;
      this.end += n;
      // Only the bytes not searched yet are searched for the last '\n', so a line longer than
      // one read costs one pass over it, not one pass over the buffer per read.
      let searchFrom = this.scanned;
      if (this.discarding) {
        if (!this.skipOversized(from)) continue;
        searchFrom = this.start;
      }
      let nl = this.buf.subarray(searchFrom, this.end).lastIndexOf(10);
      nl = nl === -1 ? this.complete - 1 : searchFrom + nl;
      this.scanned = this.end;
      if (nl >= this.start) {
        this.complete = nl + 1;
        this.readAhead();
        return true;
      }
      this.complete = this.start;
      if (this.end - this.start > this.maxLineBytes) {
        // One line longer than the bound: drop what we have and skip to its newline.
        this.oversized++;
        if (this.stopOnOversized) return false;
        this.discarding = true;
        this.start = this.end;
        this.complete = this.end;
      }
    }
  }

  private readAhead(): void {
    if (this.buf.length - this.end < this.readSize) return; // the next fill compacts first
    const p = this.source.read(this.buf, this.end, this.readSize, this.base + this.end);
    p.catch(() => undefined); // awaited by the next fill; never an unhandled rejection
    this.inflight = p;
  }

  /** Waits for a read still in flight (before the file is closed); gives the buffer's bytes back to the budget. */
  async settle(): Promise<void> {
    const p = this.inflight;
    this.inflight = null;
    if (p) await p.catch(() => undefined);
    this.grant?.release();
  }

  /** While discarding: drops bytes up to and including the next '\n'; false if none arrived yet. */
  private skipOversized(from: number): boolean {
    // Only the bytes just read: past `end` the buffer holds stale bytes (a search to its end
    // would cost the whole buffer per read, quadratic over a long line).
    const i = this.buf.subarray(from, this.end).indexOf(10);
    const nl = i === -1 ? -1 : from + i;
    if (nl === -1) {
      this.start = this.end;
      this.complete = this.end;
      this.scanned = this.end;
      return false;
    }
    this.discarding = false;
    this.start = nl + 1;
    this.complete = this.start;
    return true;
  }

  /** Moves the unconsumed bytes to the front; grows the buffer when one line fills it. */
  private makeRoom(): void {
    if (this.start > 0) {
      if (this.end > this.start) this.buf.copyWithin(0, this.start, this.end);
      this.base += this.start;
      this.end -= this.start;
      this.complete -= this.start;
      this.scanned -= this.start;
      this.start = 0;
    }
    if (this.complete < 0) this.complete = 0;
    if (this.buf.length - this.end < Math.min(this.readSize, this.buf.length / 2)) {
      const grown = Buffer.allocUnsafe(this.buf.length * 2);
      this.buf.copy(grown, 0, 0, this.end);
      this.buf = grown;
      this.grant?.resize(grown.length);
    }
  }

  /** The torn last line at end of file: [start, end) when eof and it holds bytes. */
  tornTail(): { start: number; end: number } | null {
    return this.eof && this.end > this.start ? { start: this.start, end: this.end } : null;
  }
}
