// The seek index's storage: an SQLite file beside the cached list (`iologcache` with
// `-seek.sqlite` for its `.sqlite`), one row per session that has been seeked in (its
// signature, totals, and the build's end) and its keyframes, keyed by (path, time, position)
// so the keyframe at or before a time is one B-tree lookup. It is a cache: deleting the file
// only costs a rebuild at the next seek.
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { evioError } from '../errors.js';
import { createPrivateFile, mkdirPrivate } from '../private-files.js';
import type { ResumePoint } from './session.js';

export type SeekDb = Database.Database;

const SCHEMA_VERSION = 1;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS seek_sessions (
  path      TEXT PRIMARY KEY,
  sig       TEXT NOT NULL,
  bytes     INTEGER NOT NULL,
  records   INTEGER NOT NULL,
  end_ms    REAL NOT NULL,
  keyframes INTEGER NOT NULL,
  -- JSON ResumePoint at the end of the build: an append continues from the last keyframe.
  end_point TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS keyframes (
  path   TEXT NOT NULL,
  ms     REAL NOT NULL,
  pos    INTEGER NOT NULL,
  resume TEXT NOT NULL,
  snap   BLOB NOT NULL,
  PRIMARY KEY (path, ms, pos)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS keyframes_pos ON keyframes (path, pos);
`;

/** The seek index file that goes with a cached-list file. */
export function seekIndexPath(iologcache: string): string {
  return iologcache.replace(/\.sqlite$/, '') + '-seek.sqlite';
}

export function openSeekDb(file: string): SeekDb {
  try {
    mkdirPrivate(dirname(file));
    createPrivateFile(file); // 0600, and so its -wal and -shm files
    const db = new Database(file);
    db.pragma('busy_timeout = 10000');
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    const has = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get();
    const v = has ? (db.prepare("SELECT value FROM meta WHERE key = 'schema'").get() as { value: string } | undefined) : undefined;
    if (v && Number(v.value) !== SCHEMA_VERSION) db.exec('DROP TABLE IF EXISTS seek_sessions; DROP TABLE IF EXISTS keyframes;');
    db.exec(SCHEMA);
    db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema', ?)").run(String(SCHEMA_VERSION));
    return db;
  } catch (err) {
    throw evioError('IOLOG_SEEK_INDEX', `${file}: ${(err as Error).message}`, err);
  }
}

export interface SeekSessionRow {
  sig: string;
  bytes: number;
  records: number;
  endMs: number;
  keyframes: number;
  endPoint: ResumePoint;
}

export interface Keyframe {
  ms: number;
  pos: number;
  resume: ResumePoint;
  snap: Uint8Array;
}

export function readSeekSession(db: SeekDb, path: string): SeekSessionRow | null {
  const r = db.prepare('SELECT sig, bytes, records, end_ms, keyframes, end_point FROM seek_sessions WHERE path = ?').get(path) as
    | { sig: string; bytes: number; records: number; end_ms: number; keyframes: number; end_point: string }
    | undefined;
  if (!r) return null;
  return { sig: r.sig, bytes: r.bytes, records: r.records, endMs: r.end_ms, keyframes: r.keyframes, endPoint: JSON.parse(r.end_point) as ResumePoint };
}

export function writeSeekSession(db: SeekDb, path: string, row: SeekSessionRow): void {
  db.prepare('INSERT OR REPLACE INTO seek_sessions (path, sig, bytes, records, end_ms, keyframes, end_point) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
    path, row.sig, row.bytes, row.records, row.endMs, row.keyframes, JSON.stringify(row.endPoint),
  );
}

export function writeKeyframes(db: SeekDb, path: string, frames: readonly Keyframe[]): void {
  const ins = db.prepare('INSERT OR REPLACE INTO keyframes (path, ms, pos, resume, snap) VALUES (?, ?, ?, ?, ?)');
  db.transaction(() => {
    for (const f of frames) ins.run(path, f.ms, f.pos, JSON.stringify(f.resume), Buffer.from(f.snap.buffer, f.snap.byteOffset, f.snap.byteLength));
  })();
}

export function dropSeekSession(db: SeekDb, path: string): void {
  db.transaction(() => {
    db.prepare('DELETE FROM keyframes WHERE path = ?').run(path);
    db.prepare('DELETE FROM seek_sessions WHERE path = ?').run(path);
  })();
}

/** Removes a session, or every session below a directory, from the index; the sessions removed. */
export function dropSeekSessionsUnder(db: SeekDb, path: string): number {
  const prefix = path.endsWith('/') ? path : `${path}/`;
  return db.transaction(() => {
    db.prepare('DELETE FROM keyframes WHERE path = ? OR substr(path, 1, ?) = ?').run(path, prefix.length, prefix);
    return db.prepare('DELETE FROM seek_sessions WHERE path = ? OR substr(path, 1, ?) = ?').run(path, prefix.length, prefix).changes;
  })();
}

type KeyframeRow = { ms: number; pos: number; resume: string; snap: Buffer };
const toKeyframe = (r: KeyframeRow | undefined): Keyframe | null => (r ? { ms: r.ms, pos: r.pos, resume: JSON.parse(r.resume) as ResumePoint, snap: r.snap } : null);

/** The last keyframe at or before `ms` (ms = Infinity: the session's last one). */
export function keyframeAtOrBefore(db: SeekDb, path: string, ms: number): Keyframe | null {
  const limit = Number.isFinite(ms) ? ms : Number.MAX_VALUE;
  return toKeyframe(db.prepare('SELECT ms, pos, resume, snap FROM keyframes WHERE path = ? AND ms <= ? ORDER BY ms DESC, pos DESC LIMIT 1').get(path, limit) as KeyframeRow | undefined);
}

/** The last keyframe at or before a data-stream position. */
export function keyframeAtOrBeforePos(db: SeekDb, path: string, pos: number): Keyframe | null {
  return toKeyframe(db.prepare('SELECT ms, pos, resume, snap FROM keyframes WHERE path = ? AND pos <= ? ORDER BY pos DESC, ms DESC LIMIT 1').get(path, pos) as KeyframeRow | undefined);
}

/** One open handle per seek index file and thread: opening costs more than a lookup. */
const handles = new Map<string, SeekDb>();
export function seekDb(file: string): SeekDb {
  let db = handles.get(file);
  if (!db) {
    db = openSeekDb(file);
    handles.set(file, db);
  }
  return db;
}

/**
 * The seek index for a read that can do without it (a chunk by position): null when the file
 * does not exist (no session has been seeked in) or cannot be opened (a read-only data folder),
 * so reading never fails, nor creates the file, because of it.
 */
export function seekDbIfAny(file: string): SeekDb | null {
  if (!handles.has(file) && !existsSync(file)) return null;
  try {
    return seekDb(file);
  } catch {
    return null;
  }
}

/** Drops purged sessions (and everything below a purged directory) from the seek index. */
export function dropFromSeekIndex(seekFile: string, paths: readonly string[]): number {
  const db = seekDbIfAny(seekFile);
  if (!db) return 0;
  let n = 0;
  for (const p of paths) n += dropSeekSessionsUnder(db, p);
  return n;
}
