// Copying records between any two stores: every record as stored, in recnum order, in batches.
// The engine of `evio events copy`, of `evio demo`'s database copy and of imports into stores.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { dumpQuery } from './query.js';
import type { AppendResult, EventFilter, EventStore, NewEvent, StoredEvent } from './types.js';

export interface CopyProgress {
  read: number;
  written: number;
  skipped: number;
  /** About how many records the source holds (its last recnum), for an ETA; null when unknown. */
  total?: number | null;
}

export interface CopyOptions {
  signal?: AbortSignal;
  batchSize?: number;
  filter?: Partial<EventFilter>;
  onProgress?: (p: CopyProgress) => void;
}

/** Records a copy's batch holds at least (but the last): the first write starts after these. */
const MIN_BATCH = 2000;
/** While a batch is written, records read between two turns of the event loop. */
const READ_TURN = 500;

/**
 * Copies records between any two stores, streaming in batches, preserving recnum, uniqueid and
 * so the finish links. Re-running it adds nothing: databases skip recnums already present, a
 * flat file skips recnums not above its last one.
 */
export async function copyStore(from: EventStore, to: EventStore, opts: CopyOptions = {}): Promise<CopyProgress> {
  // A database loads in bulk (into an empty one, indexes built after the rows: bulk-load.ts),
  // in larger transactions.
  if (to.bulkLoad) return to.bulkLoad(() => copyBatches(from, to, opts, opts.batchSize ?? 20_000));
  return copyBatches(from, to, opts, opts.batchSize ?? 5000);
}

async function copyBatches(from: EventStore, to: EventStore, opts: CopyOptions, maxBatch: number): Promise<CopyProgress> {
  const p: CopyProgress = { read: 0, written: 0, skipped: 0 };
  // Batches follow the destination's pace: the first is written once MIN_BATCH records are
  // read; while one is written the next grows (up to maxBatch), and once the write ends the
  // next is written when it holds twice the last one, or at once when more than that was read
  // meanwhile (a slow destination: the reading is ahead). A destination that writes in this
  // thread (SQLite), during which nothing is read, so gets batches doubling up to maxBatch.
  const minBatch = Math.min(maxBatch, MIN_BATCH);
  let batchSize = minBatch;
  if (opts.onProgress) p.total = await from.lastRecnum().catch(() => null);
  let batch: NewEvent[] = [];
  // One batch is written while the next is read (the reading and the database's work overlap);
  // never two appends at once, so the order of the writes is the order of the source.
  let writing: Promise<void> | null = null;
  let failed: { err: unknown } | null = null;
  const settle = async () => {
    if (writing) await writing;
    writing = null;
    if (failed) throw failed.err;
  };
  let busy = false;
  const flush = async (last = false) => {
    if (busy && !last && batch.length < maxBatch) {
      // The source yields its rows in microtasks, which hold back the destination's I/O
      // callbacks (each reply of its transaction) until a whole read buffer is consumed: a
      // turn of the event loop every READ_TURN records lets them in.
      batchSize = Math.min(maxBatch, batch.length + READ_TURN);
      await nextTurn();
      return;
    }
    await settle();
    if (!batch.length) return;
    const b = batch;
    batch = [];
    batchSize = Math.min(maxBatch, READ_TURN);
    busy = true;
    writing = to.append(b, opts.signal ? { signal: opts.signal } : {}).then(
      (res: AppendResult) => {
        busy = false;
        p.written += res.count;
        p.skipped += res.skipped;
        batchSize = Math.max(minBatch, Math.min(maxBatch, Math.max(batch.length + 1, 2 * b.length)));
        opts.onProgress?.(p);
      },
      (err: unknown) => {
        busy = false;
        failed = { err };
      },
    );
  };
  try {
    for await (const rows of from.queryBatches(dumpQuery(opts.filter), opts.signal ? { signal: opts.signal } : {})) {
      for (const row of rows) batch.push(row.rec as StoredEvent);
      p.read += rows.length;
      if (batch.length >= batchSize) await flush();
    }
    await flush(true);
  } finally {
    // A failed read still waits for the write under way (its outcome is the store's state).
    await (writing as Promise<void> | null)?.catch(() => {});
  }
  await settle();
  return p;
}
