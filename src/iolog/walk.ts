// Finding sessions under the I/O log roots. A directory holding a regular `timing` plus
// `log.json` or `log` is a sudo session (not descended into); a regular `*.cast` file is an
// asciicast session. Symlinks are never followed, so a walk cannot leave its root. Entries
// are visited in byte order of their names (as sudoreplay -l does), so results are stable.
import { realpathSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { minimatch } from 'minimatch';
import { evioError } from '../errors.js';
import { GLOB_MAX_LENGTH } from './limits.js';
import { isCastName, isSystemPath, readDirents, resolveIologPath, sessionAt, type SessionKind } from './locate.js';
import { checkAborted } from './session.js';

export interface FoundSession {
  kind: SessionKind;
  /** Real absolute path. */
  path: string;
  /** The root it was found under (real path). */
  root: string;
}

const MAX_DEPTH = 64;

function byName(a: { name: string }, b: { name: string }): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** Real paths of the configured roots that exist and are not system directories. */
export function realRoots(roots: readonly string[]): string[] {
  const out: string[] = [];
  for (const r of roots) {
    try {
      const real = realpathSync(r);
      if (!isSystemPath(real) && !out.includes(real)) out.push(real);
    } catch {
      // a root that does not exist yet holds no sessions
    }
  }
  return out;
}

/**
 * Called with every directory the walk reads, before it reads it; `isSession` is known only
 * afterwards, so the callback returns a function the walk calls once it knows.
 */
export type DirVisitor = (dir: string) => Promise<((isSession: boolean) => void) | void>;

/** Sessions at or under `dir`, depth first in name order. */
export async function* walkSessions(dir: string, root: string, signal?: AbortSignal, depth = 0, visit?: DirVisitor): AsyncGenerator<FoundSession> {
  checkAborted(signal);
  const visited = visit ? await visit(dir) : undefined;
  const entries = await readDirents(dir);
  const files = new Set(entries.filter((e) => e.isFile()).map((e) => e.name));
  const isSession = files.has('timing') && (files.has('log.json') || files.has('log'));
  if (visited) visited(isSession);
  if (isSession) {
    yield { kind: 'sudo', path: dir, root };
    return;
  }
  if (depth >= MAX_DEPTH) return;
  entries.sort(byName);
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* walkSessions(p, root, signal, depth + 1, visit);
    else if (e.isFile() && isCastName(e.name)) yield { kind: 'asciicast', path: p, root };
  }
}

/** Every session under every root; `visit` sees every directory read (see DirVisitor). */
export async function* allSessions(roots: readonly string[], signal?: AbortSignal, visit?: DirVisitor): AsyncGenerator<FoundSession> {
  for (const root of realRoots(roots)) yield* walkSessions(root, root, signal, 0, visit);
}

const MAGIC = /[*?[\]{}()!+@]/;

/** Refuses globs that are empty, too long, climb with `..` or could expand without bound. */
export function checkGlob(pattern: string, what = 'file'): void {
  if (pattern === '') throw evioError('IOLOG_BAD_GLOB', `${what} is empty`);
  if (pattern.length > GLOB_MAX_LENGTH) throw evioError('IOLOG_BAD_GLOB', `${what} is ${pattern.length} characters long; the limit is ${GLOB_MAX_LENGTH}`);
  if (pattern.includes('\u0000')) throw evioError('IOLOG_BAD_GLOB', `${what} contains a NUL character`);
  if (pattern.split('/').includes('..')) throw evioError('IOLOG_BAD_GLOB', `${what} "${pattern.slice(0, 100)}" contains a .. segment`);
  const braces = (pattern.match(/\{/g) ?? []).length;
  const commas = (pattern.match(/,/g) ?? []).length;
  if (braces > 3 || commas > 64 || /\{[^}]*\.\.[^}]*\}/.test(pattern)) {
    throw evioError('IOLOG_BAD_GLOB', `${what} has too many brace alternatives (at most 3 groups, 64 commas, no {a..b} ranges)`);
  }
}

export interface GlobMatcher {
  /** Directories to walk, each with its root. */
  bases: Array<{ dir: string; root: string }>;
  test(s: FoundSession): boolean;
}

/**
 * A glob over the roots: an absolute glob is matched against real absolute paths, a relative
 * one against the path relative to each root. Walking starts at the glob's literal prefix.
 */
export function globOverRoots(roots: readonly string[], pattern: string): GlobMatcher {
  checkGlob(pattern);
  const rr = realRoots(roots);
  const opts = { dot: true, nocomment: true, nonegate: true };
  const segs = pattern.split('/');
  const literal: string[] = [];
  for (const s of segs.slice(0, -1)) {
    if (MAGIC.test(s) || s.includes('\\')) break;
    literal.push(s);
  }
  const bases: Array<{ dir: string; root: string }> = [];
  if (isAbsolute(pattern)) {
    const prefix = literal.join('/') || '/';
    for (const root of rr) {
      if (prefix === root || prefix.startsWith(root + sep)) {
        const real = resolveIologPathOrNull([root], prefix);
        if (real) bases.push({ dir: real, root });
      } else if (root.startsWith(prefix.endsWith(sep) ? prefix : prefix + sep)) bases.push({ dir: root, root });
    }
    return { bases, test: (s) => minimatch(s.path, pattern, opts) };
  }
  for (const root of rr) {
    const dir = literal.length ? join(root, ...literal) : root;
    const real = resolveIologPathOrNull([root], dir);
    if (real) bases.push({ dir: real, root });
  }
  return { bases, test: (s) => minimatch(relative(s.root, s.path), pattern, opts) };
}

function resolveIologPathOrNull(roots: readonly string[], p: string): string | null {
  try {
    return resolveIologPath(roots, p, 'file');
  } catch {
    return null;
  }
}

/**
 * The session a glob without wildcards names, as `file=` would open it: an asciicast file of
 * any name (a v1 file is usually `*.json`, which no walk takes), a file inside a session
 * directory. Null when it names none (then the walk decides, as for any glob).
 */
async function* literalSessions(roots: readonly string[], pattern: string): AsyncGenerator<FoundSession> {
  for (const root of realRoots(roots)) {
    const real = resolveIologPathOrNull([root], isAbsolute(pattern) ? pattern : join(root, pattern));
    if (real === null || isSystemPath(real)) continue;
    const s = await sessionAt(real);
    if (s) yield { kind: s.kind, path: s.path, root };
  }
}

/** Sessions the glob names, in walk order. */
export async function* sessionsMatching(roots: readonly string[], pattern: string, signal?: AbortSignal): AsyncGenerator<FoundSession> {
  const g = globOverRoots(roots, pattern);
  const seen = new Set<string>();
  if (!MAGIC.test(pattern) && !pattern.includes('\\')) {
    for await (const s of literalSessions(roots, pattern)) {
      if (seen.has(s.path)) continue;
      seen.add(s.path);
      yield s;
    }
    if (seen.size > 0) return;
  }
  for (const b of g.bases) {
    for await (const s of walkSessions(b.dir, b.root, signal)) {
      if (seen.has(s.path) || !g.test(s)) continue;
      seen.add(s.path);
      yield s;
    }
  }
}
