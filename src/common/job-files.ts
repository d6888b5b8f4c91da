// Where batch jobs keep their state: `<settings.home>/jobs/`. Per target store (named by a hash
// of its name) a job lock serialises runs, and a purge writes its intent journal there before
// it removes anything, so that an interrupted purge is finished by the next run.
import { createHash } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { FileLock } from './file-lock.js';

export function jobsDir(home: string): string {
  return join(home, 'jobs');
}

export function storeTag(storeName: string): string {
  return createHash('sha1').update(storeName).digest('hex').slice(0, 16);
}

/** A cross-process lock for one job kind on one store (a dead holder's lock is taken over). */
export async function jobLock(home: string, kind: string, storeName: string, timeoutMs: number): Promise<FileLock> {
  const dir = jobsDir(home);
  await mkdir(dir, { recursive: true });
  return new FileLock(join(dir, `${kind}-${storeTag(storeName)}`), { timeoutMs });
}

/** Writes JSON durably: temp file, fsync, rename, fsync of the folder. */
export async function writeJsonDurably(path: string, value: unknown): Promise<void> {
  const tmp = `${path}.${process.pid}.new`;
  const fh = await open(tmp, 'w', 0o600);
  try {
    await fh.writeFile(`${JSON.stringify(value, null, 2)}\n`);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, path);
  await syncDir(join(path, '..'));
}

/**
 * Removes the scratch files (`<path>.<pid>.new`) of writeJsonDurably calls that a killed
 * process left. Call it holding the lock under which `path` is written: every one found then is
 * stale.
 */
export async function removeDurableScratch(path: string): Promise<void> {
  const prefix = `${basename(path)}.`;
  let names: string[];
  try {
    names = await readdir(dirname(path));
  } catch {
    return;
  }
  for (const n of names) {
    if (n.startsWith(prefix) && /^\d+\.new$/.test(n.slice(prefix.length))) await unlink(join(dirname(path), n)).catch(() => undefined);
  }
}

export async function readJson<T>(path: string): Promise<T | null> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as T;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    // A journal that cannot be parsed was never completely written (writeJsonDurably renames
    // only whole files), so this is someone else's file: refuse to guess.
    throw err;
  }
}

export async function removeFile(path: string): Promise<void> {
  await unlink(path).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
  });
  await syncDir(join(path, '..'));
}

export async function syncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r').catch(() => null);
  if (!fh) return;
  try {
    await fh.sync().catch(() => undefined);
  } finally {
    await fh.close();
  }
}
