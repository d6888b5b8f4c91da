// Directory listing (GET /REST/iolog?path=DIR[&filter=REGEX]): one level, entries
// {name, path, size, mtime (Unix seconds), type}. Symlinks are not listed (their targets may
// lie outside the roots); system directories are refused. The name filter is a user regex,
// so it runs with the same budgets as the search: per batch of names, and over the whole
// listing (`budgetMs`, the searchBudgetMs setting). Runs in a worker.
// The directory is held open while it is listed (DirHandle): its entries are read and lstat'ed
// in the directory that was checked, even if a directory on its path is swapped meanwhile.
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { evioError, isEvioError } from '../errors.js';
import { DirHandle } from '../safe-open.js';
import { FILTER_MAX_LENGTH, LIST_DIR_MAX_ENTRIES } from './limits.js';
import { isCastName, isSudoSessionDir, resolveIologPath } from './locate.js';
import { BudgetedMatcher, compileUserRegex } from './regex-budget.js';
import { RegexBudget } from './request-budget.js';

export interface DirEntry {
  name: string;
  path: string;
  size: number;
  mtime: number;
  /** dir, file, session (a sudo session directory) or asciicast. */
  type: 'dir' | 'file' | 'session' | 'asciicast';
}

export interface DirListing {
  path: string;
  entries: DirEntry[];
  /** More entries exist than one answer carries. */
  truncated: boolean;
}

export async function listDirectory(roots: readonly string[], userPath: string, filter: string | undefined, budgetMs?: number): Promise<DirListing> {
  const dir = resolveIologPath(roots, userPath, 'path');
  const st = await lstat(dir).catch((err: NodeJS.ErrnoException) => {
    // Resolved a moment ago: gone (or a directory on its path swapped) since.
    throw evioError('NOT_FOUND', `path "${userPath}" does not exist`, err);
  });
  if (!st.isDirectory()) throw evioError('IOLOG_NOT_A_DIRECTORY', `path "${userPath}" is not a directory`);
  const matcher = filter ? new BudgetedMatcher(compileUserRegex(filter, 'IOLOG_BAD_FILTER', FILTER_MAX_LENGTH)) : null;
  let held: DirHandle;
  try {
    held = await DirHandle.open(dir, { at: dir });
  } catch (err) {
    if (isEvioError(err, 'NOT_A_REGULAR_FILE')) throw evioError('IOLOG_NOT_A_DIRECTORY', `path "${userPath}" is not a directory`);
    if (isEvioError(err)) throw err;
    return { path: dir, entries: [], truncated: false }; // unreadable, as before: nothing to list
  }
  try {
    let dirents = (await readdir(held.self, { withFileTypes: true }).catch(() => [])).filter((e) => e.isFile() || e.isDirectory());
    if (matcher) {
      const hits = matcher.test(dirents.map((e) => e.name), false, budgetMs ? new RegexBudget(budgetMs) : undefined);
      dirents = hits.map((i) => dirents[i]!);
    }
    dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const truncated = dirents.length > LIST_DIR_MAX_ENTRIES;
    const entries: DirEntry[] = [];
    for (const e of dirents.slice(0, LIST_DIR_MAX_ENTRIES)) {
      let s;
      try {
        s = await lstat(held.at(e.name));
      } catch {
        continue; // vanished meanwhile
      }
      let type: DirEntry['type'];
      if (s.isDirectory()) type = (await isSudoSessionDir(held.at(e.name))) ? 'session' : 'dir';
      else if (s.isFile()) type = isCastName(e.name) ? 'asciicast' : 'file';
      else continue;
      entries.push({ name: e.name, path: join(dir, e.name), size: s.size, mtime: Math.floor(s.mtimeMs / 1000), type });
    }
    return { path: dir, entries, truncated };
  } finally {
    await held.close();
  }
}
