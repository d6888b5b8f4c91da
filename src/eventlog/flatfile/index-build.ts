// Building and extending skip indexes (skip-index.ts). A plain file is read from where its index
// ends (0, or the end of the indexed prefix: the live file only grows between rewrites) and
// cut into blocks at line ends; a gzip file of ours is indexed member by member (one block per
// member, its compressed range a restart point). A gzip without our members is not indexed:
// it is scanned (say so: docs/flatfile.md).
import type { FileHandle } from 'node:fs/promises';
import { bomLength } from './bom.js';
import { memberLength, readMember } from './gzip.js';
import { fileSource, LineReader } from './line-reader.js';
import { DEFAULT_BLOCK_BYTES, IndexBuilder, sampleOf, type SkipIndex } from './skip-index.js';

export interface BuildOptions {
  blockBytes?: number;
  /** Stop after about this long (the index then covers a prefix; the next build extends it). */
  budgetMs?: number;
  signal?: AbortSignal | undefined;
  /** Called after every block with the bytes indexed so far and the total. */
  onProgress?: (done: number, total: number) => void;
}

/** Indexes (or extends the index of) a plain file; null when it cannot be indexed. */
export async function buildPlainIndex(fh: FileHandle, st: { ino: bigint; size: number }, prev: SkipIndex | null, opts: BuildOptions = {}): Promise<SkipIndex | null> {
  const blockBytes = prev?.header.blockBytes ?? opts.blockBytes ?? DEFAULT_BLOCK_BYTES;
  const src = fileSource(fh);
  const start = prev ? prev.header.usize : await bomLength(src);
  const b = new IndexBuilder(prev, start);
  const deadline = opts.budgetMs === undefined ? Infinity : Date.now() + opts.budgetMs;
  const reader = new LineReader(src, start, { sizeHint: st.size - start, stopOnOversized: true, signal: opts.signal });
  let blockStart = start;
  let open = false;
  try {
    for (;;) {
      opts.signal?.throwIfAborted();
      const more = await reader.fill();
      if (reader.oversized) return null; // a line the reader cannot hold: not indexed, scanned
      if (!more) break;
      const buf = reader.buf;
      const ce = reader.complete;
      let s = reader.start;
      // Do not read past the size the build started with (appends meanwhile are the next build's).
      while (s < ce) {
        const at = reader.pos(s);
        if (at >= st.size) break;
        if (!open) {
          b.beginBlock(at);
          blockStart = at;
          open = true;
        }
        const e = buf.indexOf(10, s);
        b.line(buf, s, e, at);
        s = e + 1;
        if (reader.pos(s) - blockStart >= blockBytes) {
          b.endBlock();
          open = false;
          opts.onProgress?.(reader.pos(s), st.size);
        }
      }
      reader.start = s;
      if (reader.pos(s) >= st.size) break;
      if (!open && Date.now() > deadline) break;
    }
  } finally {
    await reader.settle();
  }
  if (open) b.endBlock();
  opts.onProgress?.(b.usize, st.size);
  if (prev && b.usize === prev.header.usize) return prev;
  return b.finish('plain', st.ino, b.usize, await sampleOf(fh, b.usize), blockBytes);
}

/** Indexes a gzip file written as our members (rotate --compress); null for any other gzip. */
export async function buildGzipIndex(fh: FileHandle, st: { ino: bigint; size: number }, opts: BuildOptions = {}): Promise<SkipIndex | null> {
  const b = new IndexBuilder(null, 0);
  let c = 0;
  let u = 0;
  let blockBytes = 0;
  while (c < st.size) {
    opts.signal?.throwIfAborted();
    const len = await memberLength(fh, c);
    if (len === null || c + len > st.size) return null;
    const data = await readMember(fh, c, len);
    if (!indexMember(b, data, u, c, c + len)) return null;
    blockBytes = Math.max(blockBytes, data.length);
    u += data.length;
    c += len;
    opts.onProgress?.(c, st.size);
  }
  return b.finish('gz', st.ino, st.size, await sampleOf(fh, st.size), blockBytes || DEFAULT_BLOCK_BYTES);
}

/** One member's lines as one block; false when the member does not end at a line end. */
export function indexMember(b: IndexBuilder, data: Buffer, u: number, cstart: number, cend: number): boolean {
  if (data.length === 0) return true;
  if (data[data.length - 1] !== 10) return false;
  b.beginBlock(u, cstart, cend);
  // The first member may start with a byte order mark (bom.ts).
  let s = u === 0 && data.length >= 3 && data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf ? 3 : 0;
  while (s < data.length) {
    const e = data.indexOf(10, s);
    b.line(data, s, e, u + s);
    s = e + 1;
  }
  b.endBlock();
  return true;
}
