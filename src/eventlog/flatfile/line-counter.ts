// Line numbers for lines without a recnum (their recnum is their 1-based line number). Counting
// costs a pass over the bytes, so it is done lazily: nothing until the first such line, then
// only forward from the last counted position — also when a scan starts at a byte offset, where
// the bytes before it are read only if a line needs its number.
import type { ByteSource } from './line-reader.js';

export class LineCounter {
  /** Absolute file position up to which newlines are counted. */
  pos = 0;
  /** Newlines in [0, pos). */
  newlines = 0;
  /** Set once a line needed its number: from then on windows are counted as they pass. */
  active = false;

  constructor(private readonly source: ByteSource) {}

  /** Counts the file's bytes [pos, target) by reading them (positions outside the scan's buffer). */
  async catchUp(target: number, signal?: AbortSignal): Promise<void> {
    if (this.pos >= target) return;
    const buf = Buffer.allocUnsafe(Math.min(1 << 20, target - this.pos));
    while (this.pos < target) {
      signal?.throwIfAborted();
      const n = await this.source.read(buf, 0, Math.min(buf.length, target - this.pos), this.pos);
      if (n <= 0) break;
      this.newlines += countNewlines(buf, 0, n);
      this.pos += n;
    }
  }

  /** Counts newlines in buf[from, to), where buf[from] is at absolute position `pos`. */
  advanceInBuffer(buf: Buffer, from: number, to: number): void {
    if (to <= from) return;
    this.newlines += countNewlines(buf, from, to);
    this.pos += to - from;
  }
}

export function countNewlines(buf: Buffer, from: number, to: number): number {
  let n = 0;
  let i = from;
  for (;;) {
    i = buf.indexOf(10, i);
    if (i === -1 || i >= to) return n;
    n++;
    i++;
  }
}
