// Bounds on the answers the event stores stream at once. Each streamed answer holds a file
// descriptor and a read buffer (flat file) or a batch of rows (SQL) for as long as its client
// takes to read it; without a bound, many slow clients multiply that.
//
// Two bounds:
// - per store (maxReadersPerStore): the count lives beside the store object, which the engine
//   keeps once per store;
// - across all stores (ReaderBudget, one per engine): answers at once (maxReaders) and the bytes
//   the flat-file answers' read buffers hold (maxReaderBufferBytes). A reader reserves its buffer
//   before its first read: it gets what it wants while the total allows, less (down to
//   MIN_READ_BUFFER) when the total is near the bound, and waits — paused, until another answer
//   ends or its own is aborted — when not even that is left. MIN_READ_BUFFER is kept back for
//   every reader place (maxReaders) not holding a buffer, so that while no buffer has grown, a
//   reader the count admits never waits (a trivial query is not held up by paused ones). A
//   buffer that must grow for a long line grows without waiting (each reader's growth is bounded
//   by the longest line it reads, maxLineBytes), so readers never wait on each other while
//   holding a buffer; the readers after it may then wait.
import { evioError } from '../errors.js';
import type { BufferBudget, BufferGrant, EventStore } from './types.js';

export type { BufferBudget, BufferGrant } from './types.js';

const active = new WeakMap<EventStore, number>();

/**
 * Takes one of the store's `max` reader slots (0 = no bound) and returns its release, which is
 * safe to call more than once. Throws STORE_READERS_BUSY when every slot is taken.
 */
export function takeReaderSlot(store: EventStore, max: number): () => void {
  const n = active.get(store) ?? 0;
  if (max > 0 && n >= max) {
    throw evioError('STORE_READERS_BUSY', `${store.name} already streams ${n} answers (maxReadersPerStore ${max}); retry shortly`);
  }
  active.set(store, n + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    active.set(store, (active.get(store) ?? 1) - 1);
  };
}

/** Answers the store streams now (tests, metrics). */
export function activeReaders(store: EventStore): number {
  return active.get(store) ?? 0;
}

/** The smallest read buffer a reader is given when the byte budget is near its bound. */
export const MIN_READ_BUFFER = 64 << 10;

export interface ReaderBudgetLimits {
  /** Answers streamed at once across all stores (0 = no bound). */
  maxReaders: number;
  /** Bytes of read buffers held by all answers at once (0 = no bound). */
  maxBufferBytes: number;
}

/** One engine's budget across all its stores: answers at once, and the bytes their buffers hold. */
export class ReaderBudget implements BufferBudget {
  /** Answers streaming now. */
  readers = 0;
  /** Bytes of read buffers reserved now. */
  bufferBytes = 0;
  /** The most answers streaming at once so far (tests, metrics). */
  peakReaders = 0;
  /** Buffers reserved and not released. */
  private holders = 0;
  private readonly waiters: Array<{ min: number; want: number; grant: (g: BufferGrant) => void }> = [];

  constructor(readonly limits: ReaderBudgetLimits) {}

  /** Readers waiting for buffer bytes now. */
  get waiting(): number {
    return this.waiters.length;
  }

  /** Takes one answer's place; throws READERS_BUSY when maxReaders answers stream already. */
  take(): () => void {
    const max = this.limits.maxReaders;
    if (max > 0 && this.readers >= max) {
      throw evioError('READERS_BUSY', `the service already streams ${this.readers} answers across its event stores (maxReaders ${max}); retry shortly`);
    }
    this.readers++;
    if (this.readers > this.peakReaders) this.peakReaders = this.readers;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.readers--;
    };
  }

  reserve(want: number, signal?: AbortSignal): Promise<BufferGrant> {
    signal?.throwIfAborted();
    const min = Math.min(want, MIN_READ_BUFFER);
    // First come, first served: nobody overtakes a reader that waits.
    if (this.waiters.length === 0) {
      const n = this.grantable(min, want);
      if (n > 0) return Promise.resolve(this.grant(n));
    }
    return new Promise((resolve, reject) => {
      const w = {
        min,
        want,
        grant: (g: BufferGrant) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(g);
        },
      };
      const onAbort = () => {
        const i = this.waiters.indexOf(w);
        if (i !== -1) this.waiters.splice(i, 1);
        reject(signal!.reason);
        this.wakeWaiters();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(w);
    });
  }

  /**
   * Bytes that can be granted now: up to `want`, at least `min`, leaving MIN_READ_BUFFER for
   * every other reader place without a buffer; 0 when not even `min` fits.
   */
  private grantable(min: number, want: number): number {
    const max = this.limits.maxBufferBytes;
    if (max <= 0) return want;
    const others = this.limits.maxReaders > 0 ? Math.max(0, this.limits.maxReaders - this.holders - 1) : 0;
    const n = Math.min(want, max - this.bufferBytes - others * MIN_READ_BUFFER);
    return n >= min ? n : 0;
  }

  private grant(bytes: number): BufferGrant {
    this.bufferBytes += bytes;
    this.holders++;
    let held = bytes;
    let released = false;
    return {
      bytes,
      resize: (size: number) => {
        if (released) return;
        this.bufferBytes += size - held;
        held = size;
        this.wakeWaiters();
      },
      release: () => {
        if (released) return;
        released = true;
        this.bufferBytes -= held;
        this.holders--;
        this.wakeWaiters();
      },
    };
  }

  private wakeWaiters(): void {
    while (this.waiters.length > 0) {
      const w = this.waiters[0]!;
      const n = this.grantable(w.min, w.want);
      if (n === 0) return;
      this.waiters.shift();
      w.grant(this.grant(n));
    }
  }

  async close(): Promise<void> {
    // Nothing to close: the engine keeps its budget as one of its resources.
  }
}
