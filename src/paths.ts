// Confinement of user-supplied paths: every `file`/`path` a request names is resolved (symlinks
// included) and must land inside one of the configured roots. Shared by event logs
// (eventlogdirs) and I/O logs (iologdirs). A checked path is only half the story: what is then
// opened by that name must still be there, which safe-open.ts makes sure of.
import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { evioError } from './errors.js';

export function realOrNull(p: string): string | null {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
}

/** `p` is `root` or below it (both already resolved). */
export function inside(root: string, p: string): boolean {
  const rel = relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel) && !rel.split(sep).includes('..'));
}

/**
 * `abs` as an answer names it: relative to the root of `roots` it lies under (`.` for the root
 * itself), never the server's absolute path (docs/security.md, point 11 of "Hold under attack");
 * a path under no root is named by its last component.
 */
export function publicPath(roots: readonly string[], abs: string): string {
  for (const r of roots) {
    for (const root of [r, realOrNull(r)]) {
      if (root !== null && inside(root, abs)) return relative(root, abs) || '.';
    }
  }
  return basename(abs);
}

/** `text` with every root of `roots` (as configured and real) replaced by its name relative to it. */
export function hideRoots(roots: readonly string[], text: string): string {
  const all = [...new Set(roots.flatMap((r) => [resolve(r), realOrNull(r)]).filter((r): r is string => r !== null && r !== sep))];
  // Longest first: a root inside another (iolog under the home) is named relative to itself.
  all.sort((a, b) => b.length - a.length);
  let out = text;
  for (const r of all) {
    const esc = r.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    out = out.split(`${r}${sep}`).join('').replace(new RegExp(`${esc}(?=$|[\\s"',;:)\\]])`, 'g'), '.');
  }
  return out;
}

/**
 * Resolves `userPath` (absolute, or relative to the first root that holds it) to a real path inside one of
 * `roots`. With `mayNotExist`, a missing file is resolved through its nearest existing parent,
 * so a store can be created; the final name itself must not be `..`.
 * Throws PATH_OUTSIDE_ROOTS (never says which part of the filesystem exists).
 */
export function resolveInsideRoots(roots: readonly string[], userPath: string, what: string, mayNotExist = false): string {
  if (userPath.includes('\u0000')) throw evioError('BAD_PARAMETER_ENCODING', `${what} contains a NUL byte`);
  if (roots.length === 0) throw evioError('PATH_OUTSIDE_ROOTS', `${what} "${userPath}": no directories are configured for it`);
  const realRoots = roots.map((r) => realOrNull(r) ?? resolve(r));
  let candidate = isAbsolute(userPath) ? userPath : resolve(roots[0]!, userPath);
  let real = realOrNull(candidate);
  // A relative name the first root does not hold: the first other root that does (answers name
  // files relative to their root: publicPath).
  if (real === null && !isAbsolute(userPath)) {
    for (const r of roots.slice(1)) {
      const c = resolve(r, userPath);
      const rc = realOrNull(c);
      if (rc !== null) {
        candidate = c;
        real = rc;
        break;
      }
    }
  }
  if (real === null && mayNotExist) {
    // Walk up to the nearest existing ancestor, resolve it, and re-append the missing tail.
    const tail: string[] = [];
    let cur = resolve(candidate);
    for (;;) {
      const name = basename(cur);
      if (name === '..' || name === '.') break;
      tail.unshift(name);
      cur = dirname(cur);
      const r = realOrNull(cur);
      if (r !== null) {
        real = resolve(r, ...tail);
        break;
      }
      if (cur === dirname(cur)) break;
    }
  }
  if (real === null) {
    // Same answer for "missing" and "outside" would hide existence, but a missing file inside
    // the roots is a normal condition; so only paths whose text lies inside a root get NOT_FOUND.
    const lexical = resolve(candidate);
    if (realRoots.some((r) => inside(r, lexical)) || roots.some((r) => inside(resolve(r), lexical))) {
      throw evioError('NOT_FOUND', `${what} "${userPath}" does not exist`);
    }
    throw evioError('PATH_OUTSIDE_ROOTS', `${what} "${userPath}" is outside the configured directories`);
  }
  if (!realRoots.some((r) => inside(r, real!))) {
    throw evioError('PATH_OUTSIDE_ROOTS', `${what} "${userPath}" is outside the configured directories`);
  }
  return real;
}
