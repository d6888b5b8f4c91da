// A UTF-8 byte order mark (EF BB BF) at the start of a flat file. Editors on some systems put one
// there; it is not part of the first line's JSON. Every reader of the file skips it: queries, the
// tail read of appends, rewrites (which keep it in front of the new file: a rewrite changes only
// the deleted lines). Only the file's first three bytes can be a mark; anywhere else the bytes
// belong to a line (and make it malformed).
import type { ByteSource } from './line-reader.js';

export const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** True when buf[at, end) starts with the mark. */
export function hasBomAt(buf: Buffer, at: number, end: number): boolean {
  return end - at >= 3 && buf[at] === 0xef && buf[at + 1] === 0xbb && buf[at + 2] === 0xbf;
}

/** Length of the mark at the start of the file: 3, or 0 when it has none. */
export async function bomLength(source: ByteSource): Promise<number> {
  const b = Buffer.alloc(3);
  let got = 0;
  while (got < 3) {
    const n = await source.read(b, got, 3 - got, got);
    if (n <= 0) break;
    got += n;
  }
  return hasBomAt(b, 0, got) ? 3 : 0;
}
