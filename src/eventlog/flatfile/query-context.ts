// What one query over one file or a family carries from file to file (file-query.ts) into the
// index scan (index-scan.ts): the query, the shared finish merge, counters, the index settings.
import type { BufferBudget, EventQuery, ScanStats } from '../types.js';
import type { FinishMerge } from './finish-merge.js';
import type { SkipIndex } from './skip-index.js';

export interface IndexSettings {
  /** Use and build skip indexes. */
  enabled: boolean;
  /** Where indexes live: null = beside the data file. */
  cacheDir: string | null;
  /** Time a query may spend building or extending indexes before it scans instead. */
  budgetMs: number;
  blockBytes?: number;
  /** 'auto' (the default): the planner picks the index or a scan per file (index-plan.ts); 'index': the index whenever it is valid (tests). */
  plan?: 'auto' | 'index';
  /** A long-lived process (the service): checked column slices are kept for later queries (index-kept-slices.ts). */
  keepColumns?: boolean;
}

/** Bytes a query read, for the benchmarks. */
export interface ReadCounters {
  /** Bytes read from plain files and compressed bytes read from gzip files. */
  bytes: number;
  /** Files (or their indexed parts) read through their index, and scanned although they had one (the planner's choice). */
  indexed?: number;
  plannedScans?: number;
}

export interface FileQueryContext {
  q: EventQuery;
  merge: FinishMerge;
  stats: ScanStats;
  signal: AbortSignal | undefined;
  maxOpenAccepts: number;
  readSize: number | undefined;
  freq: { value: Uint32Array | null };
  index: IndexSettings;
  /** Indexes loaded by this store, by index path. */
  cache: Map<string, SkipIndex>;
  counters: ReadCounters;
  /** Time left for index builds in this query. */
  budgetLeft: number;
  /** Where the read buffers of this query are reserved (the engine's bound across stores). */
  buffers?: BufferBudget | undefined;
}
