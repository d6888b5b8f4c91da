// The spool the forwarders read: the flat-file event log (settings `eventlog`) with its rotated
// files, as one log (a rotation while a destination is down moves undelivered records into a
// rotated file; they are still read from there). Records are read in recnum order after a
// recnum, in bounded batches: a forwarder never holds more than one batch, however far behind.
//
// Only acknowledged records are passed on. An append writes its lines before its fsync and cuts
// them back if a write or the fsync fails (docs/flatfile.md, "Crash safety"), so a record seen in
// the file is not yet a record. The forwarder knows the recnums acknowledged so far (the
// receiver's wake(lastRecnum)); a batch reaching past them is read again holding the writers'
// lock, when no append is half-way.
import { isEvioError } from '../../errors.js';
import { FAMILY_BASE } from '../flatfile/file-query.js';
import { FlatFileStore } from '../flatfile/flatfile-store.js';
import type { IndexSettings } from '../flatfile/query-context.js';
import { dumpQuery } from '../query.js';
import type { ScanStats } from '../types.js';
import type { DeliveryItem } from './sink.js';

export interface BatchLimits {
  /** Records per batch. */
  records: number;
  /** Bytes of NDJSON per batch (a batch ends with the record that reaches it). */
  bytes: number;
}

export const DEFAULT_BATCH: BatchLimits = { records: 1000, bytes: 1 << 20 };

export interface Spool {
  readonly path: string;
  /** Records after recnum `after`, in order, within `limits`; [] when none (or no log yet). */
  read(after: number, limits: BatchLimits, signal: AbortSignal): Promise<DeliveryItem[]>;
  /** The same, read holding the writers' lock: every record returned is acknowledged. */
  readCommitted(after: number, limits: BatchLimits, signal: AbortSignal): Promise<DeliveryItem[]>;
  /** The highest recnum of the live file (0 when empty or missing): what the lag is measured to. */
  lastRecnum(): Promise<number>;
  close(): Promise<void>;
}

export interface SpoolOptions {
  path: string;
  lockTimeoutMs: number;
  maxOpenAccepts: number;
  /** The skip-index settings (flatfileIndex, flatfileIndexDir); the spool uses indexes, never builds them. */
  index: Omit<IndexSettings, 'budgetMs'>;
}

export function openSpool(o: SpoolOptions): Spool {
  // No index building: a read may hold the writers' lock, and building may take a second.
  const store = new FlatFileStore({ path: o.path, family: true, lockTimeoutMs: o.lockTimeoutMs, maxOpenAccepts: o.maxOpenAccepts, index: { ...o.index, budgetMs: 0 } });
  const read = async (after: number, limits: BatchLimits, signal: AbortSignal): Promise<DeliveryItem[]> => {
    const q = dumpQuery({ recnumMin: after + 1 });
    // "After this record" through the whole family: right across rotations and rewrites.
    q.byteOffset = after > 0 ? FAMILY_BASE + after : 0;
    q.limit = limits.records;
    const stats: ScanStats = { malformed: 0 };
    const items: DeliveryItem[] = [];
    let bytes = 0;
    try {
      read: for await (const rows of store.queryBatches(q, { signal, stats })) {
        for (const row of rows) {
          const line = JSON.stringify(row.rec);
          items.push({ rec: row.rec, line });
          bytes += Buffer.byteLength(line) + 1;
          if (bytes >= limits.bytes) break read;
        }
      }
    } catch (err) {
      if (isEvioError(err, 'STORE_NOT_FOUND')) return [];
      throw err;
    }
    return items;
  };
  return {
    path: store.path,
    read,
    async readCommitted(after, limits, signal) {
      try {
        return await store.whileWritersWait(() => read(after, limits, signal), signal);
      } catch (err) {
        if (isEvioError(err, 'STORE_NOT_FOUND')) return [];
        throw err;
      }
    },
    lastRecnum: () => store.lastRecnum(),
    close: () => store.close(),
  };
}
