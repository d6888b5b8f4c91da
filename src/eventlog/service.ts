// The event-log operations both doors call (HTTP handlers and the CLI), and the library API an
// embedding server imports: open a store, query, append, delete, copy.
import type { Engine } from '../engine.js';
import { evioError } from '../errors.js';
import { parseEventDelete, parseEventQuery, parseLegacyQuery, type Params } from './query.js';
import { takeReaderSlot } from './reader-slots.js';
import { shapeEvent, shapeLegacyEvent, type ReturnedEvent } from './shape.js';
import { openRequestStore, openStoreByName } from './stores.js';
import type { AppendResult, DeleteResult, EventFilter, EventQuery, EventRow, EventStore, NewEvent, QueryOptions, ScanStats, StoredEvent } from './types.js';

export interface EventAnswer<T> {
  store: EventStore;
  /** Shaped records, streamed. */
  events: AsyncIterable<T>;
  /** This query's counters, final once `events` is exhausted. */
  stats: ScanStats;
}

/** GET /REST/v2.0/events: validated, opened and streamed. Errors before the first record throw. */
export async function queryEvents(engine: Engine, params: Params, signal?: AbortSignal): Promise<EventAnswer<ReturnedEvent>> {
  const tz = engine.settings.timezone;
  const { store: ref, query } = parseEventQuery(params, tz);
  const store = await openRequestStore(engine, ref);
  const stats: ScanStats = { malformed: 0 };
  return { store, stats, events: shapeRows(store, query, { signal, stats, summary: !query.verbose, maxReaders: engine.settings.maxReadersPerStore }, (row) => shapeEvent(row, query.verbose, tz)) };
}

/** GET /REST/events: the legacy flat-file listing. */
export async function queryLegacyEvents(engine: Engine, params: Params, signal?: AbortSignal): Promise<EventAnswer<Record<string, unknown>>> {
  const tz = engine.settings.timezone;
  const { store: ref, query } = parseLegacyQuery(params, tz);
  const store = await openRequestStore(engine, ref);
  const stats: ScanStats = { malformed: 0 };
  return { store, stats, events: shapeRows(store, query, { signal, stats, summary: false, maxReaders: engine.settings.maxReadersPerStore }, (row) => shapeLegacyEvent(row, tz)) };
}

/** A query's shaped rows; it holds one of the store's reader slots from its first row to its end. */
async function* shapeRows<T>(store: EventStore, q: EventQuery, opts: { signal: AbortSignal | undefined; stats: ScanStats; summary: boolean; maxReaders: number }, shape: (r: EventRow) => T): AsyncIterable<T> {
  if (q.limit === 0) return;
  const o: QueryOptions = { stats: opts.stats, summary: opts.summary };
  if (opts.signal) o.signal = opts.signal;
  const release = takeReaderSlot(store, opts.maxReaders);
  try {
    for await (const row of store.query(q, o)) yield shape(row);
  } finally {
    release();
  }
}

/** DELETE /REST/v2.0/events. */
export async function deleteEvents(engine: Engine, params: Params, signal?: AbortSignal): Promise<DeleteResult & { store: string }> {
  const { store: ref, filter } = parseEventDelete(params, engine.settings.timezone);
  const store = await openRequestStore(engine, ref);
  const res = await store.delete(filter, signal ? { signal } : {});
  return { ...res, store: store.name };
}

/** GET /REST/v2.0/events/destinations: where events are configured to go. */
export function eventDestinations(engine: Engine): Record<string, string | null> {
  const s = engine.settings;
  return { db: s.eventdb, ff: s.eventlog, prog: null, odbc: null, syslog: null };
}

export interface CopyProgress {
  read: number;
  written: number;
  skipped: number;
}

export interface CopyOptions {
  signal?: AbortSignal;
  batchSize?: number;
  filter?: Partial<EventFilter>;
  onProgress?: (p: CopyProgress) => void;
}

/** Every record as stored (dump=1), in recnum order: what copy, export and import read. */
export function dumpQuery(filter: Partial<EventFilter> = {}): EventQuery {
  return {
    etypes: null, from: null, to: null, exitFrom: null, exitTo: null, patterns: {}, recnumMin: null, recnumMax: null,
    ...filter,
    dump: true, skip: 0, byteOffset: 0, limit: Number.MAX_SAFE_INTEGER, verbose: true, order: 'recnum', direction: 'asc',
  };
}

/**
 * Copies records between any two stores, streaming in batches, preserving recnum, uniqueid and
 * so the finish links. Re-running it adds nothing: databases skip recnums already present, a
 * flat file skips recnums not above its last one.
 */
export async function copyEvents(from: EventStore, to: EventStore, opts: CopyOptions = {}): Promise<CopyProgress> {
  const batchSize = opts.batchSize ?? 5000;
  const p: CopyProgress = { read: 0, written: 0, skipped: 0 };
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

/** Appends to a named store (`ff:PATH`, `db:PATH`, `pg:NAME|URL`, `odbc:DSN`). */
export async function appendToStore(engine: Engine, storeName: string, events: Iterable<NewEvent> | AsyncIterable<NewEvent>): Promise<AppendResult> {
  const store = await openStoreByName(engine, storeName);
  return store.append(events);
}

export function assertNotAborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw evioError('ABORTED', 'the request was cancelled');
}
