// The event model (DESIGN §2) and the one contract every event store answers (DESIGN §3).
import type { Wildcard } from '../common/wildcard.js';

export type EType = 'A' | 'R' | 'K' | 'F';
export const ETYPES: readonly EType[] = ['A', 'R', 'K', 'F'];

/** A record as stored. Unknown keys are kept and returned by verbose queries. */
export interface StoredEvent {
  recnum: number;
  uniqueid: string;
  etype: EType;
  /** Creation time, Unix seconds (fraction allowed). For F records: the exit time. */
  time: number;
  submituser?: string;
  submithost?: string;
  runuser?: string;
  runhost?: string;
  runcommand?: string;
  runargv?: string[];
  cwd?: string;
  ttyname?: string;
  masterhost?: string;
  iolog?: string;
  reason?: string;
  exitstatus?: string;
  exitcode?: number;
  signal?: number | string;
  [key: string]: unknown;
}

/** A record to append: recnum is assigned by the store when absent. */
export type NewEvent = Omit<StoredEvent, 'recnum'> & { recnum?: number };

/**
 * One answer row of a store, before shaping (shape.ts renders every adapter's rows the same way).
 * `exitstatus`/`exittime` are the merged values with dump=0 (an A/K record's finish, null while
 * none exists; an R record's own exitstatus) and the stored values with dump=1 (an F record's
 * exittime is its own time).
 */
export interface EventRow {
  rec: StoredEvent;
  exitstatus: string | null;
  exittime: number | null;
  /** Flat files: byte position just after this record's line (resume with offset=). */
  offset?: number;
}

export const PATTERN_FIELDS = ['uniqueid', 'submituser', 'submithost', 'runuser', 'runhost', 'runcommand', 'exitstatus'] as const;
export type PatternField = (typeof PATTERN_FIELDS)[number];

export const ORDER_FIELDS = ['recnum', 'uniqueid', 'etype', 'epoch', 'time', 'submituser', 'submithost', 'runuser', 'runhost', 'runcommand', 'exitstatus', 'exittime'] as const;
export type OrderField = (typeof ORDER_FIELDS)[number];

/** The filter part of a query: what a delete takes too. Bounds are inclusive; null = open. */
export interface EventFilter {
  /** Event types to return; null = A, R, K (and F with dump). */
  etypes: EType[] | null;
  from: number | null;
  to: number | null;
  exitFrom: number | null;
  exitTo: number | null;
  /** Wildcards per field; a field given several (a repeated parameter) matches any of them. */
  patterns: Partial<Record<PatternField, readonly Wildcard[]>>;
  recnumMin: number | null;
  recnumMax: number | null;
  /** With dump=1 finish records are separate rows and exit filters see stored values. */
  dump: boolean;
}

/** A validated query, normalised so that every adapter reads the same fields. */
export interface EventQuery extends EventFilter {
  /** Matching records to skip before the first returned one (ff `start`, db `offset`). */
  skip: number;
  /** Flat files only: byte position where the scan starts (0 or a returned record's offset). */
  byteOffset: number;
  limit: number;
  verbose: boolean;
  order: OrderField;
  direction: 'asc' | 'desc';
}

/** Bytes of a read buffer, reserved from a BufferBudget. */
export interface BufferGrant {
  /** Bytes granted (the buffer's size to allocate). */
  readonly bytes: number;
  /** The buffer grew (or shrank) to `size` bytes: charged at once, never waited for. */
  resize(size: number): void;
  /** The buffer is dropped; safe to call more than once. */
  release(): void;
}

/** Where a query's read buffers are reserved (the engine's ReaderBudget, reader-slots.ts). */
export interface BufferBudget {
  /** Up to `want` bytes, at least min(want, MIN_READ_BUFFER); waits while not even that is free. */
  reserve(want: number, signal?: AbortSignal): Promise<BufferGrant>;
}

export interface QueryOptions {
  signal?: AbortSignal;
  /**
   * Read buffers of this query are reserved here (the engine's bound across all stores); a
   * store that holds no read buffer of its own (the SQL stores hold a batch of rows) ignores it.
   */
  buffers?: BufferBudget;
  /**
   * The caller reads only the fields of the non-verbose answer (shapeEvent with verbose=0):
   * recnum, uniqueid, etype, time, the four user/host fields, runcommand and the exit columns.
   * A database store may then answer rows whose `rec` holds only those, read from its indexed
   * columns instead of parsing each stored record (a corrupt record column is then not
   * noticed). Other stores ignore it.
   */
  summary?: boolean;
  /**
   * Counters of this query (malformed lines skipped). Pass one per query when a store serves
   * concurrent queries; without it the store's own `stats` (the last query's) is used.
   */
  stats?: ScanStats;
}

export interface AppendResult {
  /** recnums assigned, in input order. */
  first: number | null;
  last: number | null;
  count: number;
  /** Records not written because a record with that recnum already exists (copy re-runs). */
  skipped: number;
}

export interface DeleteResult {
  deleted: number;
}

export interface ScanStats {
  /** Lines that were not valid events (flat files): skipped, never fatal. */
  malformed: number;
  /**
   * Bytes of the log this query read (flat files: plain bytes, and the compressed bytes of gzip
   * members; a skip index makes it a fraction of the file). Databases scan on their side and
   * leave it unset.
   */
  bytesRead?: number;
}

export type StoreKind = 'ff' | 'sqlite' | 'pg' | 'odbc' | 'memory';

/** Every event store answers this contract; the same query gives the same rows everywhere. */
export interface EventStore {
  readonly kind: StoreKind;
  /** How the store is named to users (`ff:/var/log/evio/events.ndjson`, `pg:central`). */
  readonly name: string;
  /**
   * The answer in batches (row-batches.ts): arrays of rows in answer order, never empty, each
   * the consumer's once yielded. Every layer above handles a batch synchronously; an abort stops
   * the work within one batch. Leaving the loop early closes the scan or cursor.
   */
  queryBatches(q: EventQuery, opts?: QueryOptions): AsyncIterable<EventRow[]>;
  /** The same rows one at a time: a convenience over queryBatches (tests, small answers). */
  query(q: EventQuery, opts?: QueryOptions): AsyncIterable<EventRow>;
  /**
   * Appends in order. Records with a recnum keep it (it must be greater than the last one; on a
   * database a recnum that is already present is skipped, so a repeated copy adds nothing).
   */
  append(events: Iterable<NewEvent> | AsyncIterable<NewEvent>, opts?: QueryOptions): Promise<AppendResult>;
  /**
   * A long load made of many appends (copy, import), where the store can load faster: a
   * database that holds no record at the start builds its secondary indexes after the rows.
   */
  bulkLoad?<T>(work: (load: { emptyAtStart: boolean }) => Promise<T>): Promise<T>;
  /** Deletes what the filter matches, and the finish records of the accepts it deletes; atomic. */
  delete(filter: EventFilter, opts?: QueryOptions): Promise<DeleteResult>;
  /** Highest recnum in the store, or 0 when empty. */
  lastRecnum(): Promise<number>;
  /** Counters from the last query (malformed lines skipped). */
  readonly stats: ScanStats;
  close(): Promise<void>;
}
