// Byte-string search for the prefilter. Buffer.indexOf runs memchr on the needle's first byte and
// compares the rest; in JSON almost every needle starts with a frequent byte ('"'), so we search
// for the needle's tail that starts at its rarest byte (rarity sampled from the file itself) and
// check the head in place. Same idea as ripgrep's rare-byte heuristic, without SIMD.

/** Byte frequencies of a sample (the first buffer of a scan). */
export function byteFrequencies(buf: Buffer, start: number, end: number): Uint32Array {
  const freq = new Uint32Array(256);
  const stop = Math.min(end, start + (256 << 10));
  for (let i = start; i < stop; i++) freq[buf[i]!]!++;
  return freq;
}

export class ByteNeedle {
  /** Index in `bytes` of the anchor: the tail bytes.subarray(anchorAt) is what indexOf looks for. */
  readonly anchorAt: number;
  private readonly tail: Buffer;

  constructor(
    readonly bytes: Buffer,
    freq: Uint32Array | null,
  ) {
    if (bytes.length === 0) throw new Error('empty needle');
    let at = 0;
    if (freq) {
      for (let j = 1; j < bytes.length; j++) if (freq[bytes[j]!]! < freq[bytes[at]!]!) at = j;
    }
    this.anchorAt = at;
    this.tail = bytes.subarray(at);
  }

  /** Index of the first occurrence starting at or after `from`, or -1. Searches to the end of `buf`: give it a view that ends where the valid bytes end. */
  find(buf: Buffer, from: number): number {
    const at = this.anchorAt;
    const bytes = this.bytes;
    let i = from + at - 1;
    for (;;) {
      i = buf.indexOf(this.tail, i + 1);
      if (i === -1) return -1;
      const s = i - at;
      if (s < from) continue;
      let j = 0;
      while (j < at && buf[s + j] === bytes[j]) j++;
      if (j === at) return s;
    }
  }
}

/**
 * A search position that only moves forward through one buffer: `next` is the first hit at or
 * after the last position asked about, so checking every line of a window costs one pass.
 */
export class NeedleCursor {
  /** Buffer index of the next hit; Infinity = none left in this buffer; -1 = not searched yet. */
  next = -1;
  constructor(readonly needle: ByteNeedle) {}

  reset(): void {
    this.next = -1;
  }

  /** First hit at or after `from`. */
  at(buf: Buffer, from: number): number {
    if (this.next !== Infinity && this.next < from) {
      const i = this.needle.find(buf, from);
      this.next = i === -1 ? Infinity : i;
    }
    return this.next;
  }
}
