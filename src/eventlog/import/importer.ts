// `evio events import`: a sudo event log into any event store, idempotently (docs/jobs.md).
//
// Three passes, so that nothing depends on having seen the future:
// 1. scan the source: count, time range, where it stops (truncated or damaged), the exits whose
//    accept is not in it, and — text logs of sudo 1.9.13 — the full session IDs that only the
//    exit lines carry;
// 2. look in the target: the accepts of those orphan exits, and (range mode) the import keys
//    already stored in the source's time range;
// 3. read the source again (up to the same byte), map, drop what the target already has, append
//    in batches (each batch one append: one lock and fsync on a flat file, one transaction on
//    a database).
// Re-running after any interruption adds exactly what is missing: a record is only ever skipped
// because a record with its import_key is stored. Imports into one store are serialised by a
// job lock, so two runs cannot both decide that a record is missing.
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { evioError } from '../../errors.js';
import { FileLock } from '../flatfile/index.js';
import type { EType, EventStore } from '../types.js';
import { findStoredAccepts, KeySet, loadImportKeys, windowImportKeys } from './existing-keys.js';
import { openSource } from './line-source.js';
import { SudoJsonMapper } from './map-json.js';
import { SudoTextMapper } from './map-text.js';
import { sha1Hex } from './record-fields.js';
import { emptyJsonReport, readSudoJson, type SudoJsonReport } from './sudo-json-reader.js';
import { emptyTextReport, readSudoText, type SudoTextReport } from './sudo-text-reader.js';
import { defaultMapContext, type AlertPolicy, type BadEvent, type ImportFormat, type ImportRecord, type MapContext, type MappedEvent, type ReadStop } from './types.js';

export interface ImportProgress {
  phase: 'scan' | 'import';
  bytes: number;
  totalBytes: number;
  events: number;
  imported: number;
  present: number;
}

export interface ImportOptions {
  format: ImportFormat;
  file: string;
  store: EventStore;
  /** Zone of text-log dates. Default UTC. */
  timezone?: string;
  /** Text logs: host of records whose line names none. */
  host?: string | null;
  /** Text logs: year of dates logged without one. */
  year?: number | null;
  /** Text logs: the sudo iolog_dir that TSIDs are relative to. */
  iologDir?: string | null;
  alerts?: AlertPolicy;
  batchSize?: number;
  /** range (one query, for flat files) or window (a query per batch, for databases). Default by store kind. */
  dedupe?: 'range' | 'window';
  /** Folder of the job lock that serialises imports into one store; null = no lock. */
  lockDir?: string | null;
  lockTimeoutMs?: number;
  signal?: AbortSignal;
  onProgress?: (p: ImportProgress) => void;
}

export interface ImportReport {
  source: string;
  format: ImportFormat;
  /** sudo-json: pretty, compact or cee; sudo-text: file, syslog or mixed. */
  framing: string | null;
  store: string;
  /** Bytes of the source that were read (its size when the import began). */
  bytes: number;
  /** Byte offset just after the last whole event. */
  endOffset: number;
  /** Events read from the source, by sudo kind. */
  events: Record<string, number>;
  /** Records appended, by etype. */
  imported: Record<EType, number>;
  importedTotal: number;
  /** Events whose record the store already had (an earlier import of the same data). */
  alreadyPresent: number;
  skipped: { alerts: number; unknownKinds: number; noTime: number; badLines: number; otherLines: number; badEvents: number };
  /** Exits whose accept is neither in the source nor in the store: stored without user and command. */
  unjoinedExits: number;
  firstRecnum: number | null;
  lastRecnum: number | null;
  /** Where reading stopped before the end of the data; null when every byte was read. */
  stop: ReadStop | null;
  /** A line that was skipped as not a valid event (compact and syslog framings), the first one. */
  firstBadLine: ReadStop | null;
  /** An event skipped as not an object or nested too deep (skipped.badEvents), the first one. */
  firstBadEvent: BadEvent | null;
  unterminated: boolean;
}

function emptyImported(): Record<EType, number> {
  return { A: 0, R: 0, K: 0, F: 0 };
}

interface SourceRun {
  events: AsyncIterable<MappedEvent>;
  finish(): { framing: string | null; endOffset: number; stop: ReadStop | null; badLines: number; otherLines: number; badEvents: number; firstBadLine: ReadStop | null; firstBadEvent: BadEvent | null; unterminated: boolean };
}

function openRun(opts: ImportOptions, ctx: MapContext, limit: number, onBytes: (b: number) => void): SourceRun {
  const lineOpts = { limit, signal: opts.signal, onBytes };
  if (opts.format === 'sudo-json') {
    const report: SudoJsonReport = emptyJsonReport();
    const mapper = new SudoJsonMapper(ctx);
    return {
      events: (async function* () {
        for await (const ev of readSudoJson(opts.file, report, lineOpts)) yield mapper.map(ev);
      })(),
      finish: () => ({ ...report, framing: report.framing }),
    };
  }
  const report: SudoTextReport = emptyTextReport();
  const mapper = new SudoTextMapper(ctx);
  return {
    events: (async function* () {
      for await (const r of readSudoText(opts.file, report, lineOpts)) yield mapper.map(r);
    })(),
    finish: () => ({
      framing: report.records === 0 ? null : report.syslogRecords === 0 ? 'file' : report.fileRecords === 0 ? 'syslog' : 'mixed',
      endOffset: report.endOffset,
      stop: report.stop,
      badLines: report.orphanContinuations,
      otherLines: report.otherLines,
      badEvents: 0,
      firstBadLine: null,
      firstBadEvent: null,
      unterminated: false,
    }),
  };
}

async function withImportLock<T>(opts: ImportOptions, fn: () => Promise<T>): Promise<T> {
  if (!opts.lockDir) return fn();
  await mkdir(opts.lockDir, { recursive: true });
  const lock = new FileLock(join(resolve(opts.lockDir), `import-${sha1Hex(opts.store.name).slice(0, 16)}`), { timeoutMs: opts.lockTimeoutMs ?? 10_000 });
  return lock.withLock(fn, opts.signal);
}

export async function importSudoLog(opts: ImportOptions): Promise<ImportReport> {
  // A database loads in bulk: into an empty one, with its indexes built after the rows, and
  // nothing to look up in it (bulk-load.ts).
  const { store } = opts;
  return withImportLock(opts, () => (store.bulkLoad ? store.bulkLoad((load) => runImport(opts, load.emptyAtStart)) : runImport(opts, false)));
}

async function runImport(opts: ImportOptions, emptyAtStart: boolean): Promise<ImportReport> {
  const { size, mtimeMs, fh } = await openSource(opts.file);
  await fh.close();
  const ctx = defaultMapContext({
    alerts: opts.alerts ?? 'skip',
    host: opts.host ?? null,
    timezone: opts.timezone ?? 'UTC',
    year: opts.year ?? null,
    mtimeMs,
    iologDir: opts.iologDir ?? null,
  });
  const report: ImportReport = {
    source: resolve(opts.file),
    format: opts.format,
    framing: null,
    store: opts.store.name,
    bytes: size,
    endOffset: 0,
    events: {},
    imported: emptyImported(),
    importedTotal: 0,
    alreadyPresent: 0,
    skipped: { alerts: 0, unknownKinds: 0, noTime: 0, badLines: 0, otherLines: 0, badEvents: 0 },
    unjoinedExits: 0,
    firstRecnum: null,
    lastRecnum: null,
    stop: null,
    firstBadLine: null,
    firstBadEvent: null,
    unterminated: false,
  };
  const progress: ImportProgress = { phase: 'scan', bytes: 0, totalBytes: size, events: 0, imported: 0, present: 0 };
  const tick = (bytes: number) => {
    progress.bytes = bytes;
    opts.onProgress?.(progress);
  };

  // Pass 1: scan.
  let minTime = Infinity;
  let maxTime = -Infinity;
  const orphans = new Set<string>();
  const scan = openRun(opts, ctx, size, tick);
  for await (const m of scan.events) {
    report.events[m.kind] = (report.events[m.kind] ?? 0) + 1;
    progress.events++;
    if (m.skip === 'alert') report.skipped.alerts++;
    else if (m.skip === 'unknown-kind') report.skipped.unknownKinds++;
    else if (m.skip === 'no-time') report.skipped.noTime++;
    if (m.orphanExit !== undefined && orphans.size < 100_000) orphans.add(m.orphanExit);
    if (m.record) {
      minTime = Math.min(minTime, m.record.time);
      maxTime = Math.max(maxTime, m.record.time);
    }
  }
  const scanned = scan.finish();
  const sudoEvents = ['accept', 'reject', 'exit', 'alert'].reduce((n, k) => n + (report.events[k] ?? 0), 0);
  const unrecognised = scanned.otherLines + scanned.badLines + scanned.badEvents + report.skipped.unknownKinds > 0 || (scanned.stop !== null && !scanned.stop.truncated);
  if (sudoEvents === 0 && unrecognised) {
    throw evioError('IMPORT_NOT_RECOGNISED', `${opts.file} holds no ${opts.format === 'sudo-json' ? 'sudo JSON events (pretty, compact or @cee: syslog framing)' : 'sudo text log records'}`);
  }
  Object.assign(report, {
    framing: scanned.framing,
    endOffset: scanned.endOffset,
    stop: scanned.stop,
    firstBadLine: scanned.firstBadLine,
    firstBadEvent: scanned.firstBadEvent,
    unterminated: scanned.unterminated,
  });
  report.skipped.badLines = scanned.badLines;
  report.skipped.otherLines = scanned.otherLines;
  report.skipped.badEvents = scanned.badEvents;

  // Pass 2: what the target has.
  // An empty store at the start (under the job lock) holds nothing of the source: no look-ups.
  if (!emptyAtStart) ctx.storeAccepts = await findStoredAccepts(opts.store, orphans, opts.signal);
  report.unjoinedExits = [...orphans].filter((u) => !ctx.storeAccepts.has(u)).length;
  const mode = emptyAtStart ? 'none' : (opts.dedupe ?? (opts.store.kind === 'ff' || opts.store.kind === 'memory' ? 'range' : 'window'));
  const known = new KeySet();
  if (mode === 'range' && minTime <= maxTime) await loadImportKeys(opts.store, minTime, maxTime, known, opts.signal);

  // Pass 3: import what is missing, in source order.
  progress.phase = 'import';
  progress.bytes = 0;
  progress.totalBytes = scanned.endOffset;
  const batchSize = opts.batchSize ?? 2000;
  let batch: Array<{ key: string; record: ImportRecord }> = [];
  const flush = async () => {
    if (batch.length === 0) return;
    let keep = batch;
    if (mode === 'window') {
      let lo = Infinity;
      let hi = -Infinity;
      for (const b of batch) {
        lo = Math.min(lo, b.record.time);
        hi = Math.max(hi, b.record.time);
      }
      const present = await windowImportKeys(opts.store, lo, hi, opts.signal);
      keep = batch.filter((b) => !present.has(b.key));
      report.alreadyPresent += batch.length - keep.length;
      progress.present = report.alreadyPresent;
    }
    batch = [];
    if (keep.length === 0) return;
    const res = await opts.store.append(keep.map((b) => b.record), opts.signal ? { signal: opts.signal } : {});
    for (const b of keep) report.imported[b.record.etype]++;
    report.importedTotal += res.count;
    report.firstRecnum ??= res.first;
    if (res.last !== null) report.lastRecnum = res.last;
    progress.imported = report.importedTotal;
    opts.onProgress?.(progress);
  };
  // In window (and none) mode, keys seen in this run (not yet stored) dedupe within the source itself.
  const seenThisRun = mode === 'range' ? known : new KeySet();
  const run = openRun(opts, ctx, scanned.endOffset, tick);
  for await (const m of run.events) {
    if (!m.record) continue;
    if (!seenThisRun.add(m.key)) {
      report.alreadyPresent++;
      progress.present = report.alreadyPresent;
      continue;
    }
    batch.push({ key: m.key, record: m.record });
    if (batch.length >= batchSize) await flush();
  }
  await flush();
  return report;
}
