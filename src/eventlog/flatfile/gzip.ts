// Gzip-compressed members of a log family (`events.ndjson.2.gz`).
//
// Reading: GzipSource presents the decompressed bytes of a .gz file as a ByteSource (positions
// are positions in the decompressed stream), decompressing as the reader asks, in zlib's
// streaming mode: memory stays one compressed read and one output chunk, and a scan that stops
// early (limit reached) stops decompressing. Reads are served in order; a read behind the
// current position (the line counter going back to count lines) restarts the stream.
// Every decompression is bounded in output per step, runs off the event loop unless it is a
// small member of ours, stops on the query's abort, and reports damage as FF_GZIP_CORRUPT
// (docs/security.md: a hostile member must neither hang a query nor stall the service).
//
// Writing: `evio events rotate --compress` writes a rotated file as independent gzip members of
// about one index block each (RFC 1952 allows any number of members; every gzip reader
// concatenates them). Each member's header carries an extra field `EV` holding the member's
// compressed length (the BGZF idea of htslib, with our own subfield id), so the members can be
// walked — and one block decompressed without the blocks before it — by reading headers only.
// A gzip written by anything else (one member, no `EV` field) is read as one stream.
import type { FileHandle } from 'node:fs/promises';
import { createGunzip, deflateRawSync, crc32, inflateRawSync } from 'node:zlib';
import { evioError } from '../../errors.js';
import type { ByteSource } from './line-reader.js';
import { readAt, readAtSync } from './read-at.js';

export const GZIP_MAGIC = Buffer.from([0x1f, 0x8b]);

/** Since the process started: decompressed bytes the streamed gzip reads produced (tests, metrics). */
export const gzipCounters = { inflated: 0 };

/** The file starts with the gzip magic bytes. */
export async function isGzipFile(fh: FileHandle): Promise<boolean> {
  const b = Buffer.alloc(2);
  const { bytesRead } = await fh.read(b, 0, 2, 0);
  return bytesRead === 2 && b.equals(GZIP_MAGIC);
}

/** Size of the member header we write: 10 fixed bytes, XLEN, one 8-byte subfield. */
const MEMBER_HEADER = 20;

/** Compressed bytes fed to zlib at a time, and decompressed bytes it hands out at a time. */
const STREAM_CHUNK = 64 << 10;

/** One gzip member holding `data`, with the `EV` extra field naming its compressed length. */
export function gzipMember(data: Buffer, level = 6): Buffer {
  const body = deflateRawSync(data, { level });
  const total = MEMBER_HEADER + body.length + 8;
  const out = Buffer.allocUnsafe(total);
  // ID1 ID2 CM=8 FLG=FEXTRA MTIME=0 XFL=0 OS=255 XLEN=8 'E' 'V' SLEN=4 size
  out.writeUInt8(0x1f, 0);
  out.writeUInt8(0x8b, 1);
  out.writeUInt8(8, 2);
  out.writeUInt8(4, 3);
  out.writeUInt32LE(0, 4);
  out.writeUInt8(0, 8);
  out.writeUInt8(255, 9);
  out.writeUInt16LE(8, 10);
  out.writeUInt8(0x45, 12);
  out.writeUInt8(0x56, 13);
  out.writeUInt16LE(4, 14);
  out.writeUInt32LE(total, 16);
  body.copy(out, MEMBER_HEADER);
  out.writeUInt32LE(crc32(data) >>> 0, MEMBER_HEADER + body.length);
  out.writeUInt32LE(data.length >>> 0, MEMBER_HEADER + body.length + 4);
  return out;
}

/** The compressed length of the member at `pos` when it is one of ours (EV field), else null. */
export async function memberLength(fh: FileHandle, pos: number): Promise<number | null> {
  const h = Buffer.alloc(MEMBER_HEADER);
  const { bytesRead } = await fh.read(h, 0, MEMBER_HEADER, pos);
  if (bytesRead < MEMBER_HEADER || h[0] !== 0x1f || h[1] !== 0x8b || h[2] !== 8 || h[3] !== 4) return null;
  if (h.readUInt16LE(10) !== 8 || h[12] !== 0x45 || h[13] !== 0x56 || h.readUInt16LE(14) !== 4) return null;
  const n = h.readUInt32LE(16);
  return n > MEMBER_HEADER + 8 ? n : null;
}

/**
 * A member of ours that declares at most this many bytes is inflated in one synchronous call
 * (compress.ts writes members of about 64 KiB: a thread-pool round trip per member was measured
 * slower, BENCHMARKS.md section 11); its output is capped at the size it declares, so a member
 * that lies about its size stops there — a bounded millisecond or so of work.
 */
export const SYNC_MEMBER_BYTES = 1 << 20;
/**
 * The largest member read into memory whole. compress.ts cuts members at line ends about every
 * 64 KiB, so only a line longer than this makes a larger one (a query skips any line over
 * maxLineBytes, 32 MiB, as malformed). An index is not built over such a member (the file is
 * scanned, streamed: GzipSource); an index that names one gets FF_GZIP_CORRUPT.
 */
export const MAX_MEMBER_BYTES = 64 << 20;

/** The uncompressed size the trailer of the member at [pos, pos + len) states (mod 2^32). */
export async function memberSize(fh: FileHandle, pos: number, len: number): Promise<number> {
  const t = Buffer.alloc(4);
  const { bytesRead } = await fh.read(t, 0, 4, pos + len - 4);
  return bytesRead === 4 ? t.readUInt32LE(0) : 0;
}

const damagedMember = (pos: number, why: string, err?: unknown) => evioError('FF_GZIP_CORRUPT', `the gzip member at byte ${pos} is damaged: ${why}`, err);

/**
 * Decompresses one member read from [pos, pos + len). A small member of ours is inflated in
 * place; anything larger goes through zlib's stream on the thread pool, 64 KiB of output at a
 * time, capped at the size it declares (or MAX_MEMBER_BYTES) and stopped by `signal`.
 */
export async function readMember(fh: FileHandle, pos: number, len: number, signal?: AbortSignal): Promise<Buffer> {
  if (len > MAX_MEMBER_BYTES) throw damagedMember(pos, `it is ${len} bytes long, more than the ${MAX_MEMBER_BYTES} evio reads whole`);
  const m = len <= SYNC_MEMBER_BYTES ? readAtSync(fh.fd, len, pos) : await readAt(fh, len, pos);
  const ours = isOurMember(m, len);
  const isize = ours ? m.readUInt32LE(m.length - 4) : MAX_MEMBER_BYTES;
  if (isize > MAX_MEMBER_BYTES) throw damagedMember(pos, `it declares ${isize} bytes, more than the ${MAX_MEMBER_BYTES} evio reads whole`);
  if (ours && isize <= SYNC_MEMBER_BYTES) return checkedMember(m, pos, inflateOurs(m, pos, isize));
  // zlib's gunzip checks the trailer's CRC-32 and size itself.
  return inflateInPieces(m, pos, isize, signal);
}

/** One of ours, read whole: the deflate body can be inflated in one call (the index names only ours). */
function isOurMember(m: Buffer, len: number): boolean {
  return m.length === len && len > MEMBER_HEADER + 8 && m[3] === 4 && m.readUInt16LE(10) === 8;
}

/** Inflates the deflate body into a buffer of the size the trailer states, and not a byte more. */
function inflateOurs(m: Buffer, pos: number, isize: number): Buffer {
  try {
    return inflateRawSync(m.subarray(MEMBER_HEADER, m.length - 8), { chunkSize: Math.max(64, isize + 1), maxOutputLength: Math.max(1, isize) });
  } catch (err) {
    throw damagedMember(pos, (err as Error).message, err);
  }
}

/** Checks the trailer's size and CRC-32 (native, fast). */
function checkedMember(m: Buffer, pos: number, out: Buffer): Buffer {
  if (out.length !== m.readUInt32LE(m.length - 4) || crc32(out) >>> 0 !== m.readUInt32LE(m.length - 8)) {
    throw damagedMember(pos, 'its size or CRC-32 does not match');
  }
  return out;
}

/** A whole gzip member through zlib's stream (thread pool), at most `max` bytes out, stopped by `signal`. */
function inflateInPieces(m: Buffer, pos: number, max: number, signal: AbortSignal | undefined): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const gz = createGunzip({ chunkSize: STREAM_CHUNK });
    const parts: Buffer[] = [];
    let total = 0;
    let settled = false;
    const finish = (err: unknown) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      if (err === null) resolve(Buffer.concat(parts, total));
      else {
        gz.destroy();
        reject(err);
      }
    };
    const onAbort = () => finish(signal!.reason);
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    gz.on('data', (b: Buffer) => {
      total += b.length;
      gzipCounters.inflated += b.length;
      if (total > max) finish(damagedMember(pos, `it inflates to more than ${max} bytes`));
      else parts.push(b);
    });
    gz.on('end', () => finish(null));
    gz.on('error', (err) => finish(damagedMember(pos, err.message, err)));
    gz.end(m);
  });
}

/**
 * The decompressed bytes of a .gz file as a ByteSource. Calls are serialised (the line reader
 * reads ahead while the line counter may read behind).
 *
 * Bounded whatever the file holds: zlib runs in its stream mode on the libuv thread pool, one
 * 64 KiB output chunk at a time, and the stream is read in paused mode, so zlib's backpressure
 * stops it until the chunk is taken (a bomb — 64 KiB of input that inflates to 64 MiB — never
 * queues more than a chunk or two). Every chunk is a trip through the thread pool: the event
 * loop runs between chunks. A stream error (a damaged member, a truncated file) is
 * FF_GZIP_CORRUPT at the next read; it never waits on a write callback that zlib, once failed,
 * does not call. An aborted `signal` stops the stream at once: the pending read rejects with
 * the abort and zlib is destroyed.
 */
export class GzipSource implements ByteSource {
  /** Decompressed position of `chunk[chunkAt]`. */
  private cur = 0;
  private chunk: Buffer | null = null;
  private chunkAt = 0;
  private gz: ReturnType<typeof createGunzip> | null = null;
  private state: { error: Error | null; ended: boolean; cpos: number; inputDone: boolean; writing: boolean } | null = null;
  private chain: Promise<unknown> = Promise.resolve();
  /** Something happened (output, end, error, input taken, abort) since the waiter last looked. */
  private stirred = false;
  private wake: (() => void) | null = null;
  private readonly onAbort = () => this.stir();
  /** Compressed bytes the streams were asked to read (for the benchmarks' "bytes read"). */
  compressedRead = 0;

  constructor(
    private readonly fh: FileHandle,
    private readonly name: string,
    private readonly signal?: AbortSignal,
  ) {
    signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  read(buffer: Buffer, offset: number, length: number, position: number): Promise<number> {
    const p = this.chain.then(() => this.readNow(buffer, offset, length, position));
    this.chain = p.catch(() => undefined);
    return p;
  }

  private stir(): void {
    this.stirred = true;
    const w = this.wake;
    this.wake = null;
    w?.();
  }

  /** Resolves at the next event, or at once when one came since `stirred` was cleared. */
  private nextEvent(): Promise<void> {
    if (this.stirred) return Promise.resolve();
    return new Promise((r) => (this.wake = r));
  }

  private restart(): void {
    this.stopStream();
    const gz = createGunzip({ chunkSize: STREAM_CHUNK });
    const state = { error: null as Error | null, ended: false, cpos: 0, inputDone: false, writing: false };
    // No 'data' listener: the stream stays paused and is read with read() (backpressure).
    gz.on('readable', () => this.stir());
    gz.on('end', () => {
      state.ended = true;
      this.stir();
    });
    gz.on('error', (err) => {
      state.error = err;
      this.stir();
    });
    this.gz = gz;
    this.state = state;
    this.cur = 0;
    this.chunk = null;
    this.chunkAt = 0;
  }

  /**
   * The next decompressed chunk. Compressed input is read (64 KiB at a time) and written to zlib
   * only when zlib has taken the last piece and has no output waiting, so memory stays one
   * input piece and about one output chunk.
   */
  private async nextChunk(): Promise<boolean> {
    const st = this.state!;
    const gz = this.gz!;
    for (;;) {
      this.stirred = false;
      this.signal?.throwIfAborted();
      if (st.error) throw evioError('FF_GZIP_CORRUPT', `${this.name} is not a readable gzip file: ${st.error.message}`, st.error);
      const out = gz.read() as Buffer | null;
      if (out !== null) {
        gzipCounters.inflated += out.length;
        this.chunk = out;
        this.chunkAt = 0;
        return true;
      }
      if (st.ended) {
        this.chunk = null;
        return false;
      }
      if (!st.writing && !st.inputDone) {
        const buf = Buffer.allocUnsafe(STREAM_CHUNK);
        const { bytesRead } = await this.fh.read(buf, 0, buf.length, st.cpos);
        this.compressedRead += bytesRead;
        if (this.gz !== gz) {
          // Closed meanwhile (its owner is done with it): nothing more comes.
          this.chunk = null;
          return false;
        }
        if (bytesRead <= 0) {
          st.inputDone = true;
          gz.end();
        } else {
          st.cpos += bytesRead;
          st.writing = true;
          gz.write(buf.subarray(0, bytesRead), () => {
            st.writing = false;
            this.stir();
          });
        }
        continue;
      }
      await this.nextEvent();
    }
  }

  private async readNow(buffer: Buffer, offset: number, length: number, position: number): Promise<number> {
    if (this.gz === null || position < this.cur) this.restart();
    // Forward to `position` (decompress and drop).
    for (;;) {
      const avail = this.chunk ? this.chunk.length - this.chunkAt : 0;
      if (position < this.cur + avail) break;
      if (this.chunk) {
        this.cur += avail;
        this.chunk = null;
        this.chunkAt = 0;
      }
      if (!(await this.nextChunk())) return 0;
    }
    const skip = position - this.cur;
    this.chunkAt += skip;
    this.cur += skip;
    const n = Math.min(length, this.chunk!.length - this.chunkAt);
    this.chunk!.copy(buffer, offset, this.chunkAt, this.chunkAt + n);
    this.chunkAt += n;
    this.cur += n;
    return n;
  }

  private stopStream(): void {
    this.gz?.destroy();
    this.gz = null;
    this.state = null;
    this.stir();
  }

  /** Stops decompressing (the file handle stays open: its owner closes it). */
  close(): void {
    this.signal?.removeEventListener('abort', this.onAbort);
    this.stopStream();
  }
}

/** A ByteSource over bytes already in memory (a decompressed member), at file position `base`. */
export function bufferSource(buf: Buffer, base: number): ByteSource {
  return {
    async read(out, offset, length, position) {
      const i = position - base;
      if (i < 0 || i >= buf.length) return 0;
      const n = Math.min(length, buf.length - i);
      buf.copy(out, offset, i, i + n);
      return n;
    },
  };
}
