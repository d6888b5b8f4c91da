// Line splitting with a bound on the line length and no per-byte allocation: each chunk is
// scanned with indexOf; only a line that spans chunks is copied (once, when it completes).

/**
 * Splits decoded bytes into lines (timing files, asciicast files). A line is complete only with
 * its `\n`; the tail without one is held back (a live session is still writing it). A line
 * longer than `maxLine` bytes is reported as null (invalid).
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private partLen = 0;
  private overflow = false;

  constructor(
    private readonly maxLine: number,
    private readonly encoding: 'latin1' | 'utf8',
  ) {}

  /** Feeds a chunk; calls `onLine` for every complete line; stops when onLine returns false. */
  push(chunk: Buffer, onLine: (line: string | null) => boolean): boolean {
    let from = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, from);
      if (nl < 0) break;
      let line: string | null;
      if (this.overflow || this.partLen + (nl - from) > this.maxLine) {
        line = null;
      } else if (this.partLen > 0) {
        this.parts.push(chunk.subarray(from, nl));
        line = Buffer.concat(this.parts).toString(this.encoding);
      } else {
        line = chunk.toString(this.encoding, from, nl);
      }
      this.parts = [];
      this.partLen = 0;
      this.overflow = false;
      from = nl + 1;
      if (!onLine(line)) return false;
    }
    if (from < chunk.length && !this.overflow) {
      const rest = chunk.length - from;
      if (this.partLen + rest > this.maxLine) {
        this.overflow = true;
        this.parts = [];
        this.partLen = 0;
      } else {
        // Copied: the producer may reuse its buffer.
        this.parts.push(Buffer.from(chunk.subarray(from)));
        this.partLen += rest;
      }
    }
    return true;
  }

  /** True when bytes after the last `\n` were held back. */
  get hasPartial(): boolean {
    return this.partLen > 0 || this.overflow;
  }
}
