// A bounded fan-out of tasks whose results are wanted in input order (a search over sessions).

/**
 * Runs tasks over `inputs` with at most `width` running, yielding results in input order. A new
 * task starts as soon as any task ends, not only when the oldest does: one long session at the
 * head must not leave the other workers idle. At most `window` results wait for their turn.
 */
export async function* ordered<I, O>(inputs: readonly I[], width: number, run: (i: I, signal: AbortSignal) => Promise<O>, signal?: AbortSignal, window = width * 4): AsyncGenerator<O> {
  const ac = new AbortController();
  const onAbort = () => ac.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  const queue: Promise<O>[] = []; // started and not yet yielded, in input order
  let running = 0;
  let next = 0;
  const fill = () => {
    while (running < width && queue.length < window && next < inputs.length && !ac.signal.aborted) {
      const p = run(inputs[next++]!, ac.signal);
      running++;
      const settled = () => {
        running--;
        fill();
      };
      p.then(settled, settled); // also marks a failure as handled: it is thrown when its turn comes
      queue.push(p);
    }
  };
  try {
    fill();
    while (queue.length > 0) {
      const r = await queue[0]!;
      queue.shift();
      fill();
      yield r;
    }
  } finally {
    ac.abort(); // an error, an early stop or the caller's abort ends every outstanding task
    signal?.removeEventListener('abort', onAbort);
  }
}
