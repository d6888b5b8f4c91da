// Length-prefixed frames of sudo's log-server protocol: each message is preceded by its length,
// a 4-byte big-endian unsigned integer, and is at most 2 MiB (sudo's MESSAGE_SIZE_MAX).
//
// The reader keeps one buffer with a read and a write cursor, as node-postgres's pg-protocol
// parser does: chunks are appended behind the write cursor (the buffer grows, or its unread tail
// moves to the front, only when a chunk does not fit), whole frames are handed out as views
// without copying, and a frame split over any number of chunks is joined. A view is valid only
// until the next push: the consumer decodes it at once.
import { evioError } from '../errors.js';

/** sudo's MESSAGE_SIZE_MAX (logsrv_util.h, log_client.h). */
export const MAX_FRAME_BYTES = 2 * 1024 * 1024;
const HEADER_BYTES = 4;
/** The buffer's size once a message arrives; an idle connection holds none (shrink). */
const INITIAL_BYTES = 16 * 1024;
const EMPTY = Buffer.alloc(0);

export class FrameReader {
  private buf: Buffer = EMPTY;
  private readAt = 0;
  private writeAt = 0;

  /** Bytes received and not yet handed out as a frame (a started frame, or a started header). */
  get pending(): number {
    return this.writeAt - this.readAt;
  }

  /**
   * Adds `chunk` and calls `onFrame` for every frame now complete, in order. Throws
   * LOGSRV_FRAME_TOO_LARGE for a length of 0 or above the cap (nothing after it can be framed).
   */
  push(chunk: Uint8Array, onFrame: (frame: Buffer) => void): void {
    this.append(chunk);
    for (;;) {
      const avail = this.writeAt - this.readAt;
      if (avail < HEADER_BYTES) break;
      const len = this.buf.readUInt32BE(this.readAt);
      if (len === 0 || len > MAX_FRAME_BYTES) {
        throw evioError('LOGSRV_FRAME_TOO_LARGE', len === 0 ? 'client message of length 0' : `client message of ${len} bytes is larger than ${MAX_FRAME_BYTES}`);
      }
      if (avail < HEADER_BYTES + len) break;
      const start = this.readAt + HEADER_BYTES;
      this.readAt = start + len;
      onFrame(this.buf.subarray(start, start + len));
    }
    if (this.readAt === this.writeAt) {
      this.readAt = 0;
      this.writeAt = 0;
    }
  }

  private append(chunk: Uint8Array): void {
    const n = chunk.length;
    if (this.writeAt + n > this.buf.length) {
      const unread = this.writeAt - this.readAt;
      if (unread + n <= this.buf.length && this.readAt > 0) {
        // The unread tail moves to the front: no new memory.
        this.buf.copy(this.buf, 0, this.readAt, this.writeAt);
      } else {
        let size = Math.max(this.buf.length, INITIAL_BYTES);
        while (size < unread + n) size *= 2;
        const next = Buffer.allocUnsafe(size);
        this.buf.copy(next, 0, this.readAt, this.writeAt);
        this.buf = next;
      }
      this.readAt = 0;
      this.writeAt = unread;
    }
    this.buf.set(chunk, this.writeAt);
    this.writeAt += n;
  }

  /** Gives the buffer back when nothing is pending, so that an idle connection holds none. */
  shrink(): void {
    if (this.readAt === this.writeAt) {
      this.buf = EMPTY;
      this.readAt = 0;
      this.writeAt = 0;
    }
  }
}

/** One frame: the 4-byte length, then the message. */
export function encodeFrame(message: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(HEADER_BYTES + message.length);
  out.writeUInt32BE(message.length, 0);
  out.set(message, HEADER_BYTES);
  return out;
}
