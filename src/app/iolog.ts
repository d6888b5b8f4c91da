// The I/O-log use cases both doors (REST routes, `evio call`, the CLI) call: they read and
// validate parameters, then hand the heavy work (chunking, search, replay, screens, indexing)
// to the worker pool. The main thread only routes; an export streams on it (file I/O only).
import type { Writable } from 'node:stream';
import type { Engine } from '../engine.js';
import type { ReplayResult } from '../iolog/replay.js';
import type { ScreenResult } from '../iolog/screen.js';
import type { CommandsResult } from '../iolog/commands.js';
import { evioError } from '../errors.js';
import { iologPool, type IologPool } from '../worker/pool.js';
import { isBuildNeeded, type BuildNeededAnswer } from '../worker/iolog-task-types.js';
import { formatIsoInZone } from '../common/time-zone.js';
import type { ChunkResult } from '../iolog/chunk.js';
import type { TailHint } from '../iolog/seek.js';
import type { Download } from '../iolog/download.js';
import { removeSessionsFromIndex, type CachedRecord } from '../iolog/index-db.js';
import type { IndexStats } from '../iolog/index-update.js';
import { CHUNK_DEFAULT_LEN, CHUNK_MAX_LEN, DETAIL_LINES_TOTAL, REGEX_BUDGET_MS_PER_SESSION, SEARCH_MAX_SESSIONS, SEARCH_SESSIONS_PER_TASK } from '../iolog/limits.js';
import { parseListParams } from '../iolog/list-query.js';
import { ordered } from '../iolog/ordered-tasks.js';
import type { DirListing } from '../iolog/listing.js';
import type { Variables } from '../iolog/log-info.js';
import { flag, nonNegativeInt, required, single, type Params } from '../iolog/params.js';
import { RegexBudget } from '../iolog/request-budget.js';
import type { SearchMatch, SessionSearchResult } from '../iolog/search.js';
import type { SeekBuildStats, SeekScreenResult } from '../iolog/seek.js';
import { lstat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { dropFromSeekIndex, seekIndexPath } from '../iolog/seek-store.js';
import { castCacheDirForSeek, dropV1Caches } from '../iolog/cast-v1-store.js';
import type { EventSession } from '../iolog/event-session.js';
import { redactParam, redactViewFor, type IologAccess } from './redact-view.js';

export type { IologAccess } from './redact-view.js';

export type { Params } from '../iolog/params.js';

function roots(engine: Engine): string[] {
  return [...engine.settings.iologdirs];
}

/**
 * GET /REST/iolog?file=&start=&len= (or at=SECONDS instead of start): one chunk of the session's
 * data stream; `at` starts it at the position of that time (the screen call's `offset`). Read
 * from the nearest keyframe of the seek index (seek.ts), so a chunk deep in a big session costs
 * no pass over what comes before it.
 */
export async function iologChunk(engine: Engine, params: Params, signal?: AbortSignal, access: IologAccess = {}, follow?: { from: TailHint | null }): Promise<ChunkResult & { at?: number; tail?: TailHint }> {
  const file = required(params, 'file');
  const hasAt = single(params, 'at') !== undefined && single(params, 'at') !== '';
  const hasStart = single(params, 'start') !== undefined && single(params, 'start') !== '';
  if (hasAt && hasStart) throw evioError('IOLOG_START_AND_AT', 'give start (a byte position) or at (seconds), not both');
  const start = nonNegativeInt(params, 'start', 0);
  const len = nonNegativeInt(params, 'len', CHUNK_DEFAULT_LEN, CHUNK_MAX_LEN);
  const pool = await iologPool(engine);
  const at = hasAt ? { atMs: atMilliseconds(params) } : { start };
  const seekFile = seekIndexPath(engine.settings.iologcache);
  return builtFirst(pool, roots(engine), file, seekFile, (build) => pool.run('seekChunk', { roots: roots(engine), seekFile, file, len, ...at, build, ...redactParam(engine, access), ...(follow ? { follow } : {}) }, signal), signal);
}

/**
 * A seek read in the interactive lane that builds nothing there: when the session's seek index
 * or v1 cache must be built first, it is built in the heavy lane (pool.ts) and the read asked
 * again (which may then only extend what grew meanwhile).
 */
async function builtFirst<T>(pool: IologPool, sessionRoots: string[], file: string, seekFile: string, read: (build: boolean) => Promise<T | BuildNeededAnswer>, signal?: AbortSignal): Promise<T> {
  const first = await read(false);
  if (!isBuildNeeded(first)) return first;
  await pool.run('seekIndex', { roots: sessionRoots, seekFile, file }, signal);
  const again = await read(true);
  if (isBuildNeeded(again)) throw evioError('INTERNAL', 'a seek read asked for a build after one');
  return again;
}

/** GET /REST/iolog/variables?file= */
export async function iologVariables(engine: Engine, params: Params, signal?: AbortSignal): Promise<{ file: string; variables: Variables }> {
  const file = required(params, 'file');
  const pool = await iologPool(engine);
  const seekFile = seekIndexPath(engine.settings.iologcache);
  // An asciicast v1 file is read through its cache, built in the heavy lane (builtFirst).
  return builtFirst(pool, roots(engine), file, seekFile, (build) => pool.run('variables', { roots: roots(engine), file, castCache: castCacheDirForSeek(seekFile), build }, signal), signal);
}

/** GET /REST/iolog?path=[&filter=] */
export async function iologListDirectory(engine: Engine, params: Params, signal?: AbortSignal): Promise<DirListing> {
  const path = required(params, 'path');
  const filter = single(params, 'filter');
  const pool = await iologPool(engine);
  return pool.run('listDir', { roots: roots(engine), path, ...(filter ? { filter, budgetMs: engine.settings.searchBudgetMs } : {}) }, signal);
}

/** GET /REST/iologfile?file= : the file as is, or a session directory as tar. */
export async function iologDownload(engine: Engine, params: Params, signal?: AbortSignal, access: IologAccess = {}): Promise<Download> {
  const file = required(params, 'file');
  // The files as recorded cannot be masked (compressed streams, a tar): refused to a redacted caller.
  if (redactViewFor(engine, access)) throw evioError('IOLOG_DOWNLOAD_REDACTED', `file "${file.slice(0, 100)}": this caller sees redacted data, and a download gives the bytes as recorded`);
  // tar-stream is loaded by the one call that packs a directory, not by every CLI command.
  const { openDownload } = await import('../iolog/download.js');
  return openDownload(roots(engine), file, signal);
}

export interface SearchRun {
  /** Sessions the glob named. */
  sessions: number;
  detail: boolean;
  /** One result per session, in walk order; stops all outstanding tasks when left early. */
  results: AsyncGenerator<SessionSearchResult>;
}

/** GET /REST/iolog/search?file=GLOB&query=KEYWORD:REGEX[&detail=1] */
export async function iologSearch(engine: Engine, params: Params, signal?: AbortSignal, access: IologAccess = {}): Promise<SearchRun> {
  const glob = required(params, 'file');
  // The query parser and the glob check are loaded by a search, not by every CLI command.
  const [{ parseSearchQuery }, { checkGlob }] = await Promise.all([import('../iolog/search.js'), import('../iolog/walk.js')]);
  const query = parseSearchQuery(required(params, 'query'));
  const detail = flag(params, 'detail');
  checkGlob(glob);
  const pool = await iologPool(engine);
  const found = await pool.run('expandGlob', { roots: roots(engine), pattern: glob, max: SEARCH_MAX_SESSIONS }, signal);
  if (found.more) throw evioError('IOLOG_TOO_MANY_SESSIONS', `file "${glob.slice(0, 100)}" names more than ${SEARCH_MAX_SESSIONS} sessions`);
  const narrowed = await narrowBySessionList(engine, params, glob, signal);
  if (narrowed) found.sessions = found.sessions.filter((x) => narrowed.has(x.path));
  // Sessions go to the workers in small groups (fewer round trips, and a worker overlaps the
  // sessions of a group), small enough that every worker gets several groups.
  const per = Math.max(1, Math.min(SEARCH_SESSIONS_PER_TASK, Math.floor(found.sessions.length / (pool.size * 4))));
  const groups = chunked(found.sessions, per);
  // One regex budget for the whole request, charged by every task on every thread. Once it is
  // spent no further group starts; the tasks still running stop at their next batch of lines
  // (none may run past what is left), and the first failure aborts the rest.
  const budget = new RegexBudget(engine.settings.searchBudgetMs + found.sessions.length * REGEX_BUDGET_MS_PER_SESSION);
  const share = budget.share();
  const redact = redactParam(engine, access);
  const batches = ordered(
    groups,
    pool.size * 2,
    (sessions, sig) => {
      if (budget.spent()) return Promise.reject(budget.error(query.regex));
      return pool.run('searchSessions', { sessions, streams: query.streams, regex: query.regex, flags: query.flags ?? '', detail, hiddenInput: engine.settings.searchHiddenInput, budget: share, ...redact }, sig);
    },
    signal,
  );
  return { sessions: found.sessions.length, detail, results: flatten(batches) };
}

/** The session-list filters a search may be narrowed by (who, where, when). */
export const SEARCH_NARROWING = ['from', 'to', 'submituser', 'submithost', 'runuser', 'runhost'] as const;

/**
 * A search's sessions narrowed by the cached list's filters (user, host, date): the paths of the
 * indexed sessions the glob names that match them; null when no such filter is given. The index
 * is brought up to date first, unless it is current.
 */
async function narrowBySessionList(engine: Engine, params: Params, glob: string, signal?: AbortSignal): Promise<Set<string> | null> {
  const given: Params = {};
  for (const k of SEARCH_NARROWING) if (params[k] !== undefined && params[k] !== '') given[k] = params[k];
  if (!Object.keys(given).length) return null;
  const query = { ...parseListParams({ ...given, path: glob }, engine.settings.timezone), start: 0, len: SEARCH_MAX_SESSIONS };
  await freshIndex(engine, false, signal);
  const pool = await iologPool(engine);
  const rows: CachedRecord[] = await pool.run('listQuery', { indexFile: engine.settings.iologcache, query }, signal);
  return new Set(rows.map((r) => r.logpath));
}

function chunked<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

async function* flatten<T>(groups: AsyncGenerator<T[]>): AsyncGenerator<T> {
  for await (const g of groups) yield* g;
}

/** The answer a search gives, assembled while the results stream (bounded detail). */
export class SearchAnswer {
  readonly detail: Array<SearchMatch & { file: string }> = [];
  readonly warnings: string[] = [];
  truncated = false;

  /** Records one session's result; returns its path when it matched. */
  add(r: SessionSearchResult): string | null {
    for (const w of r.warnings) if (this.warnings.length < 100) this.warnings.push(w);
    if (!r.matched) return null;
    for (const m of r.matches) {
      if (this.detail.length >= DETAIL_LINES_TOTAL) {
        this.truncated = true;
        break;
      }
      this.detail.push({ file: r.path, ...m });
    }
    return r.path;
  }

  tail(withDetail: boolean): Record<string, unknown> {
    const t: Record<string, unknown> = {};
    if (withDetail) t.detail = this.detail;
    if (this.truncated) t.truncated = true;
    if (this.warnings.length) t.warnings = this.warnings;
    return t;
  }
}

/** The paths of the matching sessions, feeding `answer` with detail and warnings. */
export async function* matchingPaths(run: SearchRun, answer: SearchAnswer): AsyncGenerator<string> {
  for await (const r of run.results) {
    const p = answer.add(r);
    if (p !== null) yield p;
  }
}

/** Serialises index updates of one engine. */
class IndexGuard {
  running: Promise<IndexStats> | null = null;
  async close(): Promise<void> {
    await this.running?.catch(() => undefined);
  }
}

/** `evio iolog index`: updates the cached list incrementally (rebuild = start from empty). */
export async function iologIndex(engine: Engine, opts: { rebuild?: boolean } = {}, signal?: AbortSignal): Promise<IndexStats> {
  const guard = await engine.resource('iolog:index', () => new IndexGuard());
  while (guard.running) await guard.running.catch(() => undefined);
  const pool = await iologPool(engine);
  const p = pool.run('indexUpdate', { roots: roots(engine), indexFile: engine.settings.iologcache, rebuild: opts.rebuild ?? false }, signal);
  guard.running = p;
  try {
    return await p;
  } finally {
    if (guard.running === p) guard.running = null;
  }
}

/**
 * Brings the index up to date unless it is current: the directories above the sessions are
 * unchanged since the last update (a stat each, no walk; see iolog/index-freshness.ts), so a
 * session created or removed since is listed (or gone) at the next call. `force` walks anyway.
 */
async function freshIndex(engine: Engine, force: boolean, signal?: AbortSignal): Promise<void> {
  const guard = await engine.resource('iolog:index', () => new IndexGuard());
  if (guard.running && !force) {
    await guard.running.catch(() => undefined);
    return;
  }
  const pool = await iologPool(engine);
  if (!force && (await pool.run('indexCurrent', { roots: roots(engine), indexFile: engine.settings.iologcache }, signal))) return;
  await iologIndex(engine, {}, signal);
}

/**
 * A cached record as listed: createtime (Unix ms) also as ISO 8601 in the configured zone, and
 * its end (start + duration, Unix ms; null when the length could not be read) likewise.
 */
export type ListedSession = CachedRecord & {
  createtime_iso: string;
  end: number | null;
  end_iso: string | null;
  /**
   * Still being recorded (sudo or the log server writing it: its timing file keeps a write bit).
   * How long it has run is `createtime` to now: not a field, so that an answer stays the same
   * from one call to the next while nothing changes (paging compares pages).
   */
  live: boolean;
};

/** Whether a listed session is still being written: its timing file keeps a write bit (asciicast files: never). */
async function liveMark(logpath: string): Promise<{ live: boolean }> {
  try {
    const st = await lstat(join(logpath, 'timing'));
    return { live: st.isFile() && (st.mode & 0o222) !== 0 };
  } catch {
    // not a sudo session directory, or gone
    return { live: false };
  }
}

/**
 * GET /REST/iolog/list : the cached list, brought up to date first unless it is current
 * (refresh=1 forces a full update, refresh=0 skips the check).
 */
export async function iologList(engine: Engine, params: Params, signal?: AbortSignal): Promise<ListedSession[]> {
  return (await iologListPage(engine, params, signal)).result;
}

export interface ListPage {
  result: ListedSession[];
  /** More sessions match than `len`; `next` holds the parameters of the next page. */
  more: boolean;
  next: { start: number } | null;
}

/** The cached list as a page that says whether `len` cut it: one row more is read to know. */
export async function iologListPage(engine: Engine, params: Params, signal?: AbortSignal): Promise<ListPage> {
  const tz = engine.settings.timezone;
  const query = parseListParams(params, tz);
  const refresh = single(params, 'refresh');
  if (refresh !== undefined && refresh !== '' && refresh !== '0' && refresh !== '1') flag(params, 'refresh');
  const pool = await iologPool(engine);
  if (refresh !== '0') await freshIndex(engine, refresh === '1', signal);
  if (query.len === 0) return { result: [], more: false, next: null };
  const rows: CachedRecord[] = await pool.run('listQuery', { indexFile: engine.settings.iologcache, query: { ...query, len: query.len + 1 } }, signal);
  const more = rows.length > query.len;
  if (more) rows.length = query.len;
  // The live mark is read when answering (one stat a row): completion changes no directory's
  // mtime, so the cached list would not see it.
  const result = await Promise.all(
    rows.map(async (r) => {
      const end = r.duration >= 0 ? r.createtime + r.duration : null;
      return { ...r, createtime_iso: formatIsoInZone(r.createtime / 1000, tz), end, end_iso: end === null ? null : formatIsoInZone(end / 1000, tz), ...(await liveMark(r.logpath)) };
    }),
  );
  return { result, more, next: more ? { start: query.start + query.len } : null };
}

/**
 * Removes sessions (and everything below a removed directory) from the cached list; for the
 * purge job, after it deleted I/O logs. Returns the number of index rows removed.
 */
export function removeIologsFromIndex(engine: Engine, paths: readonly string[]): number {
  const n = removeSessionsFromIndex(engine.settings.iologcache, paths);
  // The seek index is a cache: a failure to clean it only leaves rows no session matches.
  try {
    dropFromSeekIndex(seekIndexPath(engine.settings.iologcache), paths.map((p) => resolve(p)));
    dropV1Caches(castCacheDirForSeek(seekIndexPath(engine.settings.iologcache)), paths.map((p) => resolve(p)));
  } catch {
    // ignored
  }
  return n;
}

/** GET /REST/iolog/replay, `evio iolog replay`: validated here, tokenized in the pool. */
export async function iologReplay(engine: Engine, params: Params, signal?: AbortSignal, access: IologAccess = {}): Promise<ReplayResult> {
  const file = required(params, 'file');
  const term = single(params, 'term');
  const start = nonNegativeInt(params, 'start', 0);
  const len = Math.min(nonNegativeInt(params, 'len', CHUNK_DEFAULT_LEN), CHUNK_MAX_LEN);
  const pool = await iologPool(engine);
  const seekFile = seekIndexPath(engine.settings.iologcache);
  // An asciicast v1 file is read through its cache, built in the heavy lane (builtFirst).
  return builtFirst(pool, roots(engine), file, seekFile, (build) => pool.run('replay', { roots: roots(engine), file, start, len, ...(term ? { term } : {}), ...redactParam(engine, access), cast: { dir: castCacheDirForSeek(seekFile), build } }, signal), signal);
}

/** `at`: seconds from the session's start, a decimal number of 0 or more (absent: the end). */
function atMilliseconds(params: Params): number {
  const v = single(params, 'at');
  if (v === undefined || v === '') return Infinity;
  const m = /^(\d{1,12})(?:\.(\d{1,9}))?$/.exec(v);
  if (!m) throw evioError('IOLOG_BAD_NUMBER', `at="${v.slice(0, 20)}" is not a number of seconds (e.g. 1.5)`);
  // Exact: "1.005" is 1005 ms, not 1004.9999999999999 (a search hit's `at` must include its write).
  return Number(m[1]) * 1000 + Number((m[2] ?? '').padEnd(9, '0')) / 1e6;
}

/**
 * GET /REST/iolog/screen, `evio iolog screen`: the screen at a moment (default: the end), from
 * the nearest keyframe of the session's seek index (built on the first seek, in the pool).
 */
export async function iologScreen(engine: Engine, params: Params, signal?: AbortSignal, access: IologAccess = {}): Promise<SeekScreenResult> {
  const file = required(params, 'file');
  const atMs = atMilliseconds(params);
  const cells = flag(params, 'cells');
  const cellRows = cellRowsParam(params);
  const pool = await iologPool(engine);
  const seekFile = seekIndexPath(engine.settings.iologcache);
  return builtFirst(pool, roots(engine), file, seekFile, (build) => pool.run('seekScreen', { roots: roots(engine), seekFile, file, atMs, cells, build, ...(cellRows ? { cellRows } : {}), ...redactParam(engine, access) }, signal), signal);
}

/** `cellrows=FIRST-LAST`: the rows (0-based, inclusive) whose cells a screen answer holds. */
function cellRowsParam(params: Params): { first: number; last: number } | undefined {
  const v = single(params, 'cellrows');
  if (v === undefined || v === '') return undefined;
  const m = /^(\d{1,4})-(\d{1,4})$/.exec(v);
  if (!m || Number(m[1]) > Number(m[2])) throw evioError('IOLOG_SCREEN_CELLS_TOO_MANY', `cellrows="${v.slice(0, 20)}" is not FIRST-LAST (0-based row numbers, e.g. 0-99)`);
  return { first: Number(m[1]), last: Number(m[2]) };
}

/** The screen at a moment replayed from the session's start, without the seek index (the benchmark's baseline). */
export async function iologScreenFromStart(engine: Engine, params: Params, signal?: AbortSignal, access: IologAccess = {}): Promise<ScreenResult> {
  const file = required(params, 'file');
  const atMs = atMilliseconds(params);
  const pool = await iologPool(engine);
  return pool.run('screen', { roots: roots(engine), file, atMs, ...redactParam(engine, access) }, signal);
}

/**
 * GET /REST/iolog/session?iolog=PATH[&time=SECONDS] : the session a keystroke (K) event's `iolog` field points
 * at (resolved inside the I/O log roots; IOLOG_EVENT_SESSION_MISSING when it is not there), with
 * its path relative to its root (usable as file=) and its identity (uniqueid, users, command).
 */
export async function iologEventSession(engine: Engine, params: Params): Promise<EventSession> {
  const iolog = required(params, 'iolog');
  const time = single(params, 'time');
  let near: number | undefined;
  if (time !== undefined && time !== '') {
    near = Number(time);
    if (!Number.isFinite(near)) throw evioError('IOLOG_BAD_NUMBER', `time="${time.slice(0, 40)}" is not a number of seconds (the event's time field)`);
  }
  const { resolveEventSession } = await import('../iolog/event-session.js');
  return resolveEventSession(roots(engine), iolog, near);
}

/**
 * Whether a session is still being written: a sudo session whose timing file keeps a write bit
 * (sudo and the log server clear them all when the session ends; sudoreplay -F follows on the
 * same sign). asciicast files are taken as complete.
 */
export async function iologSessionLive(engine: Engine, params: Params): Promise<boolean> {
  const file = required(params, 'file');
  const { openSession } = await import('../iolog/locate.js');
  const session = await openSession(roots(engine), file);
  return !(await session.complete());
}

/** Builds or extends one session's seek index now (otherwise the first seek does). */
export async function iologSeekIndex(engine: Engine, params: Params, signal?: AbortSignal): Promise<SeekBuildStats & { file: string; bytes: number; duration: number }> {
  const file = required(params, 'file');
  const pool = await iologPool(engine);
  return pool.run('seekIndex', { roots: roots(engine), seekFile: seekIndexPath(engine.settings.iologcache), file }, signal);
}

/**
 * GET /REST/iolog/commands, `evio iolog commands`: the command timeline of a session (the lines
 * typed, when, where, the next prompt, the session's exit), built in the interactive lane.
 */
export async function iologCommands(engine: Engine, params: Params, signal?: AbortSignal, access: IologAccess = {}): Promise<CommandsResult> {
  const file = required(params, 'file');
  const pool = await iologPool(engine);
  const seekFile = seekIndexPath(engine.settings.iologcache);
  return builtFirst(pool, roots(engine), file, seekFile, (build) => pool.run('commands', { roots: roots(engine), file, hidden: engine.settings.searchHiddenInput, ...redactParam(engine, access), cast: { dir: castCacheDirForSeek(seekFile), build } }, signal), signal);
}

/**
 * `evio iolog export --format asciicast|text` and GET /iolog/export: a session as an asciicast file (v2; v3 for a v3
 * cast) or as a text transcript (export-text.ts), streamed to the
 * writable `open` gives — called only once the request is valid and the session open, so a bad
 * call leaves no empty output file behind. Output events pass the terminal filter (a player
 * writes them to a terminal) unless `raw=1`.
 */
export async function iologExport(engine: Engine, params: Params, open: () => Writable, signal?: AbortSignal, access: IologAccess = {}, warnings?: string[]): Promise<Writable> {
  const format = single(params, 'format');
  if (format !== 'asciicast' && format !== 'text') throw evioError('IOLOG_BAD_EXPORT_FORMAT', `format ${String(format ?? '(missing)')}: use asciicast or text`);
  const file = required(params, 'file');
  const raw = flag(params, 'raw');
  const { openSession } = await import('../iolog/locate.js');
  // Read through the redaction rules unless the caller may see the data as recorded.
  const session = await openSession(roots(engine), file, redactViewFor(engine, access));
  if (format === 'text') {
    const { exportText } = await import('../iolog/export-text.js');
    const out = open();
    await exportText(session, out, signal);
    return out;
  }
  const { exportAsciicast } = await import('../iolog/export-asciicast.js');
  const out = open();
  await exportAsciicast(session, out, signal, { raw });
  // A damaged session is exported as far as it reads; `warnings` receives why it stops short.
  warnings?.push(...session.warnings);
  return out;
}
