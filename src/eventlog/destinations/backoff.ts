// Retry delays of the forwarders and of the prog destination's restarts: exponential, from
// `firstMs` doubling to `maxMs` (0.5 s to 30 s by default), and a sleep that a close cuts short.

export interface BackoffOptions {
  firstMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { firstMs: 500, maxMs: 30_000 };

/** The delay before retry number `failures` (1 for the first retry). */
export function backoffDelay(failures: number, o: BackoffOptions = DEFAULT_BACKOFF): number {
  if (failures <= 0) return 0;
  return Math.min(o.maxMs, o.firstMs * 2 ** Math.min(failures - 1, 30));
}

/** Resolves after `ms`, or at once when `signal` aborts (never rejects). */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted || ms <= 0) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
