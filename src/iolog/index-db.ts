// The cached list: an SQLite index (better-sqlite3, WAL) of every session under the I/O log
// roots, one row per session with the fields of DESIGN §4 plus what the incremental update
// needs (the root it was found under and a signature of its timing and info files), and the
// mtimes of the directories above the sessions (index-freshness.ts).
// Writers are the `index` task and removeSessionsFromIndex; readers are the list queries.
import { existsSync, realpathSync } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';
import Database from 'better-sqlite3';
import { evioError } from '../errors.js';
import { createPrivateFile, mkdirPrivate } from '../private-files.js';

export type IndexDb = Database.Database;

/**
 * 2: runargv, cwd and tty columns (the session-list filters on them). 3: duration (ms, from the
 * timing scan; -1 when unknown) and exitstatus (log.json's exit fields, '' when it has none):
 * the list shows how long a session ran and how it ended. An index of an older schema is
 * dropped and built again by the next update; readers see none until then.
 */
export const INDEX_SCHEMA_VERSION = 3;

/** The fields a cached record answers with (spec: Cached I/O log record). */
export interface CachedRecord {
  uniqueid: string;
  partnum: number;
  createtime: number;
  loghost: string;
  logpath: string;
  submithost: string;
  submituser: string;
  runhost: string;
  runuser: string;
  runcmd: string;
  /** Milliseconds from the start to the session's last record; -1 when it could not be read. */
  duration: number;
  /** How the command ended, from log.json (`exit status N`, `killed by SIGNAL`); '' when not recorded. */
  exitstatus: string;
}

export const RECORD_COLUMNS = ['uniqueid', 'partnum', 'createtime', 'loghost', 'logpath', 'submithost', 'submituser', 'runhost', 'runuser', 'runcmd', 'duration', 'exitstatus'] as const;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
  logpath    TEXT PRIMARY KEY,
  uniqueid   TEXT NOT NULL,
  partnum    INTEGER NOT NULL,
  createtime INTEGER NOT NULL,
  loghost    TEXT NOT NULL,
  submithost TEXT NOT NULL,
  submituser TEXT NOT NULL,
  runhost    TEXT NOT NULL,
  runuser    TEXT NOT NULL,
  runcmd     TEXT NOT NULL,
  runargv    TEXT NOT NULL,
  cwd        TEXT NOT NULL,
  tty        TEXT NOT NULL,
  duration   INTEGER NOT NULL,
  exitstatus TEXT NOT NULL,
  root       TEXT NOT NULL,
  sig        TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_createtime ON sessions (createtime, logpath);
CREATE INDEX IF NOT EXISTS sessions_submituser ON sessions (submituser);
CREATE INDEX IF NOT EXISTS sessions_runuser ON sessions (runuser);
CREATE INDEX IF NOT EXISTS sessions_submithost ON sessions (submithost);
CREATE INDEX IF NOT EXISTS sessions_runhost ON sessions (runhost);
CREATE TABLE IF NOT EXISTS dirs (path TEXT PRIMARY KEY, mtime TEXT NOT NULL);
`;

/** The schema version an index file records; null when it records none. */
function schemaVersion(db: IndexDb): number | null {
  if (!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get()) return null;
  const v = db.prepare("SELECT value FROM meta WHERE key = 'schema'").get() as { value: string } | undefined;
  return v ? Number(v.value) : null;
}

function fail(file: string, err: unknown): never {
  throw evioError('IOLOG_INDEX', `${file}: ${(err as Error).message}`, err);
}

/** Opens (creating when writable) the index. Readers get null when it does not exist yet. */
export function openIndex(file: string, mode: 'write'): IndexDb;
export function openIndex(file: string, mode: 'read'): IndexDb | null;
export function openIndex(file: string, mode: 'read' | 'write'): IndexDb | null {
  if (mode === 'read' && !existsSync(file)) return null;
  try {
    if (mode === 'write') {
      mkdirPrivate(dirname(file));
      createPrivateFile(file); // 0600, and so its -wal and -shm files
    }
    // Readers open read-write too: a WAL database needs its -shm file, which a read-only
    // connection cannot create.
    const db = new Database(file, { fileMustExist: mode === 'read' });
    db.pragma('busy_timeout = 10000');
    if (mode === 'write') {
      db.pragma('journal_mode = WAL');
      const version = schemaVersion(db);
      if (version !== null && version > INDEX_SCHEMA_VERSION) {
        db.close();
        throw evioError('IOLOG_INDEX', `${file} has index schema ${version}, newer than this evio (${INDEX_SCHEMA_VERSION})`);
      }
      if (version !== null && version < INDEX_SCHEMA_VERSION) {
        // Columns were added: the index is a cache of the session files, so it is built again.
        db.exec("DROP TABLE IF EXISTS sessions; DELETE FROM meta WHERE key = 'updated'");
      }
      db.exec(SCHEMA);
      db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema', ?)").run(String(INDEX_SCHEMA_VERSION));
    } else if (!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sessions'").get() || schemaVersion(db) !== INDEX_SCHEMA_VERSION) {
      // A file without the schema (the first build was killed before committing it) is an index
      // that was never built, as a missing file is: readers get null, not "no such table". So
      // is one of another schema version, until the next update builds it again.
      db.close();
      return null;
    }
    return db;
  } catch (err) {
    if ((err as { name?: string }).name === 'EvioError') throw err;
    fail(file, err);
  }
}

/** Sessions in the index, or null when it has not been built (metrics). */
export function countIndexedSessions(file: string): number | null {
  const db = openIndex(file, 'read');
  if (!db) return null;
  try {
    return (db.prepare('SELECT count(*) AS n FROM sessions').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

export function lastUpdate(db: IndexDb): number {
  const r = db.prepare("SELECT value FROM meta WHERE key = 'updated'").get() as { value: string } | undefined;
  return r ? Number(r.value) : 0;
}

/** A path as the index stores it: absolute, with symlinks of existing parents resolved. */
function indexPath(p: string): string {
  const abs = resolve(p);
  try {
    return realpathSync(abs);
  } catch {
    try {
      return resolve(realpathSync(dirname(abs)), abs.slice(dirname(abs).length + 1));
    } catch {
      return abs;
    }
  }
}

/**
 * Removes sessions from the index by path: each path removes the session stored under it and
 * every session below it (a purged directory). Returns the number of rows removed. Runs in
 * the calling thread (a few indexed deletes); a missing index removes nothing.
 */
export function removeSessionsFromIndex(indexFile: string, paths: readonly string[]): number {
  if (paths.length === 0 || !existsSync(indexFile)) return 0;
  const db = openIndex(indexFile, 'write');
  try {
    const del = db.prepare('DELETE FROM sessions WHERE logpath = ? OR substr(logpath, 1, ?) = ?');
    let n = 0;
    db.transaction(() => {
      for (const p of paths) {
        for (const variant of new Set([resolve(p), indexPath(p)])) {
          const prefix = variant.endsWith(sep) ? variant : variant + sep;
          n += del.run(variant, prefix.length, prefix).changes;
        }
      }
    })();
    return n;
  } catch (err) {
    if ((err as { name?: string }).name === 'EvioError') throw err;
    fail(indexFile, err);
  } finally {
    db.close();
  }
}
