// Directories of the I/O log tree, created and entered the way openat() would: from a root held
// open, one component at a time, each created in the held parent (mkdir of /proc/self/fd/N/name)
// and opened without following a symbolic link (safe-open.ts, DirHandle.openDir). A symlink or
// a file planted anywhere on the way is refused, never followed, so a session directory cannot
// be redirected outside its root. New directories get the mode asked for (chmod, past the
// umask) and their parent is fsync'ed so the new entry is durable.
import { chmodSync, mkdirSync, readdirSync, realpathSync } from 'node:fs';
import { evioError, isEvioError } from '../../errors.js';
import { DirHandle } from '../../safe-open.js';

/** The mode of directories for file mode `m`: x added where r is set (0600 -> 0700, 0640 -> 0750). */
export function dirModeOf(fileMode: number): number {
  return fileMode | ((fileMode & 0o444) >> 2);
}

/** The root (an operator's path: created when missing) opened at its real path. */
export async function openRoot(root: string, dirMode: number): Promise<{ real: string; handle: DirHandle }> {
  let real: string;
  try {
    mkdirSync(root, { recursive: true, mode: dirMode });
    real = realpathSync(root);
  } catch (err) {
    throw evioError('IOLOG_WRITE', `cannot create the I/O log root ${root}: ${(err as Error).message}`, err);
  }
  try {
    return { real, handle: await DirHandle.open(real, { at: real }) };
  } catch (err) {
    if (isEvioError(err)) throw err;
    throw evioError('IOLOG_WRITE', `cannot open the I/O log root ${real}: ${(err as Error).message}`, err);
  }
}

function notADirectory(shown: string): Error {
  return evioError('IOLOG_PATH_UNSAFE', `${shown} is a symbolic link or not a directory; it is never followed`);
}

/**
 * Opens (creating what is missing) `name` in `parent`; whether it was created. A symlink or a
 * non-directory there: IOLOG_PATH_UNSAFE.
 */
export async function enterDir(parent: DirHandle, name: string, dirMode: number): Promise<{ handle: DirHandle; created: boolean }> {
  let created = false;
  try {
    mkdirSync(parent.at(name), dirMode);
    created = true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw evioError('IOLOG_WRITE', `cannot create ${parent.shown(name)}: ${(err as Error).message}`, err);
  }
  let handle: DirHandle;
  try {
    handle = await parent.openDir(name);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'ENOTDIR' || isEvioError(err, 'PATH_CHANGED') || isEvioError(err, 'NOT_A_REGULAR_FILE')) throw notADirectory(parent.shown(name));
    if (isEvioError(err)) throw err;
    throw evioError('IOLOG_WRITE', `cannot open ${parent.shown(name)}: ${(err as Error).message}`, err);
  }
  if (created) {
    try {
      chmodSync(handle.self, dirMode);
      await parent.sync();
    } catch (err) {
      await handle.close();
      throw evioError('IOLOG_WRITE', `cannot set up ${parent.shown(name)}: ${(err as Error).message}`, err);
    }
  }
  return { handle, created };
}

/** Walks `comps` down from `base` (kept open), creating what is missing; the last one's handle (base itself for none). */
export async function descend(base: DirHandle, comps: readonly string[], dirMode: number): Promise<DirHandle> {
  let cur = base;
  for (const comp of comps) {
    const { handle } = await enterDir(cur, comp, dirMode);
    if (cur !== base) await cur.close();
    cur = handle;
  }
  return cur;
}

/** Whether the held directory has no entry. */
export function isEmptyDir(dir: DirHandle): boolean {
  return readdirSync(dir.self).length === 0;
}
