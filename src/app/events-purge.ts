// Purge: delete the records a filter matches and, with iologs, the I/O logs their K records
// reference (`evio events purge`, DELETE /REST/v2.0/events/iologs). This composes the two
// engines, which know nothing of each other (DESIGN §1): event stores from src/eventlog, the
// cached session index from src/iolog.
//
// Order, for safety (docs/jobs.md): the intent journal is written first; then the I/O logs are
// removed while the matching records are read; then the records are deleted; then the journal is
// removed. An interruption at any point leaves records whose files may be gone — never files
// whose records are gone — and the journal that says so: the next purge of that store finishes
// the interrupted one first (same filter, same cut-off), which finds the files already gone and
// deletes the records. Databases delete in batches of recnum ranges (one transaction each); a
// flat file in one atomic rewrite.
import { join } from 'node:path';
import type { Engine } from '../engine.js';
import { evioError } from '../errors.js';
import { parseEventDelete, type Params } from '../eventlog/query.js';
import { formatParamsOf, openStore, parseStoreName } from '../eventlog/stores.js';
import { parseQueryDate } from '../eventlog/time.js';
import { parseDuration } from '../common/units.js';
import type { EventFilter, EventQuery, EventStore } from '../eventlog/types.js';
import { refuseAuditLogChange } from './audit.js';
import { removeIologsFromIndex } from './iolog.js';
import { checkSession, measureTree, removeTree } from '../iolog/removal.js';
import { jobLock, jobsDir, readJson, removeDurableScratch, removeFile, storeTag, writeJsonDurably } from '../common/job-files.js';
import { ExactTotal } from './exact-number.js';

/**
 * The store and the delete parameters of `evio events purge STORE [filters] [--older-than AGE]`:
 * an age becomes an absolute cut-off (the earlier of it and `to`), so that the journal of an
 * interrupted run means the same thing when the next run finishes it.
 */
export async function purgeTarget(engine: Engine, storeName: string, filters: Params, olderThan?: string): Promise<{ store: EventStore; params: Params }> {
  const spec = parseStoreName(engine, storeName, undefined, { existing: true });
  const params: Params = { ...filters, ...formatParamsOf(spec) };
  if (olderThan !== undefined) {
    let cutoff = Math.floor(Date.now() / 1000) - parseDuration(olderThan);
    const to = typeof filters.to === 'string' ? filters.to : undefined;
    if (to !== undefined && to !== '') cutoff = Math.min(cutoff, parseQueryDate(to, engine.settings.timezone, 'to', true));
    params.to = String(cutoff);
  }
  return { store: await openStore(engine, spec), params };
}

export interface PurgeOptions {
  store: EventStore;
  /** The delete parameters as the REST call takes them (format/file/dsn, filters, all). */
  params: Params;
  /** Also remove the I/O logs of the matching K records. */
  iologs: boolean;
  /** Leave the records (DELETE events/iologs on a flat file: only the I/O logs go). */
  keepRecords: boolean;
  dryRun: boolean;
  /** Records per database delete transaction. Default 5000. */
  batchSize?: number;
  signal?: AbortSignal;
  onProgress?: (p: PurgeProgress) => void;
  /** Each I/O log handled, as it is handled (listing). */
  onSession?: (s: SessionOutcome) => void;
}

export interface PurgeProgress {
  phase: 'plan' | 'records';
  rows: number;
  sessions: number;
  deleted: number;
}

export interface SessionOutcome {
  recnum: number;
  path: string;
  action: 'removed' | 'would-remove' | 'missing' | 'refused' | 'failed';
  reason?: string;
  files: number;
  bytes: number;
}

export interface PurgeReport {
  store: string;
  dryRun: boolean;
  /** Records deleted (dry run: that would be deleted), finish records of deleted accepts included (exact-number.ts: a string past 2^53 - 1). */
  records: number | string;
  /** The records were left on purpose (DELETE events/iologs on a flat file). */
  recordsKept: boolean;
  /** I/O logs removed (dry run: that would be), and what they held. */
  sessions: number;
  files: number;
  directories: number;
  /** Summed over the sessions: exact (exact-number.ts: a string past 2^53 - 1). */
  bytes: number | string;
  /** I/O logs referenced but already absent (a re-run, or removed by hand). */
  missing: number;
  /** I/O logs not removed because they are outside the roots, symlinks, or not sessions. */
  refused: number;
  refusedPaths: Array<{ path: string; reason: string }>;
  /**
   * Records kept because the I/O log they reference was refused (dry run: that would be kept):
   * a purge never deletes a record whose I/O log it leaves, so the record still leads to it.
   */
  kept: number;
  /** Rows removed from the cached I/O log index. */
  indexRemoved: number;
  /** An interrupted purge of this store that this run finished first (dry run: that it would finish). */
  interrupted: { startedAt: string; params: Params; report: PurgeReport | null } | null;
}

interface Journal {
  store: string;
  params: Params;
  iologs: boolean;
  keepRecords: boolean;
  startedAt: string;
  pid: number;
}

const MAX_LISTED = 100;

function emptyReport(store: string, dryRun: boolean, keepRecords: boolean): PurgeReport {
  return { store, dryRun, records: 0, recordsKept: keepRecords, sessions: 0, files: 0, directories: 0, bytes: 0, missing: 0, refused: 0, refusedPaths: [], kept: 0, indexRemoved: 0, interrupted: null };
}

function journalPath(engine: Engine, store: EventStore): string {
  return join(jobsDir(engine.settings.home), `purge-${storeTag(store.name)}.json`);
}

/** The query that reads what a delete with `filter` removes, as the store sees it. */
function planQuery(filter: EventFilter): EventQuery {
  return { ...filter, skip: 0, byteOffset: 0, limit: Number.MAX_SAFE_INTEGER, verbose: true, order: 'recnum', direction: 'asc' };
}

const batchedKinds = new Set(['sqlite', 'pg', 'odbc']);

/** One pass of a purge: files while reading the matching records, then the records. */
async function execute(engine: Engine, opts: PurgeOptions, params: Params, iologs: boolean, keepRecords: boolean): Promise<PurgeReport> {
  const { store, dryRun } = opts;
  const { filter } = parseEventDelete(params, engine.settings.timezone);
  const report = emptyReport(store.name, dryRun, keepRecords);
  const roots = engine.settings.iologdirs;
  const batchSize = opts.batchSize ?? 5000;
  const progress: PurgeProgress = { phase: 'plan', rows: 0, sessions: 0, deleted: 0 };
  const handled = new Set<string>();
  // I/O logs refused, and the recnums of the records that reference them: those records stay.
  const refusedIologs = new Set<string>();
  const kept: number[] = [];
  // The uniqueids of kept accepts: their finish records (rows of their own with dump=1) stay too.
  const keptIds = new Set<string>();
  const countedFinishes = new Set<string>();
  const ranges: Array<[number, number]> = [];
  let rangeStart: number | null = null;
  let rangeRows = 0;
  let lastRecnum = 0;
  let planned = 0;
  const failures: string[] = [];
  let unindexed: string[] = [];
  const flushIndex = () => {
    if (unindexed.length) report.indexRemoved += removeIologsFromIndex(engine, unindexed);
    unindexed = [];
  };
  const qopts = opts.signal ? { signal: opts.signal } : {};

  for await (const row of store.query(planQuery(filter), qopts)) {
    const rec = row.rec;
    progress.rows++;
    if (iologs && rec.etype === 'K' && typeof rec.iolog === 'string' && rec.iolog !== '' && !handled.has(rec.iolog)) {
      handled.add(rec.iolog);
      const outcome = await handleSession(roots, rec.recnum, rec.iolog, dryRun);
      switch (outcome.action) {
        case 'removed':
        case 'would-remove':
          report.sessions++;
          report.files += outcome.files;
          report.bytes = new ExactTotal(report.bytes).add(outcome.bytes).value;
          report.directories += outcome.directories;
          if (outcome.action === 'removed') {
            unindexed.push(outcome.path);
            if (unindexed.length >= 500) flushIndex();
          }
          break;
        case 'missing':
          report.missing++;
          // A re-run after an interruption: the index may still list it.
          if (!dryRun) unindexed.push(outcome.path);
          break;
        case 'refused':
          report.refused++;
          refusedIologs.add(rec.iolog);
          if (report.refusedPaths.length < MAX_LISTED) report.refusedPaths.push({ path: outcome.path, reason: outcome.reason! });
          break;
        case 'failed':
          failures.push(`${outcome.path}: ${outcome.reason}`);
          break;
      }
      progress.sessions = report.sessions;
      opts.onSession?.({ recnum: outcome.recnum, path: outcome.path, action: outcome.action, files: outcome.files, bytes: outcome.bytes, ...(outcome.reason ? { reason: outcome.reason } : {}) });
    }
    const refusedK = iologs && rec.etype === 'K' && typeof rec.iolog === 'string' && refusedIologs.has(rec.iolog);
    if (refusedK || (rec.etype === 'F' && keptIds.has(rec.uniqueid))) {
      // Kept with its I/O log: the delete ranges go around it.
      if (refusedK) keptIds.add(rec.uniqueid);
      kept.push(rec.recnum);
      report.kept++;
      if (rangeStart !== null) ranges.push([rangeStart, lastRecnum]);
      rangeStart = null;
      rangeRows = 0;
      if (progress.rows % 1000 === 0) opts.onProgress?.(progress);
      continue;
    }
    planned++;
    // With dump=0 the finish of a deleted accept goes too (once, even if two accepts share it).
    if (!filter.dump && (rec.etype === 'A' || rec.etype === 'K') && row.exittime !== null) {
      const id = `${rec.uniqueid}\u0000${row.exittime}`;
      if (!countedFinishes.has(id)) {
        countedFinishes.add(id);
        planned++;
      }
    }
    rangeStart ??= rec.recnum;
    lastRecnum = rec.recnum;
    if (++rangeRows >= batchSize) {
      ranges.push([rangeStart, rec.recnum]);
      rangeStart = null;
      rangeRows = 0;
    }
    if (progress.rows % 1000 === 0) opts.onProgress?.(progress);
  }
  if (rangeStart !== null) ranges.push([rangeStart, lastRecnum]);
  if (!dryRun) flushIndex();
  if (failures.length) {
    throw evioError('PURGE_IOLOG_FAILED', `${failures.length} I/O log(s) could not be removed, so no record was deleted: ${failures.slice(0, 5).join('; ')}`);
  }
  if (keepRecords) return report;
  if (dryRun) {
    report.records = planned;
    return report;
  }
  progress.phase = 'records';
  opts.onProgress?.(progress);
  const lastKept = kept.length ? kept[kept.length - 1]! : -1;
  if (!kept.length && (!batchedKinds.has(store.kind) || ranges.length <= 1)) {
    report.records = (await store.delete(filter, qopts)).deleted;
  } else {
    // Records kept for their refused I/O logs lie between the ranges: every store deletes range by range then.
    for (let i = 0; i < ranges.length; i++) {
      const [lo, hi] = ranges[i]!;
      const last = i === ranges.length - 1 && lo > lastKept;
      const part: EventFilter = {
        ...filter,
        recnumMin: Math.max(filter.recnumMin ?? lo, lo),
        // The last range stays open above: records that came to match since the plan go too.
        recnumMax: last ? filter.recnumMax : Math.min(filter.recnumMax ?? hi, hi),
      };
      report.records = new ExactTotal(report.records).add((await store.delete(part, qopts)).deleted).value;
      progress.deleted = Number(report.records);
      opts.onProgress?.(progress);
    }
  }
  return report;
}

async function handleSession(roots: readonly string[], recnum: number, iolog: string, dryRun: boolean): Promise<SessionOutcome & { directories: number }> {
  const base = { recnum, files: 0, bytes: 0, directories: 0 };
  const check = await checkSession(roots, iolog);
  if (!check.ok) {
    return check.missing ? { ...base, path: check.path, action: 'missing' } : { ...base, path: check.path, action: 'refused', reason: check.reason };
  }
  try {
    const size = dryRun ? await measureTree(check.remove) : await removeTree(check.remove);
    return { ...base, ...size, path: check.path, action: dryRun ? 'would-remove' : 'removed' };
  } catch (err) {
    return { ...base, path: check.path, action: 'failed', reason: (err as Error).message };
  }
}

/**
 * Runs a purge on an opened store. A real run holds the store's purge lock, finishes an
 * interrupted purge first, and journals its own intent until it is done.
 */
export async function purgeEvents(engine: Engine, opts: PurgeOptions): Promise<PurgeReport> {
  // Parse before anything happens, so a bad filter never leaves a journal behind.
  parseEventDelete(opts.params, engine.settings.timezone);
  refuseAuditLogChange(engine, opts.store);
  const jpath = journalPath(engine, opts.store);
  if (opts.dryRun) {
    const pending = await readJson<Journal>(jpath);
    const report = await execute(engine, opts, opts.params, opts.iologs, opts.keepRecords);
    if (pending) report.interrupted = { startedAt: pending.startedAt, params: pending.params, report: null };
    return report;
  }
  const lock = await jobLock(engine.settings.home, 'purge', opts.store.name, engine.settings.lockTimeoutMs);
  return lock.withLock(async () => {
    let interrupted: PurgeReport['interrupted'] = null;
    await removeDurableScratch(jpath); // a journal write a killed purge left half done
    const pending = await readJson<Journal>(jpath);
    if (pending) {
      const done = await execute(engine, opts, pending.params, pending.iologs, pending.keepRecords);
      await removeFile(jpath);
      interrupted = { startedAt: pending.startedAt, params: pending.params, report: done };
    }
    const journal: Journal = { store: opts.store.name, params: opts.params, iologs: opts.iologs, keepRecords: opts.keepRecords, startedAt: new Date().toISOString(), pid: process.pid };
    await writeJsonDurably(jpath, journal);
    const report = await execute(engine, opts, opts.params, opts.iologs, opts.keepRecords);
    await removeFile(jpath);
    report.interrupted = interrupted;
    return report;
  }, opts.signal);
}
