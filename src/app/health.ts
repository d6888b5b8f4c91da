// What the operator's probes read: readiness of the configured stores and of the worker pool
// (GET /readyz), and the figures behind GET /metrics. Every answer names a part by what it is
// ("eventlog folder", "database central"), never by its path or URL: the probes need no key.
// Since anyone may call GET /readyz, one probe runs at a time per engine (calls during it wait
// for its verdict) and a verdict is kept for READY_CACHE_MS; a PostgreSQL database is probed
// through its store's pool, so a flood of calls opens no database connections of its own.
import { constants } from 'node:fs';
import { access, open, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Engine } from '../engine.js';
import { pingPostgresStore } from '../eventlog/stores.js';
import { redactUrl } from '../eventlog/postgres/pg-url.js';
import { iologPool, type LaneStats } from '../worker/pool.js';
import { eventsStreamed } from './events.js';

/** Each probe of a part gives up after this long. */
export const READY_TIMEOUT_MS = 2000;
/** How long a verdict of GET /readyz is answered again without probing anew. */
export const READY_CACHE_MS = 1000;

/** Part name -> "ok", "absent" (optional and not created yet) or a short reason. */
export type Readiness = Record<string, string>;

const isUrl = (s: string): boolean => /^[a-z]+:\/\//i.test(s);
const isPostgresUrl = (s: string): boolean => /^postgres(ql)?:\/\//i.test(s);

function reason(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[A-Z0-9_]{1,24}$/.test(code) ? code : 'error';
}

/** A folder evio writes into: it must exist and be readable and writable. */
async function folderReady(dir: string): Promise<string> {
  try {
    if (!(await stat(dir)).isDirectory()) return 'not a directory';
    await access(dir, constants.R_OK | constants.W_OK | constants.X_OK);
    return 'ok';
  } catch (err) {
    return reason(err);
  }
}

/**
 * An SQLite database file, checked when it exists: a regular file, readable and writable, with
 * the SQLite header. Read without blocking (a FIFO in its place never parks a thread).
 */
async function sqliteReady(file: string): Promise<string> {
  try {
    const st = await stat(file).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return null;
      throw err;
    });
    if (!st) return 'absent';
    if (!st.isFile()) return 'not a regular file';
    await access(file, constants.R_OK | constants.W_OK);
    if (st.size === 0) return 'ok'; // created, schema not written yet
    const fh = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const head = Buffer.alloc(16);
      await fh.read(head, 0, 16, 0);
      return head.toString('latin1') === 'SQLite format 3\u0000' ? 'ok' : 'not an SQLite database';
    } finally {
      await fh.close();
    }
  } catch (err) {
    return reason(err);
  }
}

async function databaseReady(engine: Engine, name: string, target: string, timeoutMs: number): Promise<string> {
  if (isPostgresUrl(target)) {
    try {
      return (await pingPostgresStore(engine, name, target, timeoutMs)) ?? 'ok';
    } catch (err) {
      return reason(err);
    }
  }
  if (isUrl(target)) return 'ok'; // other drivers (ODBC) connect per call: nothing to probe here
  return sqliteReady(target);
}

async function workersReady(engine: Engine, timeoutMs: number): Promise<string> {
  try {
    const pool = await iologPool(engine);
    await pool.run('ping', {}, AbortSignal.timeout(timeoutMs));
    return 'ok';
  } catch (err) {
    const name = (err as { errorName?: string }).errorName;
    return name === 'ABORTED' ? 'timeout' : 'unavailable';
  }
}

export interface ReadyVerdict {
  ready: boolean;
  parts: Readiness;
}

/** The checks of GET /readyz, run at once; ready when none failed ("absent" is not a failure). */
async function probe(engine: Engine, timeoutMs: number): Promise<ReadyVerdict> {
  const s = engine.settings;
  const checks: Array<[string, Promise<string>]> = [['eventlog folder', folderReady(dirname(s.eventlog))]];
  // eventdb names a configured database or is a path (or URL) of its own.
  if (!Object.hasOwn(s.databases, s.eventdb)) checks.push(['eventdb', databaseReady(engine, redactUrl(s.eventdb), s.eventdb, timeoutMs)]);
  for (const [name, target] of Object.entries(s.databases)) checks.push([`database ${name}`, databaseReady(engine, name, target, timeoutMs)]);
  checks.push(['workers', workersReady(engine, timeoutMs)]);
  const parts: Readiness = {};
  for (const [name, p] of checks) parts[name] = await p;
  const ready = Object.values(parts).every((v) => v === 'ok' || v === 'absent');
  return { ready, parts };
}

/** Per engine: the probe in flight (doneAt null) or the last verdict and when it came. */
const verdicts = new WeakMap<Engine, { doneAt: number | null; verdict: Promise<ReadyVerdict> }>();

/**
 * The verdict of GET /readyz: the probe in flight when there is one, the last verdict when it is
 * younger than READY_CACHE_MS, else a new probe (parts bounded by `timeoutMs` each).
 */
export function readiness(engine: Engine, timeoutMs = READY_TIMEOUT_MS): Promise<ReadyVerdict> {
  const last = verdicts.get(engine);
  if (last && (last.doneAt === null || Date.now() - last.doneAt < READY_CACHE_MS)) return last.verdict;
  const entry: { doneAt: number | null; verdict: Promise<ReadyVerdict> } = { doneAt: null, verdict: probe(engine, timeoutMs) };
  verdicts.set(engine, entry);
  const done = () => {
    entry.doneAt = Date.now();
  };
  entry.verdict.then(done, done); // each part catches its own failures: a rejection is not expected
  return entry.verdict;
}

export interface OpsFigures {
  eventsReturned: number;
  /** Bytes of flat-file logs read by event queries (what was scanned to find the rows). */
  flatfileBytesRead: number;
  lanes: Record<'bulk' | 'interactive' | 'heavy', LaneStats>;
}

/** Counters and pool figures for GET /metrics: read only, nothing is started for them. */
export async function opsFigures(engine: Engine): Promise<OpsFigures> {
  const pool = await iologPool(engine);
  return { eventsReturned: eventsStreamed.returned, flatfileBytesRead: eventsStreamed.bytesRead, lanes: pool.stats() };
}

/** Sessions in the I/O-log index (null: not built), counted in a worker; cached for `maxAgeMs`. */
export function indexedSessionsReader(engine: Engine, maxAgeMs = 30_000): () => Promise<number | null> {
  let last: { at: number; value: number | null } | null = null;
  return async () => {
    if (last && Date.now() - last.at < maxAgeMs) return last.value;
    const pool = await iologPool(engine);
    const value = await pool.run('indexCount', { indexFile: engine.settings.iologcache }, AbortSignal.timeout(READY_TIMEOUT_MS));
    last = { at: Date.now(), value };
    return value;
  };
}
