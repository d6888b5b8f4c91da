// A byte stream over an async iterable of text or byte pieces (JSON text; server-sent events,
// whose frames may be one Buffer shared by every follower of a session), pulled only as fast as the client
// reads (backpressure). Destroying it (the client went away) closes the iterable, which closes
// the engine's query behind it — also when no piece had been pulled yet: an async generator
// that never started skips its `finally` on return(), so it is started once and then closed.
import { Readable } from 'node:stream';

const HIGH_WATER_MARK = 64 * 1024;

async function closeIterator(it: AsyncIterator<string | Buffer>, started: boolean): Promise<void> {
  try {
    if (!started) await it.next();
  } catch {
    // the source failed while closing: nothing left to close
  }
  try {
    await it.return?.();
  } catch {
    // already finished or failed
  }
}

export function iterableBody(chunks: AsyncIterable<string | Buffer>): Readable {
  const it = chunks[Symbol.asyncIterator]();
  let started = false;
  let pending = false;
  let finished = false;
  return new Readable({
    highWaterMark: HIGH_WATER_MARK,
    read() {
      if (pending || finished) return;
      pending = true;
      started = true;
      it.next().then(
        (r) => {
          pending = false;
          if (r.done) {
            finished = true;
            this.push(null);
          } else {
            this.push(r.value);
          }
        },
        (err: unknown) => {
          pending = false;
          finished = true;
          this.destroy(err instanceof Error ? err : new Error(String(err)));
        },
      );
    },
    destroy(err, cb) {
      if (!finished) {
        finished = true;
        // In the background: a pending next() completes first (the query sees the aborted signal).
        void closeIterator(it, started);
      }
      cb(err);
    },
  });
}
