// Writing a batch into a byte stream (a program's standard input, a TCP connection) with
// backpressure: chunks of at most 64 KiB, each awaited — its write completed and, when the stream
// was full, 'drain' — so evio holds one chunk at a time, however slow the reader. Each chunk's
// records enter the unread window (unread-window.ts) once its write completed.
import type { Writable } from 'node:stream';
import type { DeliveryItem } from './sink.js';
import type { UnreadWindow } from './unread-window.js';

export const CHUNK_BYTES = 64 << 10;

export interface OpenStream {
  stream: Writable;
  /** Rejects when the stream breaks (the program exits, the connection closes); never resolves. */
  gone: Promise<never>;
}

/** Resolves when `data` left evio: its write completed, and the stream drained if it was full. */
function writeChunk(stream: Writable, data: Buffer, seen: { maxBuffered: number }): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let written = false;
    let drained = true;
    const check = () => {
      if (written && drained) resolve();
    };
    const ok = stream.write(data, (err) => {
      if (err) return reject(err);
      written = true;
      check();
    });
    seen.maxBuffered = Math.max(seen.maxBuffered, stream.writableLength);
    if (!ok) {
      drained = false;
      stream.once('drain', () => {
        drained = true;
        check();
      });
    }
  });
}

/**
 * Writes every item, encoded, into `s.stream`. Rejects when the stream breaks, a write fails or
 * `signal` aborts; the records of the chunks written before stay in `window`.
 */
export async function writeItems(
  s: OpenStream,
  items: readonly DeliveryItem[],
  encode: (item: DeliveryItem) => Buffer,
  window: UnreadWindow,
  signal: AbortSignal,
  seen: { maxBuffered: number },
): Promise<void> {
  let onAbort!: () => void;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  aborted.catch(() => {});
  let recnums: number[] = [];
  let bufs: Buffer[] = [];
  let size = 0;
  const flush = async () => {
    await Promise.race([writeChunk(s.stream, Buffer.concat(bufs, size), seen), s.gone, aborted]);
    for (let i = 0; i < bufs.length; i++) window.add(recnums[i]!, bufs[i]!.length);
    recnums = [];
    bufs = [];
    size = 0;
  };
  try {
    signal.throwIfAborted();
    for (const item of items) {
      const b = encode(item);
      recnums.push(item.rec.recnum);
      bufs.push(b);
      size += b.length;
      if (size >= CHUNK_BYTES) await flush();
    }
    if (bufs.length > 0) await flush();
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
