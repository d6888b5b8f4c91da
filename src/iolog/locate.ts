// Where a request may look: every `file`/`path` resolves (symlinks included) inside an I/O log
// root, and system directories are refused even when a root contains them (a root of `/`
// must not make /etc readable). Also: what counts as a session.
import { lstat, readdir, stat } from 'node:fs/promises';
import { basename, dirname, join, sep } from 'node:path';
import { evioError, isEvioError } from '../errors.js';
import { resolveInsideRoots } from '../paths.js';
import { DirHandle } from '../safe-open.js';
import { AsciicastSession } from './asciicast-session.js';
import { openNoFollow } from './decoded-file.js';
import type { IologSession } from './session.js';
import { SudoSession, SUDO_FILES } from './sudo-session.js';
import { redacted, type RedactView } from './redact/redacted-session.js';

/** Never listed or read as I/O logs, whatever the roots say. */
export const SYSTEM_DIRECTORIES: readonly string[] = [
  '/proc', '/sys', '/dev', '/etc', '/boot', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/usr', '/run',
];

export function isSystemPath(real: string): boolean {
  if (real === '/' || real === '') return true;
  return SYSTEM_DIRECTORIES.some((d) => real === d || real.startsWith(d + sep));
}

/**
 * Resolves a user-given file or directory inside the I/O log roots; refuses system paths.
 * A sudo session ID (TSID) as sudoreplay takes it — exactly six letters or digits, `000001` —
 * names `00/00/01` under the first root that has it, as `sudoreplay -d ROOT 000001` does; a
 * file of that very name is found when no root has such a session.
 */
export function resolveIologPath(roots: readonly string[], userPath: string, what: string): string {
  if (/^[0-9A-Za-z]{6}$/.test(userPath)) {
    const rel = `${userPath.slice(0, 2)}/${userPath.slice(2, 4)}/${userPath.slice(4)}`;
    for (const root of roots) {
      try {
        const real = resolveInsideRoots(roots, join(root, rel), what);
        if (!isSystemPath(real)) return real;
      } catch (err) {
        if (!isEvioError(err, 'NOT_FOUND')) throw err;
      }
    }
  }
  const real = resolveInsideRoots(roots, userPath, what);
  if (isSystemPath(real)) throw evioError('IOLOG_SYSTEM_DIRECTORY', `${what} "${userPath}" is a system directory`);
  return real;
}

export type SessionKind = 'sudo' | 'asciicast';

/** A directory with a regular `timing` file plus `log.json` or `log` is a sudo session. */
export async function isSudoSessionDir(dir: string): Promise<boolean> {
  try {
    const t = await lstat(join(dir, 'timing'));
    if (!t.isFile()) return false;
  } catch {
    return false;
  }
  for (const name of ['log.json', 'log']) {
    try {
      if ((await lstat(join(dir, name))).isFile()) return true;
    } catch {
      // next
    }
  }
  return false;
}

export function isCastName(name: string): boolean {
  return name.endsWith('.cast');
}

/**
 * The session a resolved path names: a sudo session directory, an asciicast file, or a file
 * inside a sudo session directory (its directory is meant). Null when it is none of these.
 */
export async function sessionAt(real: string): Promise<{ kind: SessionKind; path: string } | null> {
  let st;
  try {
    st = await stat(real);
  } catch {
    return null;
  }
  if (st.isDirectory()) return (await isSudoSessionDir(real)) ? { kind: 'sudo', path: real } : null;
  if (!st.isFile()) return null;
  if (SUDO_FILES.includes(basename(real)) && (await isSudoSessionDir(dirname(real)))) return { kind: 'sudo', path: dirname(real) };
  if (isCastName(real) || (await looksLikeCast(real))) return { kind: 'asciicast', path: real };
  return null;
}

async function looksLikeCast(file: string): Promise<boolean> {
  const fh = await openNoFollow(file);
  if (!fh) return false;
  try {
    const buf = Buffer.alloc(64);
    const { bytesRead } = await fh.read(buf, 0, 64, 0);
    return /^\{\s*"version"\s*:\s*[123]\b/.test(buf.toString('utf8', 0, bytesRead));
  } finally {
    await fh.close();
  }
}

/** `redact`: read through the redaction rules (redact/redacted-session.ts); absent: as recorded. */
/**
 * Where an asciicast v1 file is read from its cache (cast-v1-cache.ts) instead of parsed whole;
 * `build: false` raises BuildNeeded instead of parsing it here (an interactive read: the caller
 * builds it in the heavy lane).
 */
export interface CastCacheUse {
  dir: string;
  build: boolean;
}

export function openSessionOfKind(kind: SessionKind, path: string, redact?: RedactView, cast?: CastCacheUse): IologSession {
  const session = kind === 'sudo' ? new SudoSession(path) : new AsciicastSession(path);
  if (cast && session instanceof AsciicastSession) session.useV1Cache(cast.dir, cast.build);
  return redacted(session, redact);
}

/** Resolves `file` inside the roots and opens the session it names; IOLOG_NOT_A_SESSION else. */
export async function openSession(roots: readonly string[], file: string, redact?: RedactView, cast?: CastCacheUse): Promise<IologSession> {
  const real = resolveIologPath(roots, file, 'file');
  const s = await sessionAt(real);
  if (!s) throw evioError('IOLOG_NOT_A_SESSION', `file "${file}" is neither a sudo I/O log session directory nor an asciicast file`);
  return openSessionOfKind(s.kind, s.path, redact, cast);
}

/**
 * Entries of the directory at the real path `dir`, without following symlinks; [] when it
 * cannot be read, or when it no longer lies at `dir` (a directory on the way was swapped for a
 * symlink since the path was checked: its entries are not ours to list).
 */
export async function readDirents(dir: string) {
  let held: DirHandle;
  try {
    held = await DirHandle.open(dir, { at: dir });
  } catch {
    return [];
  }
  try {
    return await readdir(held.self, { withFileTypes: true });
  } catch {
    return [];
  } finally {
    await held.close();
  }
}
