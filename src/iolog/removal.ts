// Removing the I/O log a record references, and nothing else. The `iolog` of a K record is a
// session directory (sudo) or a .cast file; before anything is removed it must
// - lie inside the I/O log roots once every symlink is resolved (resolveInsideRoots): a path
//   outside is reported and left alone;
// - not be a symlink itself (the link is reported; neither it nor its target is touched);
// - not be a root, an ancestor of a root, or a system directory;
// - be a session: a directory holding `timing` plus `log.json` or `log`, or a `.cast` file.
// The removal first renames the session to a tombstone next to it (`.evio-purging-<name>`,
// atomic), then walks the tombstone with lstat, never following a symlink (a link inside a
// session is unlinked, its target kept). A removal killed half-way so leaves no half session
// that would no longer look like one: the next purge finds the tombstone where the session was
// and finishes it. Measuring (dry run) walks the same way, so a dry run reports exactly the
// files and bytes a real run removes. Empty parent directories (sudo's 00/00/) are left: sudo
// creates sessions in them concurrently.
// Both walks go from directory handle to directory handle (safe-open.ts): the session's parent
// is opened and checked to lie where the check found it, the rename happens in it, and each
// subdirectory is opened through its parent without following a symlink. A directory swapped
// for a symlink at any moment therefore never leads the removal outside the roots.
import { lstat, readdir, rename, rmdir, unlink } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { isEvioError } from '../errors.js';
import { DirHandle } from '../safe-open.js';
import { isCastName, isSudoSessionDir, isSystemPath } from './locate.js';
import { realRoots } from './walk.js';
import { resolveInsideRoots } from '../paths.js';

export type SessionCheck =
  /** `remove` is what goes: the session, or the tombstone of an interrupted removal. */
  | { ok: true; path: string; kind: 'dir' | 'file'; remove: string }
  | { ok: false; missing: true; path: string }
  | { ok: false; missing: false; path: string; reason: string };

export interface TreeSize {
  /** Regular files and symlinks. */
  files: number;
  directories: number;
  /** Sum of the sizes of the regular files. */
  bytes: number;
}

/** Where a session lies while it is being removed. */
export function tombstoneOf(path: string): string {
  return join(dirname(path), `.evio-purging-${basename(path)}`);
}

function isAncestorOrSame(dir: string, p: string): boolean {
  const rel = relative(dir, p);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** Decides whether the I/O log `iolog` (absolute, or relative to the first root) may be removed. */
export async function checkSession(roots: readonly string[], iolog: string): Promise<SessionCheck> {
  if (roots.length === 0) return { ok: false, missing: false, path: iolog, reason: 'no I/O log roots are configured' };
  const lexical = isAbsolute(iolog) ? resolve(iolog) : resolve(roots[0]!, iolog);
  let st;
  try {
    st = await lstat(lexical);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT' && (err as NodeJS.ErrnoException).code !== 'ENOTDIR') return { ok: false, missing: false, path: lexical, reason: (err as Error).message };
    // Gone: already removed when it was inside the roots, never ours when it was not.
    try {
      resolveInsideRoots(roots, lexical, 'iolog', true);
    } catch {
      return { ok: false, missing: false, path: lexical, reason: 'is outside the I/O log roots' };
    }
    return (await unfinishedRemoval(roots, lexical)) ?? { ok: false, missing: true, path: lexical };
  }
  if (st.isSymbolicLink()) return { ok: false, missing: false, path: lexical, reason: 'is a symbolic link (not followed)' };
  let real: string;
  try {
    real = resolveInsideRoots(roots, lexical, 'iolog');
  } catch (err) {
    if (isEvioError(err, 'NOT_FOUND')) return { ok: false, missing: true, path: lexical };
    if (isEvioError(err, 'PATH_OUTSIDE_ROOTS')) return { ok: false, missing: false, path: lexical, reason: 'is outside the I/O log roots' };
    return { ok: false, missing: false, path: lexical, reason: (err as Error).message };
  }
  if (realRoots(roots).some((r) => isAncestorOrSame(real, r))) return { ok: false, missing: false, path: real, reason: 'is an I/O log root or contains one' };
  if (isSystemPath(real)) return { ok: false, missing: false, path: real, reason: 'is a system directory' };
  if (st.isDirectory()) {
    if (!(await isSudoSessionDir(real))) return { ok: false, missing: false, path: real, reason: 'is not a sudo session directory (no timing with log.json or log)' };
    return { ok: true, path: real, kind: 'dir', remove: real };
  }
  if (st.isFile() && isCastName(real)) return { ok: true, path: real, kind: 'file', remove: real };
  return { ok: false, missing: false, path: real, reason: 'is neither a sudo session directory nor a .cast file' };
}

/** The tombstone a killed removal left where the session was, if any (inside the roots, no symlink). */
async function unfinishedRemoval(roots: readonly string[], lexical: string): Promise<SessionCheck | null> {
  const tomb = tombstoneOf(lexical);
  try {
    const st = await lstat(tomb);
    if (st.isSymbolicLink() || !(st.isDirectory() || st.isFile())) return null;
    const real = resolveInsideRoots(roots, tomb, 'iolog');
    if (realRoots(roots).some((r) => isAncestorOrSame(real, r)) || isSystemPath(real)) return null;
    return { ok: true, path: lexical, kind: st.isDirectory() ? 'dir' : 'file', remove: real };
  } catch {
    return null;
  }
}

/** The parent of `path` (a real path), held open where it was checked to be. */
function openParent(path: string): Promise<DirHandle> {
  const parent = dirname(path);
  return DirHandle.open(parent, { at: parent });
}

/**
 * Visits `name` in `dir` and, for a directory, everything below it (children first when
 * `after` is set), never following a symlink: a directory is entered only through a handle
 * opened in its parent with O_NOFOLLOW; one that turned into something else meanwhile is
 * visited as a non-directory.
 */
async function visitTree(dir: DirHandle, name: string, onEntry: (dir: DirHandle, name: string, isDir: boolean, bytes: number) => Promise<void>, sorted = false): Promise<void> {
  let st;
  try {
    st = await lstat(dir.at(name));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return; // removed meanwhile (a re-run)
    throw err;
  }
  if (st.isDirectory()) {
    let child: DirHandle | null = null;
    try {
      child = await dir.openDir(name);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ELOOP' && code !== 'ENOTDIR' && !isEvioError(err, 'NOT_A_REGULAR_FILE')) throw err;
    }
    if (child) {
      try {
        const names = await readdir(child.self);
        if (sorted) names.sort();
        for (const n of names) await visitTree(child, n, onEntry, sorted);
      } finally {
        await child.close();
      }
      await onEntry(dir, name, true, 0);
      return;
    }
  }
  await onEntry(dir, name, false, st.isFile() ? st.size : 0);
}

/** What removing `path` would free, walking without following symlinks. */
export async function measureTree(path: string): Promise<TreeSize> {
  const size: TreeSize = { files: 0, directories: 0, bytes: 0 };
  const parent = await openParent(path);
  try {
    await visitTree(
      parent,
      basename(path),
      async (_dir, _name, isDir, bytes) => {
        if (isDir) size.directories++;
        else {
          size.files++;
          size.bytes += bytes;
        }
      },
      true,
    );
  } finally {
    await parent.close();
  }
  return size;
}

/**
 * Removes `path` (a session directory or file, or the tombstone of one) without following
 * symlinks: renamed to its tombstone first, then deleted. Returns what went.
 */
export async function removeTree(path: string): Promise<TreeSize> {
  const size: TreeSize = { files: 0, directories: 0, bytes: 0 };
  const parent = await openParent(path);
  try {
    let name = basename(path);
    if (!name.startsWith('.evio-purging-')) {
      const tomb = basename(tombstoneOf(path));
      await rename(parent.at(name), parent.at(tomb));
      name = tomb;
    }
    await visitTree(parent, name, async (dir, n, isDir, bytes) => {
      if (isDir) {
        await rmdir(dir.at(n));
        size.directories++;
      } else {
        await unlink(dir.at(n));
        size.files++;
        size.bytes += bytes;
      }
    });
  } finally {
    await parent.close();
  }
  return size;
}
