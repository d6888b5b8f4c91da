// Building and extending skip indexes (skip-index.ts). A plain file is read from where its index
// ends (0, or the end of the indexed prefix: the live file only grows between rewrites) and
// cut into blocks at line ends; a gzip file of ours is indexed member by member (one block per
// member, its compressed range a restart point). A gzip without our members is not indexed:
// it is scanned (docs/flatfile.md). The builder hands out a segment every SEGMENT_LINES lines,
// written at once, so a build holds one segment's columns in memory whatever the file's size.
import type { FileHandle } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { bomLength } from './bom.js';
import { MAX_MEMBER_BYTES, memberLength, memberSize, readMember } from './gzip.js';
import { emptyBase, IndexBuilder, type BuiltSegment } from './index-builder.js';
import { baseOf, loadIndex } from './index-load.js';
import { appendSink, compactIndex, MAX_SEGMENTS, NewIndexFile, withSegments, type SegmentSink } from './index-write.js';
import { fileSource, LineReader } from './line-reader.js';
import { ctimeAt, DEFAULT_BLOCK_BYTES, sampleOf, type SkipIndex } from './skip-index.js';

/**
 * In memory only: the builder that wrote an index's last segment, in the state the index ends
 * in, so that the next extension by this process need not read the waiting accepts back.
 */
const builders = new WeakMap<SkipIndex, IndexBuilder>();

/** Lines per segment of a build: about 19 MiB of columns. */
export const SEGMENT_LINES = 1 << 20;

export interface BuildOptions {
  blockBytes?: number;
  /** Stop after about this long (the index then covers a prefix; the next build extends it). */
  budgetMs?: number;
  signal?: AbortSignal | undefined;
  /** Called after every block with the bytes indexed so far and the total. */
  onProgress?: (done: number, total: number) => void;
}

/**
 * Indexes (or extends the index of) a plain file into `idxPath`; returns the index as it now
 * stands, `prev` when nothing was added, null when no index could be made or written.
 */
export async function buildPlainIndex(fh: FileHandle, st: { ino: bigint; size: number }, prev: SkipIndex | null, idxPath: string, opts: BuildOptions = {}): Promise<SkipIndex | null> {
  // The builder the last extension by this process left, taken so no other extension shares it.
  let b = prev ? (builders.get(prev) ?? null) : null;
  if (prev) builders.delete(prev);
  if (prev && !b) {
    const base = await baseOf(prev);
    if (base) b = new IndexBuilder(base);
    else prev = null; // replaced meanwhile, or its tail is damaged: build anew
  }
  const blockBytes = b?.base.blockBytes ?? opts.blockBytes ?? DEFAULT_BLOCK_BYTES;
  const src = fileSource(fh);
  const start = prev ? prev.usize : await bomLength(src);
  let sink: SegmentSink | null;
  try {
    sink = prev ? await appendSink(prev) : await NewIndexFile.create(idxPath);
  } catch {
    return null; // a folder we cannot write to: the file is scanned
  }
  if (!sink) return prev;
  b ??= new IndexBuilder(emptyBase('plain', st.ino, blockBytes, start));
  const added: BuiltSegment[] = [];
  const emit = async (seg: BuiltSegment | null) => {
    if (!seg) return;
    await sink.write(seg);
    added.push(seg);
  };
  const deadline = opts.budgetMs === undefined ? Infinity : Date.now() + opts.budgetMs;
  let blockStart = start;
  let inBlock = false;
  /** Before a line at `at`; after it (ending at `end`): block and segment cuts. */
  const before = (at: number) => {
    if (!inBlock) {
      b.beginBlock(at);
      blockStart = at;
      inBlock = true;
    }
  };
  /** True when the line closed its block. */
  const after = async (end: number): Promise<boolean> => {
    if (end - blockStart < blockBytes) return false;
    b.endBlock();
    inBlock = false;
    opts.onProgress?.(end, st.size);
    if (b.segmentLines >= SEGMENT_LINES) await emit(b.takeSegment(b.usize, await sampleOf(fh, b.usize), await ctimeAt(fh, b.usize)));
    return true;
  };
  let ok = false;
  try {
    if (!(await readLines(fh, st, start, opts, before, after, b, deadline))) return null;
    if (inBlock) b.endBlock();
    opts.onProgress?.(b.usize, st.size);
    await emit(b.takeSegment(b.usize, await sampleOf(fh, b.usize), await ctimeAt(fh, b.usize)));
    await sink.commit();
    ok = true;
  } finally {
    if (!ok) await sink.abort();
  }
  if (prev && added.length === 0) {
    builders.set(prev, b);
    return prev;
  }
  let ix = prev ? withSegments(prev, added) : await loadIndex(idxPath, fh, st, false);
  if (ix && ix.segs.length > MAX_SEGMENTS && (await compactIndex(ix).catch(() => false))) ix = await loadIndex(idxPath, fh, st, false);
  else if (ix) builders.set(ix, b);
  return ix;
}

/** Reads and indexes the lines of [start, st.size); false when a line is too long to index. */
async function readLines(
  fh: FileHandle, st: { size: number }, start: number, opts: BuildOptions,
  before: (at: number) => void, after: (end: number) => Promise<boolean>, b: IndexBuilder, deadline: number,
): Promise<boolean> {
  const reader = new LineReader(fileSource(fh), start, { sizeHint: st.size - start, stopOnOversized: true, signal: opts.signal });
  try {
    for (;;) {
      opts.signal?.throwIfAborted();
      const more = await reader.fill();
      if (reader.oversized) return false; // a line the reader cannot hold: not indexed, scanned
      if (!more) break;
      const buf = reader.buf;
      const ce = reader.complete;
      let s = reader.start;
      // Do not read past the size the build started with (appends meanwhile are the next build's).
      while (s < ce) {
        const at = reader.pos(s);
        if (at >= st.size) break;
        before(at);
        const e = buf.indexOf(10, s);
        b.line(buf, s, e, at);
        s = e + 1;
        // Out of time: stop at a block's end (the index covers a prefix; the next build extends it).
        if ((await after(reader.pos(s))) && Date.now() > deadline) {
          reader.start = s;
          return true;
        }
      }
      reader.start = s;
      if (reader.pos(s) >= st.size) break;
    }
  } finally {
    await reader.settle();
  }
  return true;
}

/** Indexes a gzip file written as our members (rotate --compress); null for any other gzip. */
export async function buildGzipIndex(fh: FileHandle, st: { ino: bigint; size: number }, idxPath: string, opts: BuildOptions = {}): Promise<SkipIndex | null> {
  let out: NewIndexFile;
  try {
    out = await NewIndexFile.create(idxPath);
  } catch {
    return null;
  }
  let ok = false;
  try {
    const b = new GzipIndexer(new IndexBuilder(emptyBase('gz', st.ino, opts.blockBytes ?? DEFAULT_BLOCK_BYTES, 0)), fh, out);
    let c = 0;
    while (c < st.size) {
      opts.signal?.throwIfAborted();
      const len = await memberLength(fh, c);
      if (len === null || c + len > st.size) return null;
      // A member too large to read whole (a line of more than 64 MiB): the file is scanned.
      if (len > MAX_MEMBER_BYTES || (await memberSize(fh, c, len)) > MAX_MEMBER_BYTES) return null;
      const data = await readMember(fh, c, len, opts.signal);
      if (!(await b.member(data, c, c + len))) return null;
      c += len;
      opts.onProgress?.(c, st.size);
    }
    await b.finish(st.size);
    await out.commit();
    ok = true;
  } finally {
    if (!ok) await out.abort();
  }
  return loadIndex(idxPath, fh, st, true);
}

/** Indexes gzip members in order (a build, or compress.ts while it writes them). */
export class GzipIndexer {
  private u = 0;
  private c = 0;
  indexable = true;

  constructor(
    readonly builder: IndexBuilder,
    /** The gzip file (read back for the samples of the segments' compressed prefixes). */
    private readonly gz: FileHandle,
    private readonly out: { write(segment: BuiltSegment | null): Promise<void> },
  ) {}

  /** One member's lines as one block; false when the member does not end at a line end. */
  async member(data: Buffer, cstart: number, cend: number): Promise<boolean> {
    if (!this.indexable) return false;
    // A query reads a member of the index whole: not one larger than it may (gzip.ts).
    if (data.length > MAX_MEMBER_BYTES) return (this.indexable = false);
    if (data.length > 0) {
      if (data[data.length - 1] !== 10) return (this.indexable = false);
      const b = this.builder;
      b.beginBlock(this.u, cstart, cend);
      // The first member may start with a byte order mark (bom.ts).
      let s = this.u === 0 && data.length >= 3 && data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf ? 3 : 0;
      while (s < data.length) {
        const e = data.indexOf(10, s);
        b.line(data, s, e, this.u + s);
        s = e + 1;
      }
      b.endBlock(crc32(data));
      this.u += data.length;
    }
    this.c = cend;
    if (this.builder.segmentLines >= SEGMENT_LINES) await this.out.write(this.builder.takeSegment(this.c, await sampleOf(this.gz, this.c)));
    return true;
  }

  /** The last segment; `size` is the whole gzip file's. */
  async finish(size: number): Promise<void> {
    await this.out.write(this.builder.takeSegment(size, await sampleOf(this.gz, size)));
  }
}
