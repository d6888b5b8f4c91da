// Rows move between the layers of a query in batches (issue 25, point 1): a store yields arrays
// of rows, and every layer above — the page cut, shaping, the JSON or NDJSON text — handles a
// batch in one synchronous pass. An async step per row per layer (five generator layers) was
// half the CPU of a page (BENCHMARKS.md, section 4's profiles: `runMicrotasks`). ripgrep's
// searcher and pino move their lines the same way. A batch belongs to its consumer once
// yielded (the store makes a new array for the next one), and is never empty.

/** Rows a store gathers before it yields, where it decides (memory store, index scans). */
export const BATCH_ROWS = 256;

/** One row at a time, over batches: the public per-record convenience. */
export async function* eachRow<T>(batches: AsyncIterable<readonly T[]>): AsyncGenerator<T> {
  for await (const batch of batches) yield* batch;
}

/** Batches of at most `size` items of an array (the memory store's answer). */
export function* chunked<T>(items: readonly T[], size = BATCH_ROWS): Generator<T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}
