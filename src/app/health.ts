// What the operator's probes read: readiness of the configured stores and of the worker pool
// (GET /readyz), and the figures behind GET /metrics. Every answer names a part by what it is
// ("eventlog folder", "database central"), never by its path or URL: the probes need no key.
import { constants } from 'node:fs';
import { access, open, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Engine } from '../engine.js';
import { pingPostgres } from '../eventlog/postgres/pg-ping.js';
import { iologPool, type LaneStats } from '../worker/pool.js';
import { eventsStreamed } from './events.js';

/** Each probe of a part gives up after this long. */
export const READY_TIMEOUT_MS = 2000;

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

async function databaseReady(target: string, timeoutMs: number): Promise<string> {
  if (isPostgresUrl(target)) return (await pingPostgres(target, timeoutMs)) ?? 'ok';
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

/** The checks of GET /readyz, run at once; ready when none failed ("absent" is not a failure). */
export async function readiness(engine: Engine, timeoutMs = READY_TIMEOUT_MS): Promise<{ ready: boolean; parts: Readiness }> {
  const s = engine.settings;
  const checks: Array<[string, Promise<string>]> = [['eventlog folder', folderReady(dirname(s.eventlog))]];
  // eventdb names a configured database or is a path (or URL) of its own.
  if (!Object.hasOwn(s.databases, s.eventdb)) checks.push(['eventdb', databaseReady(s.eventdb, timeoutMs)]);
  for (const [name, target] of Object.entries(s.databases)) checks.push([`database ${name}`, databaseReady(target, timeoutMs)]);
  checks.push(['workers', workersReady(engine, timeoutMs)]);
  const parts: Readiness = {};
  for (const [name, p] of checks) parts[name] = await p;
  const ready = Object.values(parts).every((v) => v === 'ok' || v === 'absent');
  return { ready, parts };
}

export interface OpsFigures {
  eventsReturned: number;
  /** Bytes of flat-file logs read by event queries (what was scanned to find the rows). */
  flatfileBytesRead: number;
  lanes: Record<'bulk' | 'interactive', LaneStats>;
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
