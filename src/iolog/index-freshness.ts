// Whether the cached list is current, answered without walking the roots. An update records
// the modification time of every directory it read that is not a session (the roots and the
// folders above the sessions, e.g. sudo's 00/ and 00/00/), and the set of roots it walked.
// A session that appears or vanishes adds or removes an entry in such a directory, which
// changes that directory's mtime; so when the roots are the same and every recorded directory
// still has its recorded mtime, a walk would find the same sessions and is skipped.
// Files rewritten in place inside an existing session directory change no directory: those
// are picked up by a full update (`evio iolog index`, refresh=1).
import { lstatSync } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { openIndex, type IndexDb } from './index-db.js';
import { realRoots, type DirVisitor } from './walk.js';

/**
 * Directory mtimes have the kernel's coarse clock granularity: a directory changed within this
 * long before the update started may change again with the same mtime. Such a directory is
 * never trusted; the next list walks again (and records it once it is older).
 */
export const RACY_MS = 2000;

const GONE = '-';

async function mtimeNs(dir: string): Promise<string> {
  try {
    return (await lstat(dir, { bigint: true })).mtimeNs.toString();
  } catch {
    return GONE;
  }
}

function mtimeNsSync(dir: string): string {
  try {
    return lstatSync(dir, { bigint: true }).mtimeNs.toString();
  } catch {
    return GONE;
  }
}

/** Collects, during a walk, the mtime of every directory read that is not a session. */
export class DirSignatures {
  readonly dirs = new Map<string, string>();
  /** Unix ms when the walk started. */
  readonly startedAt = Date.now();

  /** The walk's visitor: the mtime is taken before the directory is read (see walk.ts). */
  readonly visit: DirVisitor = async (dir) => {
    const m = await mtimeNs(dir);
    return (isSession) => {
      if (!isSession) this.dirs.set(dir, m);
    };
  };

  /** Replaces the stored signatures with this walk's (call only after a complete walk). */
  save(db: IndexDb, roots: readonly string[]): void {
    const ins = db.prepare('INSERT INTO dirs (path, mtime) VALUES (?, ?)');
    const set = db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)');
    db.transaction(() => {
      db.exec('DELETE FROM dirs');
      for (const [p, m] of this.dirs) ins.run(p, m);
      set.run('walk_roots', JSON.stringify(realRoots(roots)));
      set.run('walk_started', String(this.startedAt));
    })();
  }
}

/**
 * True when a walk of `roots` would find exactly the sessions the index holds (see the top of
 * this file); false when it must be updated: never built, built by an evio that did not record
 * directories, other roots, a directory changed, vanished or too recent to trust.
 */
export function indexIsCurrent(roots: readonly string[], indexFile: string): boolean {
  const db = openIndex(indexFile, 'read');
  if (!db) return false;
  try {
    return db.transaction(() => {
      if (!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'dirs'").get()) return false;
      const meta = (k: string) => (db.prepare('SELECT value FROM meta WHERE key = ?').get(k) as { value: string } | undefined)?.value;
      const walkRoots = meta('walk_roots');
      const started = Number(meta('walk_started'));
      if (walkRoots === undefined || !Number.isFinite(started) || walkRoots !== JSON.stringify(realRoots(roots))) return false;
      const racyFrom = BigInt(started - RACY_MS) * 1_000_000n;
      for (const r of db.prepare('SELECT path, mtime FROM dirs').iterate() as Iterable<{ path: string; mtime: string }>) {
        const now = mtimeNsSync(r.path);
        if (now !== r.mtime) return false;
        if (now !== GONE && BigInt(now) >= racyFrom) return false;
      }
      return true;
    })();
  } finally {
    db.close();
  }
}
