// Which records a broken byte stream may have lost. A program's standard input or a TCP
// connection takes bytes into kernel buffers: a write that completed says they left evio, not
// that the reader read them. If the reader dies, what sat in those buffers is gone. The buffers
// are bounded, so of the bytes handed over, all but the last `capacity` were surely read. When
// the stream breaks, the records that end within those last `capacity` bytes are delivered
// again: duplicates (the reader may have read them) rather than losses.
// - A program's standard input: Node (libuv) makes it a UNIX stream socket pair, whose unread
//   bytes are charged to evio's end, bounded by its send buffer (net.core.wmem_default, since
//   nobody changes it; one more segment may pass the check, hence twice that); were it a pipe,
//   at most /proc/sys/fs/pipe-max-size (what a reader may enlarge it to). The larger of both.
// - A TCP connection: the sender's and the receiver's socket buffers, at most their maxima
//   (net.ipv4.tcp_wmem and tcp_rmem, third fields).
import { readFileSync } from 'node:fs';

export class UnreadWindow {
  /** The recnum of the last record surely read (or before the first record of this stream). */
  private base = 0;
  /** Bytes handed to the stream: writes that completed. */
  private handed = 0;
  /** Records handed but maybe unread, from `head` on: their recnums and where each ends. */
  private recnums: number[] = [];
  private ends: number[] = [];
  private head = 0;

  constructor(readonly capacity: number) {}

  /** A new stream starts after recnum `after`. */
  reset(after: number): void {
    this.base = after;
    this.handed = 0;
    this.recnums = [];
    this.ends = [];
    this.head = 0;
  }

  /**
   * A record of `bytes` bytes was handed to the stream (its write completed). Only completed
   * writes count: the bytes of a write that failed are not known to be in the stream.
   */
  add(recnum: number, bytes: number): void {
    this.handed += bytes;
    this.recnums.push(recnum);
    this.ends.push(this.handed);
    // Records that end before the last `capacity` handed bytes were surely read.
    const sure = this.handed - this.capacity;
    while (this.head < this.ends.length && this.ends[this.head]! <= sure) this.base = this.recnums[this.head++]!;
    if (this.head > 1024 && this.head * 2 > this.ends.length) {
      this.recnums = this.recnums.slice(this.head);
      this.ends = this.ends.slice(this.head);
      this.head = 0;
    }
  }

  /** The stream broke: the recnum after which delivery must start again. */
  rewindPoint(): number {
    return this.base;
  }
}

/** The most a program's standard input can hold unread, bytes (see above). */
export function stdinCapacity(): number {
  const pipe = readProcNumber('/proc/sys/fs/pipe-max-size', 0) || 1 << 20;
  const socket = 2 * (readProcNumber('/proc/sys/net/core/wmem_default', 0) || 4 << 20);
  return Math.max(pipe, socket);
}

/** The most a TCP connection's two socket buffers can hold (sender's plus receiver's), bytes. */
export function tcpCapacity(): number {
  const wmem = readProcNumber('/proc/sys/net/ipv4/tcp_wmem', 2) || 4 << 20;
  const rmem = readProcNumber('/proc/sys/net/ipv4/tcp_rmem', 2) || 6 << 20;
  return wmem + rmem;
}

/** Field `index` (whitespace-separated) of a /proc number file, or 0. */
function readProcNumber(path: string, index: number): number {
  try {
    const n = Number(readFileSync(path, 'utf8').trim().split(/\s+/)[index]);
    return Number.isSafeInteger(n) && n > 0 ? n : 0;
  } catch {
    return 0;
  }
}

/**
 * What the two stream destinations (prog, syslog over TCP) share: the window of records a broken
 * stream may have lost, the recnum to deliver again from after a break (taken once by the
 * forwarder), and the forwarder's wake-up for a break noticed between deliveries. Their records
 * may repeat after a break: not idempotent.
 */
export abstract class StreamSinkBase {
  readonly idempotent = false;
  protected rewind: number | null = null;
  protected wake: (() => void) | null = null;
  protected closing = false;
  /** The most bytes the stream buffered in evio at once (tests: backpressure). */
  readonly seen = { maxBuffered: 0 };

  protected constructor(protected readonly window: UnreadWindow) {}

  attach(wake: () => void): void {
    this.wake = wake;
  }

  takeRewind(): number | null {
    const r = this.rewind;
    this.rewind = null;
    return r;
  }
}
