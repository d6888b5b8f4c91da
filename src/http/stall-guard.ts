// Cuts a streamed answer whose client has stopped reading. Backpressure already stops the
// producer when the socket is full, but a client that never reads would otherwise keep the
// connection, its socket buffers and the query behind it for ever. A response counts as
// stalled while it waits for the socket to drain; the wait is checked a few times per timeout
// (one timer per streamed answer, no work per chunk).
import type { ServerResponse } from 'node:http';

/** Checks per timeout: the cut happens between 1 and 1 + 1/CHECKS timeouts after the last progress. */
const CHECKS = 4;

/**
 * Watches `res` until it finishes or closes; when it has waited for the client to drain the
 * socket for `timeoutMs`, destroys it (which aborts the request's work) and calls `onStall`.
 */
export function guardStall(res: ServerResponse, timeoutMs: number, onStall: () => void): void {
  let waitingSince: number | null = null;
  const progress = () => {
    waitingSince = null;
  };
  const timer = setInterval(() => {
    if (!res.writableNeedDrain) {
      waitingSince = null;
      return;
    }
    const now = Date.now();
    waitingSince ??= now;
    if (now - waitingSince >= timeoutMs) {
      stop();
      onStall();
      res.destroy();
    }
  }, Math.max(10, Math.floor(timeoutMs / CHECKS)));
  timer.unref();
  function stop(): void {
    clearInterval(timer);
    res.off('drain', progress);
  }
  res.on('drain', progress);
  res.once('close', stop);
  res.once('finish', stop);
}
