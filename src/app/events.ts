// The event-log use cases both doors call (REST routes, `evio call` and the CLI): query, legacy
// listing, delete, append, copy, destinations. Each takes the call's parameters and its options
// (an abort signal; for the local operator, a store named ff:PATH, db:PATH, pg:NAME|URL or
// odbc:DSN instead of a request's format/file/dsn, which are confined to eventlogdirs).
import type { Engine } from '../engine.js';
import { evioError } from '../errors.js';
import { parseEventDelete, parseEventQuery, parseLegacyQuery, type Params } from '../eventlog/query.js';
import { ReaderBudget, takeReaderSlot } from '../eventlog/reader-slots.js';
import { eachRow } from '../eventlog/row-batches.js';
import { shapeEvent, shapeLegacyEvent, type ReturnedEvent } from '../eventlog/shape.js';
import type { CopyProgress } from '../eventlog/copy.js';
import { NO_LIMIT, newPageEnd, pageBatches, type PageEnd } from '../eventlog/paging.js';
import { formatParamsOf, openRequestStore, openStore, parseStoreName, type StoreSpec } from '../eventlog/stores.js';
import { refuseAuditLogChange, refuseAuditLogWrite } from './audit.js';
import { destinationTargets } from './destination-targets.js';
import { publicPath } from '../paths.js';
import type { AppendResult, DeleteResult, EventQuery, EventRow, EventStore, NewEvent, QueryOptions, ScanStats } from '../eventlog/types.js';

export type { CopyProgress } from '../eventlog/copy.js';
export type { NextPage, PageEnd } from '../eventlog/paging.js';
export type { ReturnedEvent } from '../eventlog/shape.js';
export type { Params } from '../eventlog/query.js';
export type { NewEvent, StoredEvent, EventStore } from '../eventlog/types.js';

export interface CallOptions {
  signal?: AbortSignal | undefined;
  /**
   * The local operator's door: a store by name (ff:PATH, db:PATH, pg:NAME|URL, odbc:DSN), not
   * confined to eventlogdirs. The parameters then must not name format, file or dsn.
   */
  store?: string | undefined;
  /**
   * Without a `limit` parameter, every match (the batch commands: `evio events query`) instead
   * of the REST page size. The answer streams either way.
   */
  everything?: boolean | undefined;
}

/**
 * The parameters to validate and the store to open: a request's (format/file/dsn) or, with
 * `opts.store`, the operator's named store. Reads and deletes never create a store.
 */
function chooseStore(engine: Engine, params: Params, opts: CallOptions): { params: Params; spec: StoreSpec | null } {
  if (opts.store === undefined) return { params, spec: null };
  for (const k of ['format', 'file', 'dsn']) {
    if (params[k] !== undefined) throw evioError('CLI_USAGE', `--${k} cannot be given with a store name (${opts.store}): the name says where the records are`);
  }
  const spec = parseStoreName(engine, opts.store, undefined, { existing: true });
  return { params: { ...params, ...formatParamsOf(spec) }, spec };
}

export interface EventAnswer<T> {
  store: EventStore;
  /**
   * Shaped records, streamed in batches (arrays of a few hundred, never empty): the doors
   * serialise a batch in one synchronous pass. Read this or `events`, not both.
   */
  batches: AsyncIterable<T[]>;
  /** The same records one at a time (a convenience over `batches`). */
  events: AsyncIterable<T>;
  /** This query's counters, final once the answer is exhausted. */
  stats: ScanStats;
  /** Whether `limit` cut the answer and how to continue; final once the answer is exhausted. */
  page: PageEnd;
}

/**
 * GET /REST/v2.0/events, `evio events query`: validated, opened and streamed. Errors before the
 * first record throw; `query` is the validated query (its `limit`, for paging).
 */
export async function queryEvents(engine: Engine, params: Params, opts: CallOptions = {}): Promise<EventAnswer<ReturnedEvent> & { query: EventQuery }> {
  const tz = engine.settings.timezone;
  const chosen = chooseStore(engine, params, opts);
  const { store: ref, query } = parseEventQuery(chosen.params, tz);
  if (opts.everything && chosen.params.limit === undefined) query.limit = NO_LIMIT;
  const spec = chosen.spec && chosen.spec.kind === 'ff' && ref.format === 'ff' && ref.family ? { ...chosen.spec, family: true } : chosen.spec;
  const store = spec ? await openStore(engine, spec) : await openRequestStore(engine, ref);
  const stats: ScanStats = { malformed: 0 };
  const page = newPageEnd();
  const budget = await readerBudget(engine);
  return { store, stats, page, query, ...answerOf(shapeBatches(store, query, { signal: opts.signal, stats, page, summary: !query.verbose, maxPerStore: engine.settings.maxReadersPerStore, budget }, (row) => shapeEvent(row, query.verbose, tz))) };
}

/** GET /REST/events: the legacy flat-file listing. */
export async function queryLegacyEvents(engine: Engine, params: Params, opts: CallOptions = {}): Promise<EventAnswer<Record<string, unknown>>> {
  const tz = engine.settings.timezone;
  const { store: ref, query } = parseLegacyQuery(params, tz);
  const store = await openRequestStore(engine, ref);
  const stats: ScanStats = { malformed: 0 };
  const page = newPageEnd();
  const budget = await readerBudget(engine);
  return { store, stats, page, ...answerOf(shapeBatches(store, query, { signal: opts.signal, stats, page, summary: false, maxPerStore: engine.settings.maxReadersPerStore, budget }, (row) => shapeLegacyEvent(row, tz))) };
}

/**
 * The engine's one budget across all its event stores (maxReaders answers at once, their read
 * buffers within maxReaderBufferBytes): created with the engine's first query.
 */
export function readerBudget(engine: Engine): Promise<ReaderBudget> {
  const s = engine.settings;
  return engine.resource('reader-budget', () => new ReaderBudget({ maxReaders: s.maxReaders, maxBufferBytes: s.maxReaderBufferBytes }));
}

/**
 * Since the process started (metrics): events streamed to callers, counted as they are shaped,
 * and the bytes of flat-file logs the queries read to find them.
 */
export const eventsStreamed = { returned: 0, bytesRead: 0 };

/** An answer's two views of one stream of batches: whichever the caller reads starts it. */
function answerOf<T>(batches: AsyncIterable<T[]>): { batches: AsyncIterable<T[]>; events: AsyncIterable<T> } {
  return { batches, events: eachRow(batches) };
}

/**
 * A query's shaped rows, a store batch at a time (shaped synchronously). From its first row to
 * its end it holds one of the store's reader slots and one of the engine's (maxReaders), and
 * reserves its read buffers from the engine's budget.
 */
async function* shapeBatches<T>(store: EventStore, q: EventQuery, opts: { signal: AbortSignal | undefined; stats: ScanStats; page: PageEnd; summary: boolean; maxPerStore: number; budget: ReaderBudget }, shape: (r: EventRow) => T): AsyncIterable<T[]> {
  if (q.limit === 0) return;
  const o: QueryOptions = { stats: opts.stats, summary: opts.summary, buffers: opts.budget };
  if (opts.signal) o.signal = opts.signal;
  const releaseGlobal = opts.budget.take();
  let release = releaseGlobal;
  try {
    const releaseStore = takeReaderSlot(store, opts.maxPerStore);
    release = () => {
      releaseStore();
      releaseGlobal();
    };
  } catch (err) {
    releaseGlobal();
    throw err;
  }
  try {
    for await (const batch of pageBatches(store, q, o, opts.page)) {
      const shaped = new Array<T>(batch.length);
      for (let i = 0; i < batch.length; i++) shaped[i] = shape(batch[i]!);
      eventsStreamed.returned += batch.length;
      yield shaped;
    }
  } finally {
    release();
    eventsStreamed.bytesRead += opts.stats.bytesRead ?? 0;
  }
}

/** DELETE /REST/v2.0/events, `evio events delete`. */
export async function deleteEvents(engine: Engine, params: Params, opts: CallOptions = {}): Promise<DeleteResult & { store: string }> {
  const chosen = chooseStore(engine, params, opts);
  const { store: ref, filter } = parseEventDelete(chosen.params, engine.settings.timezone);
  const store = chosen.spec ? await openStore(engine, chosen.spec) : await openRequestStore(engine, ref);
  refuseAuditLogChange(engine, store);
  const res = await store.delete(filter, opts.signal ? { signal: opts.signal } : {});
  return { ...res, store: store.name };
}

/**
 * GET /REST/v2.0/events/destinations: where events go — the flat-file event log (`ff`, the
 * spool) and exactly what the forwarders deliver to (event-destinations.ts); null = not configured.
 */
export function eventDestinations(engine: Engine): Record<string, string | null> {
  const t = destinationTargets(engine.settings);
  // An answer names no server path (docs/api.md, "Numbers and paths in answers"): the flat-file
  // log by its name under eventlogdirs (usable as file=), and no password of a database URL.
  return { ...t, ff: t.ff === null ? null : publicPath(engine.settings.eventlogdirs, t.ff), db: t.db === null ? null : t.db.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*):[^@/]*@/i, '$1:***@') };
}

/**
 * `evio events append`: appends records to a named store, creating it (file and schema) when it
 * does not exist yet — appends, copies and imports are the calls that create stores.
 */
export async function appendEvents(engine: Engine, storeName: string, events: Iterable<NewEvent> | AsyncIterable<NewEvent>, opts: { signal?: AbortSignal } = {}): Promise<AppendResult & { store: string }> {
  const spec = parseStoreName(engine, storeName);
  refuseAuditLogWrite(engine, spec);
  const store = await openStore(engine, spec);
  const res = await store.append(events, opts.signal ? { signal: opts.signal } : {});
  return { ...res, store: store.name };
}

export interface CopyRequest {
  /** Store names (ff:PATH, db:PATH, pg:NAME|URL, odbc:DSN); `to` is created when missing. */
  from: string;
  to: string;
  signal?: AbortSignal;
  onProgress?: (p: CopyProgress) => void;
}

/** `evio events copy`, `evio demo`: every record of one store into another; re-runs add nothing. */
export async function copyEvents(engine: Engine, r: CopyRequest): Promise<CopyProgress & { from: string; to: string }> {
  const src = await openStore(engine, parseStoreName(engine, r.from, undefined, { existing: true }));
  const to = parseStoreName(engine, r.to);
  refuseAuditLogWrite(engine, to);
  const dst = await openStore(engine, to);
  const { copyStore } = await import('../eventlog/copy.js');
  const p = await copyStore(src, dst, { ...(r.signal ? { signal: r.signal } : {}), ...(r.onProgress ? { onProgress: r.onProgress } : {}) });
  return { ...p, from: src.name, to: dst.name };
}
