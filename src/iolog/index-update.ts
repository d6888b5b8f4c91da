// Incremental update of the cached list: walk the roots, and read only the sessions that are
// new or whose timing/info files changed (mtime or size); drop rows of sessions that vanished.
// Runs in a worker; writes go in batched transactions.
import { hostname } from 'node:os';
import { lstat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { lastUpdate, openIndex, type IndexDb } from './index-db.js';
import { DirSignatures } from './index-freshness.js';
import { readSmallFile, type SessionInfo } from './log-info.js';
import { openSessionOfKind } from './locate.js';
import { checkAborted, scanEndMs } from './session.js';
import { exitStatusOf } from './exit-status.js';
import { allSessions, type FoundSession } from './walk.js';

export interface IndexStats {
  total: number;
  added: number;
  updated: number;
  removed: number;
  unchanged: number;
  /** Unix ms of this update. */
  updatedAt: number;
}

async function fileSig(p: string): Promise<string> {
  try {
    const s = await lstat(p);
    return `${Math.floor(s.mtimeMs)}:${s.size}`;
  } catch {
    return '-';
  }
}

/** mtime/size of the files whose change means the row must be read again. */
export async function sessionSignature(s: FoundSession): Promise<string> {
  if (s.kind === 'asciicast') return fileSig(s.path);
  const parts = await Promise.all(['timing', 'log.json', 'log', 'uuid'].map((f) => fileSig(join(s.path, f))));
  return parts.join('|');
}

/** sudo's session ID: `XXXXXX` for %{seq} paths (`00/00/01` -> `000001`), else the relative path. */
export function tsid(root: string, path: string): string {
  const rel = relative(root, path);
  return /^[0-9A-Za-z]{2}\/[0-9A-Za-z]{2}\/[0-9A-Za-z]{2}$/.test(rel) ? rel.replace(/\//g, '') : rel;
}

interface Row {
  logpath: string;
  uniqueid: string;
  partnum: number;
  createtime: number;
  loghost: string;
  submithost: string;
  submituser: string;
  runhost: string;
  runuser: string;
  runcmd: string;
  runargv: string;
  cwd: string;
  tty: string;
  duration: number;
  exitstatus: string;
  root: string;
  sig: string;
}

async function readRow(s: FoundSession, sig: string, loghost: string): Promise<Row> {
  const session = openSessionOfKind(s.kind, s.path);
  let info: SessionInfo | null = null;
  try {
    info = await session.info();
  } catch {
    info = null; // still listed, with what the path tells
  }
  let uuid = info?.uuid ?? '';
  if (!uuid && s.kind === 'sudo') {
    try {
      const u = await readSmallFile(join(s.path, 'uuid'));
      if (u && u.length <= 64) uuid = u.toString('utf8').trim();
    } catch {
      uuid = '';
    }
  }
  let createtime = info ? info.startSec * 1000 + Math.floor(info.startNsec / 1e6) : 0;
  let duration = -1;
  try {
    duration = Math.round(scanEndMs(await session.scan()));
  } catch {
    duration = -1; // still listed, without a length
  }
  let exitstatus = '';
  try {
    exitstatus = exitStatusOf(await session.variables());
  } catch {
    exitstatus = '';
  }
  if (!info) {
    try {
      createtime = Math.floor((await lstat(s.kind === 'sudo' ? join(s.path, 'timing') : s.path)).mtimeMs);
    } catch {
      createtime = 0;
    }
  }
  return {
    logpath: s.path,
    uniqueid: uuid || tsid(s.root, s.path),
    partnum: 0,
    createtime,
    loghost,
    submithost: info?.submithost ?? '',
    submituser: info?.submituser ?? '',
    runhost: info?.runhost ?? '',
    runuser: info?.runuser ?? '',
    runcmd: info?.runcmd ?? '',
    runargv: info?.runargv ?? '',
    cwd: info?.cwd ?? '',
    tty: info?.ttyname ?? '',
    duration,
    exitstatus,
    root: s.root,
    sig,
  };
}

const BATCH = 500;

export async function updateIndex(roots: readonly string[], indexFile: string, opts: { rebuild?: boolean; signal?: AbortSignal } = {}): Promise<IndexStats> {
  const db: IndexDb = openIndex(indexFile, 'write');
  try {
    // A rebuild cut short must not look current: the directory signatures go with the rows, in
    // one transaction (three autocommitted statements let a kill between them leave an empty
    // list whose signatures still said "current": seen as a 0-row list in the kill test).
    if (opts.rebuild) db.transaction(() => db.exec("DELETE FROM meta WHERE key IN ('walk_roots', 'walk_started'); DELETE FROM dirs; DELETE FROM sessions"))();
    const known = new Map<string, string>();
    for (const r of db.prepare('SELECT logpath, sig FROM sessions').iterate() as Iterable<{ logpath: string; sig: string }>) known.set(r.logpath, r.sig);
    const upsert = db.prepare(
      `INSERT OR REPLACE INTO sessions (logpath, uniqueid, partnum, createtime, loghost, submithost, submituser, runhost, runuser, runcmd, runargv, cwd, tty, duration, exitstatus, root, sig)
       VALUES (@logpath, @uniqueid, @partnum, @createtime, @loghost, @submithost, @submituser, @runhost, @runuser, @runcmd, @runargv, @cwd, @tty, @duration, @exitstatus, @root, @sig)`,
    );
    const writeBatch = db.transaction((rows: Row[]) => {
      for (const r of rows) upsert.run(r);
    });
    const loghost = hostname();
    const stats: IndexStats = { total: 0, added: 0, updated: 0, removed: 0, unchanged: 0, updatedAt: Date.now() };
    const seen = new Set<string>();
    const dirs = new DirSignatures();
    let batch: Row[] = [];
    for await (const s of allSessions(roots, opts.signal, dirs.visit)) {
      if (seen.has(s.path)) continue; // roots that nest
      seen.add(s.path);
      stats.total++;
      const sig = await sessionSignature(s);
      const old = known.get(s.path);
      if (old === sig) {
        stats.unchanged++;
        continue;
      }
      if (old === undefined) stats.added++;
      else stats.updated++;
      batch.push(await readRow(s, sig, loghost));
      if (batch.length >= BATCH) {
        checkAborted(opts.signal);
        writeBatch(batch);
        batch = [];
      }
    }
    writeBatch(batch);
    const gone = [...known.keys()].filter((p) => !seen.has(p));
    const del = db.prepare('DELETE FROM sessions WHERE logpath = ?');
    db.transaction(() => {
      for (const p of gone) del.run(p);
    })();
    stats.removed = gone.length;
    dirs.save(db, roots);
    db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('updated', ?)").run(String(stats.updatedAt));
    return stats;
  } finally {
    db.close();
  }
}

/** Unix ms of the index's last update; 0 when it was never built. */
export function indexAge(indexFile: string): number {
  const db = openIndex(indexFile, 'read');
  if (!db) return 0;
  try {
    return lastUpdate(db);
  } finally {
    db.close();
  }
}
