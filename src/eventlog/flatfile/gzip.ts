// Gzip-compressed members of a log family (`events.ndjson.2.gz`).
//
// Reading: GzipSource presents the decompressed bytes of a .gz file as a ByteSource (positions
// are positions in the decompressed stream), decompressing as the reader asks, in zlib's
// streaming mode: memory stays one compressed read and one output chunk, and a scan that stops
// early (limit reached) stops decompressing. Reads are served in order; a read behind the
// current position (the line counter going back to count lines) restarts the stream.
//
// Writing: `evio events rotate --compress` writes a rotated file as independent gzip members of
// about one index block each (RFC 1952 allows any number of members; every gzip reader
// concatenates them). Each member's header carries an extra field `EV` holding the member's
// compressed length (the BGZF idea of htslib, with our own subfield id), so the members can be
// walked — and one block decompressed without the blocks before it — by reading headers only.
// A gzip written by anything else (one member, no `EV` field) is read as one stream.
import type { FileHandle } from 'node:fs/promises';
import { createGunzip, deflateRawSync, gunzip as gunzipCb, crc32, inflateRawSync } from 'node:zlib';
import { promisify } from 'node:util';
import { evioError } from '../../errors.js';
import type { ByteSource } from './line-reader.js';
import { readAtSync } from './read-at.js';

const gunzipAsync = promisify(gunzipCb);

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

/** Decompresses one member read from [pos, pos + len). */
export async function readMember(fh: FileHandle, pos: number, len: number): Promise<Buffer> {
  const m = readAtSync(fh.fd, len, pos);
  if (isOurMember(m, len)) return checkedMember(m, pos, inflateOurs(m, pos, inflateRawSync));
  try {
    return await gunzipAsync(m);
  } catch (err) {
    throw evioError('FF_GZIP_CORRUPT', `the gzip member at byte ${pos} is damaged: ${(err as Error).message}`, err);
  }
}

/** One of ours, read whole: the deflate body can be inflated in one call (the index names only ours). */
function isOurMember(m: Buffer, len: number): boolean {
  return m.length === len && len > MEMBER_HEADER + 8 && m[3] === 4 && m.readUInt16LE(10) === 8;
}

/** Inflates the deflate body into a buffer of the size the trailer states. */
function inflateOurs<T>(m: Buffer, pos: number, inflate: (buf: Buffer, opts: { chunkSize: number }) => T): T {
  const isize = m.readUInt32LE(m.length - 4);
  try {
    return inflate(m.subarray(MEMBER_HEADER, m.length - 8), { chunkSize: Math.max(64, isize + 1) });
  } catch (err) {
    throw evioError('FF_GZIP_CORRUPT', `the gzip member at byte ${pos} is damaged: ${(err as Error).message}`, err);
  }
}

/** Checks the trailer's size and CRC-32 (native, fast). */
function checkedMember(m: Buffer, pos: number, out: Buffer): Buffer {
  if (out.length !== m.readUInt32LE(m.length - 4) || crc32(out) >>> 0 !== m.readUInt32LE(m.length - 8)) {
    throw evioError('FF_GZIP_CORRUPT', `the gzip member at byte ${pos} is damaged (its size or CRC-32 does not match)`);
  }
  return out;
}

/** Compressed bytes fed to zlib at a time, and decompressed bytes it hands out at a time. */
const STREAM_CHUNK = 64 << 10;

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
