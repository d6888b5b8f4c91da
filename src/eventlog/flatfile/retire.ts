// Retiring whole rotated files of a flat-file event log (`evio events rotate FILE
// --remove-older-than AGE`): the files evio's rotation named `FILE.<yyyymmddThhmmssZ>[-k]`,
// plain or gzipped, whose stamp (the moment of the rotation, so every record in them is older)
// lies before the cut-off are removed, each with its skip index. Records are never cut out of a
// file: a rotated file goes whole or stays. It runs under the log's writer lock, so no rotation
// names or links a file beside it meanwhile; a query that already opened a removed file reads it
// to its end (family-snapshot.ts). Files named by logrotate are left to logrotate.
import { stat, unlink } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { FileLock } from '../../common/file-lock.js';
import { syncDir } from '../../common/job-files.js';
import { listRotated } from './rotate.js';
import { indexPathFor } from './skip-index.js';

export interface RetireOptions {
  /** The live log whose rotated files are retired. */
  path: string;
  /** Remove the rotated files whose rotation stamp is before this moment. */
  before: Date;
  /** Only say what would be removed. */
  dryRun?: boolean;
  /** Where skip indexes live (settings): null = beside the files. */
  cacheDir: string | null;
  lockTimeoutMs?: number;
  signal?: AbortSignal;
}

export interface RetiredFile {
  path: string;
  size: number;
  /** The rotation stamp, as an ISO date. */
  rotatedAt: string;
}

const STAMP = /\.(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z(?:-\d+)?(?:\.gz)?$/;

/** The moment a rotated file's name says it was rotated, or null for another name. */
export function rotatedAt(name: string): Date | null {
  const m = STAMP.exec(name);
  if (!m) return null;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  return new Date(Date.UTC(y, mo - 1, d, h, mi, s));
}

export async function retireRotated(opts: RetireOptions): Promise<RetiredFile[]> {
  const path = resolve(opts.path);
  const pick = async (): Promise<RetiredFile[]> => {
    const out: RetiredFile[] = [];
    for (const r of await listRotated(path)) {
      const at = rotatedAt(basename(r.path));
      if (at && at.getTime() < opts.before.getTime()) out.push({ path: r.path, size: r.size, rotatedAt: at.toISOString() });
    }
    return out;
  };
  if (opts.dryRun) return pick();
  const lock = new FileLock(path, { timeoutMs: opts.lockTimeoutMs ?? 10_000 });
  return lock.withLock(async () => {
    const gone = await pick();
    // Not stopped half way by the signal: the list returned is what the audit record names.
    for (const f of gone) {
      // The file first: a leftover index of a missing file is harmless, never read.
      f.size = (await stat(f.path)).size;
      await unlink(f.path);
      await unlink(indexPathFor(f.path, opts.cacheDir)).catch(() => undefined);
    }
    if (gone.length > 0) await syncDir(dirname(path));
    return gone;
  }, opts.signal);
}
