// Where the asciicast v1 cache (cast-v1-cache.ts) lives, and its removal when casts are purged:
// file operations only, so the purge does not load the v1 parser.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** The cast cache folder that goes with a seek index file (iologcache-seek.sqlite → iologcache-cast-v1). */
export function castCacheDirForSeek(seekFile: string): string {
  return seekFile.replace(/-seek\.sqlite$/, '') + '-cast-v1';
}

/**
 * Removes the caches of purged casts (and of every cast below a purged directory); the number
 * removed. A folder that does not exist or cannot be read removes nothing.
 */
export function dropV1Caches(dir: string, paths: readonly string[]): number {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json'));
  } catch {
    return 0;
  }
  const prefixes = paths.map((p) => (p.endsWith('/') ? p : `${p}/`));
  let n = 0;
  for (const name of names) {
    let path: unknown;
    try {
      path = (JSON.parse(readFileSync(join(dir, name), 'utf8')) as { path?: unknown }).path;
    } catch {
      continue;
    }
    if (typeof path !== 'string' || !paths.some((p, i) => path === p || path.startsWith(prefixes[i]!))) continue;
    rmSync(join(dir, name), { force: true });
    rmSync(join(dir, name.replace(/\.json$/, '.frames')), { force: true });
    n++;
  }
  return n;
}
