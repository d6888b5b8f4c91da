// One forwarder per destination: it reads the spool (the flat-file event log) after its cursor,
// hands the records to its sink in bounded batches, in recnum order, and moves the cursor only
// once the sink has taken a batch. A failure is retried with the same batch after a growing
// delay (0.5 s doubling to 30 s), forever: nothing is skipped, nothing reordered. A crash
// between a delivery and the cursor's write delivers that batch again (at-least-once).
//
// It works only when there is something to do: the receiver calls wake() after each append;
// when idle it also looks every `idleCheckMs` (10 s), for records appended by other processes.
import { isEvioError } from '../../errors.js';
import { backoffDelay, DEFAULT_BACKOFF, sleep, type BackoffOptions } from './backoff.js';
import type { CursorFile } from './cursor.js';
import { RewindPending, type Sink } from './sink.js';
import { DEFAULT_BATCH, type BatchLimits, type Spool } from './spool.js';

export interface ForwarderOptions {
  /** The destination's name: db, odbc, prog, syslog. */
  name: string;
  /** What it delivers to, as shown by status() (never a secret). */
  target: string;
  sink: Sink;
  spool: Spool;
  cursor: CursorFile;
  log: (line: string) => void;
  batch?: BatchLimits;
  backoff?: BackoffOptions;
  /** While idle, look for records other processes appended this often, ms (default 10 s). */
  idleCheckMs?: number;
}

export interface DestinationStatus {
  name: string;
  target: string;
  /** The recnum of the last record delivered (0: none yet; null: the cursor is not read yet). */
  deliveredRecnum: number | null;
  /** Since when (Unix ms) records have been waiting without a pause: unset when caught up. */
  pendingSince?: number;
  /** The last failure, while it lasts (cleared by the next delivery). */
  lastError?: string;
  /** Failures in a row. */
  failures: number;
}

/** What a forwarder has done since it started (tests, metrics). */
export interface ForwarderFigures {
  batches: number;
  records: number;
  /** The largest batch it held: what bounds its memory, however far behind it is. */
  maxBatchRecords: number;
  maxBatchBytes: number;
}

const isPowerOfTwo = (n: number): boolean => n > 0 && (n & (n - 1)) === 0;

export class Forwarder {
  readonly name: string;
  readonly target: string;
  readonly figures: ForwarderFigures = { batches: 0, records: 0, maxBatchRecords: 0, maxBatchBytes: 0 };
  private readonly o: Required<Omit<ForwarderOptions, 'name' | 'target'>>;
  private cursor: number | null = null;
  /** Records up to this recnum are acknowledged (wake(n) of the receiver, or read under the lock). */
  private acked = 0;
  private woken = false;
  private idleWake: (() => void) | null = null;
  private readonly stop = new AbortController();
  private running: Promise<void> | null = null;
  private failures = 0;
  private lastError: string | undefined;
  private pendingSince: number | undefined;

  constructor(opts: ForwarderOptions) {
    this.name = opts.name;
    this.target = opts.target;
    this.o = { batch: DEFAULT_BATCH, backoff: DEFAULT_BACKOFF, idleCheckMs: 10_000, ...opts };
    opts.sink.attach?.(() => this.wake());
  }

  start(): this {
    this.running ??= this.loop();
    return this;
  }

  /**
   * Records were appended: deliver them now. `ackedUpTo`, the last recnum of an acknowledged
   * append, spares the forwarder reading under the writers' lock to know it is acknowledged.
   */
  wake(ackedUpTo?: number): void {
    if (ackedUpTo !== undefined && ackedUpTo > this.acked) this.acked = ackedUpTo;
    this.woken = true;
    this.idleWake?.();
  }

  /** Stops after the batch in hand (a delivery in progress is aborted), then closes the sink. */
  async close(): Promise<void> {
    this.stop.abort();
    this.idleWake?.();
    await this.running;
    await this.o.sink.close();
  }

  status(): DestinationStatus {
    return {
      name: this.name,
      target: this.target,
      deliveredRecnum: this.cursor,
      ...(this.pendingSince !== undefined ? { pendingSince: this.pendingSince } : {}),
      ...(this.lastError !== undefined ? { lastError: this.lastError } : {}),
      failures: this.failures,
    };
  }

  private async loop(): Promise<void> {
    const signal = this.stop.signal;
    while (!signal.aborted) {
      try {
        this.cursor ??= await this.readCursor();
        const moved = await this.step(this.cursor, signal);
        if (this.failures > 0) this.o.log(`destination ${this.name}: delivering again after ${this.failures} failure(s)`);
        this.failures = 0;
        this.lastError = undefined;
        if (!moved) await this.idle();
      } catch (err) {
        if (signal.aborted) break;
        this.failures++;
        const msg = (err as Error).message ?? String(err);
        const delay = backoffDelay(this.failures, this.o.backoff);
        // Logged when it changes, and then at the 1st, 2nd, 4th, 8th ... failure in a row.
        if (msg !== this.lastError || isPowerOfTwo(this.failures)) {
          this.o.log(`destination ${this.name}: ${msg}; failure ${this.failures} in a row, retrying in ${delay / 1000} s`);
        }
        this.lastError = msg;
        await sleep(delay, signal);
      }
    }
  }

  /** The cursor; a damaged one restarts an idempotent destination from the first record. */
  private async readCursor(): Promise<number> {
    try {
      return await this.o.cursor.read();
    } catch (err) {
      if (!isEvioError(err, 'DEST_CURSOR_DAMAGED') || !this.o.sink.idempotent) throw err;
      const aside = await this.o.cursor.setAside();
      this.o.log(`destination ${this.name}: ${err.message}; kept as ${aside}; delivering again from the first record (the destination skips the records it holds)`);
      return 0;
    }
  }

  /** Delivers one batch after `cursor`; false when there was nothing to deliver. */
  private async step(cursor: number, signal: AbortSignal): Promise<boolean> {
    const rewind = this.o.sink.takeRewind();
    if (rewind !== null && rewind < cursor) {
      this.o.log(`destination ${this.name}: its stream broke with records maybe unread; delivering again after recnum ${rewind}`);
      this.cursor = cursor = rewind;
      await this.o.cursor.write(rewind);
    }
    this.woken = false;
    let items = await this.o.spool.read(cursor, this.o.batch, signal);
    if (items.length > 0 && items.at(-1)!.rec.recnum > this.acked) {
      // Some of these may belong to an append still writing: read again when none is.
      items = await this.o.spool.readCommitted(cursor, this.o.batch, signal);
      if (items.length > 0) this.acked = Math.max(this.acked, items.at(-1)!.rec.recnum);
    }
    if (items.length === 0) {
      this.pendingSince = undefined;
      return false;
    }
    this.pendingSince ??= Date.now();
    const bytes = items.reduce((n, i) => n + Buffer.byteLength(i.line) + 1, 0);
    const f = this.figures;
    f.maxBatchRecords = Math.max(f.maxBatchRecords, items.length);
    f.maxBatchBytes = Math.max(f.maxBatchBytes, bytes);
    try {
      await this.o.sink.deliver(items, cursor, signal);
    } catch (err) {
      if (err instanceof RewindPending) return true; // the next step takes the rewind first
      throw err;
    }
    // Delivered: the cursor is written even when a close came meanwhile (no repeat after it).
    f.batches++;
    f.records += items.length;
    const last = items.at(-1)!.rec.recnum;
    // Moved in memory first: if the cursor file cannot be written, delivery goes on (a crash
    // then delivers again from the cursor on disk, which is behind, never ahead).
    this.cursor = last;
    await this.o.cursor.write(last);
    return true;
  }

  private async idle(): Promise<void> {
    if (this.woken || this.stop.signal.aborted) return;
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      this.idleWake = resolve;
      timer = setTimeout(resolve, this.o.idleCheckMs);
      timer.unref();
    });
    clearTimeout(timer);
    this.idleWake = null;
  }
}
