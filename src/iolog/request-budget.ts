// The regex time one request may spend in total. A search runs its pattern over many sessions,
// in many worker tasks on several threads at once; a per-batch budget alone lets a pattern that
// costs a millisecond a line run for minutes. Every thread working for the request adds the time
// its regex calls took to one counter in shared memory, and no call starts with more time than
// the request has left, so the whole request stops soon after its budget is spent. The time is
// the wall time of the calls (Node 20 has no per-thread CPU clock).
import { evioError, type EvioError } from '../errors.js';

/** What crosses to a worker thread (structured clone shares the buffer, it does not copy it). */
export interface RegexBudgetShare {
  limitMs: number;
  /** One BigInt64: microseconds of regex time spent so far, by every thread. */
  used: SharedArrayBuffer;
}

export class RegexBudget {
  private readonly used: BigInt64Array;

  constructor(
    readonly limitMs: number,
    private readonly buffer = new SharedArrayBuffer(8),
  ) {
    this.used = new BigInt64Array(buffer);
  }

  static from(share: RegexBudgetShare): RegexBudget {
    return new RegexBudget(share.limitMs, share.used);
  }

  share(): RegexBudgetShare {
    return { limitMs: this.limitMs, used: this.buffer };
  }

  usedMs(): number {
    return Number(Atomics.load(this.used, 0)) / 1000;
  }

  remainingMs(): number {
    return this.limitMs - this.usedMs();
  }

  spent(): boolean {
    return this.remainingMs() <= 0;
  }

  charge(ms: number): void {
    Atomics.add(this.used, 0, BigInt(Math.max(0, Math.round(ms * 1000))));
  }

  /** The answer once the budget is spent (IOLOG_REGEX_TIMEOUT, as for one slow batch). */
  error(source: string): EvioError {
    return evioError(
      'IOLOG_REGEX_TIMEOUT',
      `the regular expression /${source.slice(0, 100)}/ used the whole regex time budget of this request (${Math.round(this.usedMs())} ms spent, ${Math.round(this.limitMs)} ms allowed); simplify it or narrow the search`,
    );
  }
}
