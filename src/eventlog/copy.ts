// Copying records between any two stores: every record as stored, in recnum order, in batches.
// The engine of `evio events copy`, of `evio demo`'s database copy and of imports into stores.
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

async function copyBatches(from: EventStore, to: EventStore, opts: CopyOptions, batchSize: number): Promise<CopyProgress> {
  const p: CopyProgress = { read: 0, written: 0, skipped: 0 };
  if (opts.onProgress) p.total = await from.lastRecnum().catch(() => null);
  let batch: NewEvent[] = [];
  const flush = async () => {
    if (!batch.length) return;
    const res: AppendResult = await to.append(batch, opts.signal ? { signal: opts.signal } : {});
    p.written += res.count;
    p.skipped += res.skipped;
    batch = [];
    opts.onProgress?.(p);
  };
  for await (const row of from.query(dumpQuery(opts.filter), opts.signal ? { signal: opts.signal } : {})) {
    batch.push(row.rec as StoredEvent);
    p.read++;
    if (batch.length >= batchSize) await flush();
  }
  await flush();
  return p;
}
