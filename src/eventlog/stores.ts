// Naming and opening event stores. Requests name a store by format/file/dsn (StoreRef) and are
// confined to eventlogdirs; the CLI (the local operator) names any store as ff:PATH, db:PATH,
// pg:NAME|URL or odbc:DSN. Opened stores are shared through the engine (pools, caches).
import { closeSync, existsSync, constants as fsc, fstatSync, openSync, readSync } from 'node:fs';
import { lstat, type FileHandle } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Engine } from '../engine.js';
import { evioError, isEvioError } from '../errors.js';
import { ownValue } from '../own-property.js';
import { inside, realOrNull, resolveInsideRoots } from '../paths.js';
import { openChecked, OPEN_READ } from '../safe-open.js';
import { checkDsnName } from './odbc/dsn-name.js';
import { redactUrl } from './postgres/pg-url.js';
import { indexKeyFileIn, useIndexKeyFile } from './flatfile/index-key.js';
import type { StoreRef } from './query.js';
import type { EventStore } from './types.js';

/**
 * `confined`: a request named the file; `path` is the real path checked inside eventlogdirs and
 * every open must land exactly there (safe-open.ts).
 */
export type StoreSpec =
  | { kind: 'ff'; path: string; confined?: boolean; family?: boolean }
  /**
   * `existing`: only an existing evio database is opened, never created (reads, deletes).
   * `confined`: named by a request, so every open is checked against the roots.
   */
  | { kind: 'sqlite'; path: string; existing?: boolean; confined?: boolean }
  | { kind: 'pg'; name: string; url: string }
  | { kind: 'odbc'; dsn: string };

const PG_URL_RE = /^postgres(ql)?:\/\//;

/** A database named in the settings: a postgres:// URL, or else an SQLite path. */
function configuredDatabase(name: string, url: string): StoreSpec {
  return PG_URL_RE.test(url) ? { kind: 'pg', name, url } : { kind: 'sqlite', path: resolve(url) };
}

const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/**
 * A request's SQLite store must already be an SQLite database file: reads and deletes never
 * create one, and never turn another file (an emptied flat file, say) into one. Checked per
 * request, so a database created later (by evio demo or an import) is found without a restart.
 */
function existingSqlite(path: string, asked: string): Extract<StoreSpec, { kind: 'sqlite' }> {
  const head = Buffer.alloc(SQLITE_HEADER.length);
  let fd: number;
  try {
    fd = openSync(path, fsc.O_RDONLY | fsc.O_NOFOLLOW | fsc.O_NONBLOCK);
  } catch {
    throw noSuchDatabase(asked);
  }
  try {
    if (!fstatSync(fd).isFile()) throw evioError('NOT_A_REGULAR_FILE', `"${asked}" is not a regular file, so not an SQLite event database`);
    checkSqliteHeader(head, readSync(fd, head, 0, head.length, 0), asked);
  } finally {
    closeSync(fd);
  }
  return { kind: 'sqlite', path, existing: true };
}

function noSuchDatabase(asked: string): Error {
  return evioError('STORE_NOT_FOUND', `event database "${asked}" does not exist; reads and deletes never create one (evio events append, copy or import does)`);
}

/** `head` (of which `read` bytes were read) must start an SQLite database file. */
function checkSqliteHeader(head: Buffer, read: number, asked: string): void {
  if (read !== SQLITE_HEADER.length || !head.equals(SQLITE_HEADER)) {
    throw evioError('STORE_NOT_FOUND', `"${asked}" is not an SQLite event database; reads and deletes never create or convert one`);
  }
}

/** `ff:PATH`, `db:PATH` (SQLite), `db:NAME`/`pg:NAME` (a configured database), `pg:URL`, `odbc:DSN`. */
export function parseStoreName(engine: Engine, name: string, cwd = storeBase(engine), opts: { existing?: boolean } = {}): StoreSpec {
  const spec = storeByName(engine, name, cwd);
  if (!opts.existing) return spec;
  // A read or a delete: the store must exist already; nothing is created for it.
  // An error names the path a relative name resolved to (against storeBase, not the working directory).
  const shown = 'path' in spec && spec.path !== name.slice(3) ? `${name} (resolved as ${spec.path})` : name;
  if (spec.kind === 'sqlite') return existingSqlite(spec.path, shown);
  if (spec.kind === 'ff' && !existsSync(spec.path)) {
    throw evioError('STORE_NOT_FOUND', `event log ${shown} does not exist; reads and deletes never create one (evio events append, copy or import does)`);
  }
  return spec;
}

/**
 * Where a relative ff:PATH or db:PATH is taken from: the first of the settings' event-log
 * folders (eventlogdirs), so that a command run from cron, whatever its working directory,
 * names the same file as one run by hand.
 */
export function storeBase(engine: Engine): string {
  return engine.settings.eventlogdirs[0] ?? process.cwd();
}

function storeByName(engine: Engine, name: string, cwd: string): StoreSpec {
  const m = /^(ff|db|pg|odbc):(.+)$/.exec(name);
  if (!m) throw evioError('BAD_STORE_NAME', `"${name}" is not ff:PATH, db:PATH, pg:NAME|URL or odbc:DSN`);
  const [, kind, rest] = m as unknown as [string, string, string];
  const dbs = engine.settings.databases;
  switch (kind) {
    case 'ff':
      return { kind: 'ff', path: resolve(cwd, rest) };
    case 'odbc':
      return { kind: 'odbc', dsn: checkDsnName(rest) };
    case 'pg':
      if (PG_URL_RE.test(rest)) return { kind: 'pg', name: redactUrl(rest), url: rest };
      if (PG_URL_RE.test(ownValue(dbs, rest) ?? '')) return configuredDatabase(rest, ownValue(dbs, rest)!);
      throw evioError('QUERY_UNKNOWN_DATABASE', `pg:${rest} is neither a postgres:// URL nor a PostgreSQL database named in the settings' "databases"`);
    default: {
      const url = ownValue(dbs, rest);
      return url !== undefined ? configuredDatabase(rest, url) : { kind: 'sqlite', path: resolve(cwd, rest) };
    }
  }
}

/**
 * evio's own files (keystore, I/O log index, settings) and the I/O log roots share the data
 * folder with the event logs by default; a request may never open them as an event store (a
 * read would otherwise create event tables inside the index).
 */
function refusePrivate(engine: Engine, path: string, asked: string): string {
  const s = engine.settings;
  const real = (p: string) => realOrNull(p) ?? resolve(p);
  const privateFiles = [s.keystore, s.iologcache, ...(s.source ? [s.source] : [])].map(real);
  const underIologRoot = s.iologdirs.some((r) => inside(real(r), path));
  if (underIologRoot || privateFiles.some((p) => path === p || path.startsWith(`${p}-`) || path === `${p}.lock`)) {
    throw evioError('PATH_OUTSIDE_ROOTS', `file "${asked}" is not an event log: evio's own files and the I/O log roots cannot be opened as one`);
  }
  return path;
}

/**
 * A request's file resolved inside eventlogdirs. A root itself is a directory, never an event
 * log (and a writer would put its lock and scratch files beside it, outside the roots).
 */
function requestFile(engine: Engine, asked: string, forWrite: boolean): string {
  const s = engine.settings;
  const path = refusePrivate(engine, resolveInsideRoots(s.eventlogdirs, asked, 'file', forWrite), asked);
  if (s.eventlogdirs.some((r) => (realOrNull(r) ?? resolve(r)) === path)) {
    throw evioError('NOT_A_REGULAR_FILE', `file "${asked}" is a directory of eventlogdirs, not an event log`);
  }
  return path;
}

/** The store a request names, confined to the configured directories. */
export function requestStoreSpec(engine: Engine, ref: StoreRef, forWrite = false): StoreSpec {
  const s = engine.settings;
  switch (ref.format) {
    case 'ff':
      return { kind: 'ff', path: requestFile(engine, ref.file, forWrite), confined: true, ...(ref.family ? { family: true } : {}) };
    case 'odbc':
      return { kind: 'odbc', dsn: ref.dsn };
    case 'db': {
      const name = ref.file ?? s.eventdb;
      const url = ownValue(s.databases, name);
      if (url !== undefined) {
        const spec = configuredDatabase(name, url);
        return spec.kind === 'sqlite' ? existingSqlite(spec.path, name) : spec;
      }
      if (ref.file === null) return existingSqlite(s.eventdb, 'the default event database');
      if (/^[a-z]+:\/\//i.test(name)) {
        throw evioError('QUERY_UNKNOWN_DATABASE', 'a database is named in the settings, never by URL in a request');
      }
      // Existence and the SQLite header are checked with the location, through one checked
      // descriptor, when the store is opened (checkSqliteFiles).
      return { kind: 'sqlite', path: requestFile(engine, name, forWrite), existing: true, confined: true };
    }
  }
}

/**
 * The format parameters a named store is validated with: a flat file's rules (byte offsets, no
 * order) or a database's (recnum bounds, order). Only validation reads them; the spec says what
 * to open.
 */
export function formatParamsOf(spec: StoreSpec): { format: string; file?: string; dsn?: string } {
  switch (spec.kind) {
    case 'ff':
      return { format: 'ff', file: spec.path };
    case 'odbc':
      return { format: 'odbc', dsn: spec.dsn };
    default:
      return { format: 'db' };
  }
}

export function storeKey(spec: StoreSpec): string {
  switch (spec.kind) {
    case 'ff':
      return `store:${spec.kind}${spec.confined ? ':confined' : ''}${spec.family ? ':family' : ''}:${spec.path}`;
    case 'sqlite':
      // A confined store checks every open; the operator's store of the same file does not.
      return `store:${spec.kind}${spec.confined ? ':confined' : ''}${spec.existing ? ':existing' : ''}:${spec.path}`;
    case 'pg':
      return `store:pg:${spec.url}`;
    case 'odbc':
      return `store:odbc:${spec.dsn}`;
  }
}

/** Opens (once per engine) the store a spec names. */
export async function openStore(engine: Engine, spec: StoreSpec): Promise<EventStore> {
  return engine.resource(storeKey(spec), () => createStore(engine, spec));
}

export async function openRequestStore(engine: Engine, ref: StoreRef, forWrite = false): Promise<EventStore> {
  const spec = requestStoreSpec(engine, ref, forWrite);
  if (spec.kind === 'sqlite' && spec.confined) await checkSqliteFiles(spec.path, ref.format === 'db' && ref.file !== null ? ref.file : spec.path);
  return openStore(engine, spec);
}

/** The files SQLite opens for a database: the database and its journals. */
const SQLITE_SIDE_FILES = ['', '-journal', '-wal', '-shm'];

/**
 * SQLite opens files by name, blocking, on the main thread: a FIFO there would hang the whole
 * service. So before SQLite sees a request's database, it and its journals must be regular files
 * (or absent), and the database must exist, lie where it was checked and be an SQLite file (a
 * request never creates or converts one). SQLite re-resolves the name when it opens it, a window
 * this check narrows but cannot close (docs/security.md).
 */
async function checkSqliteFiles(path: string, asked: string): Promise<void> {
  for (const suffix of SQLITE_SIDE_FILES) {
    const st = await lstat(path + suffix).catch(() => null);
    if (st && !st.isFile()) throw evioError('NOT_A_REGULAR_FILE', `${path + suffix} is not a regular file; an SQLite event database and its journals must be`);
  }
  let fh: FileHandle;
  try {
    fh = await openChecked(path, OPEN_READ, 'file', { at: path });
  } catch (err) {
    if (isEvioError(err)) throw err;
    throw noSuchDatabase(asked);
  }
  try {
    const head = Buffer.alloc(SQLITE_HEADER.length);
    checkSqliteHeader(head, (await fh.read(head, 0, head.length, 0)).bytesRead, asked);
  } finally {
    await fh.close();
  }
}

/**
 * Readiness of a PostgreSQL database of the settings (GET /readyz) through the pool of its
 * store, the one requests use: null when it answers, else a short reason (pg-ping.ts).
 */
export async function pingPostgresStore(engine: Engine, name: string, url: string, timeoutMs: number): Promise<string | null> {
  const store = (await openStore(engine, { kind: 'pg', name, url })) as import('./postgres/index.js').PostgresStore;
  return store.ping(timeoutMs);
}

export async function openStoreByName(engine: Engine, name: string): Promise<EventStore> {
  return openStore(engine, parseStoreName(engine, name));
}

/** The skip-index settings of flat-file stores (docs/flatfile.md). */
export function flatfileIndexSettings(engine: Engine): { enabled: boolean; cacheDir: string | null; budgetMs: number; keepColumns: boolean } {
  const s = engine.settings;
  // Indexes are bound to this installation's key (index-key.ts).
  // A home evio cannot write leaves the key it has (the fixed one at worst): indexes are then
  // checked for damage only, queries still answer.
  if (s.flatfileIndex) {
    try {
      useIndexKeyFile(indexKeyFileIn(s.home));
    } catch {
      // Kept: see above.
    }
  }
  // A server keeps checked index columns between queries; a one-shot command would only copy them.
  return { enabled: s.flatfileIndex, cacheDir: s.flatfileIndexDir === '' ? null : s.flatfileIndexDir, budgetMs: s.flatfileIndexBuildMs, keepColumns: !engine.oneShot };
}

async function createStore(engine: Engine, spec: StoreSpec): Promise<EventStore> {
  const s = engine.settings;
  switch (spec.kind) {
    case 'ff': {
      const { FlatFileStore } = await import('./flatfile/index.js');
      return new FlatFileStore({
        path: spec.path,
        lockTimeoutMs: s.lockTimeoutMs,
        maxOpenAccepts: s.maxOpenAccepts,
        confined: spec.confined ?? false,
        family: spec.family ?? false,
        index: flatfileIndexSettings(engine),
      });
    }
    case 'sqlite': {
      const { SqliteStore } = await import('./sqlite/index.js');
      const existing = spec.existing === true;
      return new SqliteStore({ path: spec.path, busyTimeoutMs: s.lockTimeoutMs, fileMustExist: existing, createSchema: !existing });
    }
    case 'pg': {
      const { PostgresStore } = await import('./postgres/index.js');
      return new PostgresStore({ connectionString: spec.url, name: spec.name, statementTimeoutMs: s.statementTimeoutMs });
    }
    case 'odbc': {
      // The odbc module is optional: loading it (and answering ODBC_UNAVAILABLE) happens on first use.
      const { OdbcStore } = await import('./odbc/index.js');
      return new OdbcStore({ dsn: spec.dsn, statementTimeoutMs: s.statementTimeoutMs });
    }
  }
}
