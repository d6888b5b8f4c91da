// Directory listing (GET /REST/iolog?path=DIR[&filter=REGEX]): one level, entries
// {name, path, size, mtime (Unix seconds), type}. Symlinks are not listed (their targets may
// lie outside the roots); system directories are refused. The name filter is a user regex,
// so it runs with the same budgets as the search: per batch of names, and over the whole
// listing (`budgetMs`, the searchBudgetMs setting). Runs in a worker.
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { evioError } from '../errors.js';
import { FILTER_MAX_LENGTH, LIST_DIR_MAX_ENTRIES } from './limits.js';
import { isCastName, isSudoSessionDir, readDirents, resolveIologPath } from './locate.js';
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
  const st = await lstat(dir);
  if (!st.isDirectory()) throw evioError('IOLOG_NOT_A_DIRECTORY', `path "${userPath}" is not a directory`);
  const matcher = filter ? new BudgetedMatcher(compileUserRegex(filter, 'IOLOG_BAD_FILTER', FILTER_MAX_LENGTH)) : null;
  let dirents = (await readDirents(dir)).filter((e) => e.isFile() || e.isDirectory());
  if (matcher) {
    const hits = matcher.test(dirents.map((e) => e.name), false, budgetMs ? new RegexBudget(budgetMs) : undefined);
    dirents = hits.map((i) => dirents[i]!);
  }
  dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const truncated = dirents.length > LIST_DIR_MAX_ENTRIES;
  const entries: DirEntry[] = [];
  for (const e of dirents.slice(0, LIST_DIR_MAX_ENTRIES)) {
    const p = join(dir, e.name);
    let s;
    try {
      s = await lstat(p);
    } catch {
      continue; // vanished meanwhile
    }
    let type: DirEntry['type'];
    if (s.isDirectory()) type = (await isSudoSessionDir(p)) ? 'session' : 'dir';
    else if (s.isFile()) type = isCastName(e.name) ? 'asciicast' : 'file';
    else continue;
    entries.push({ name: e.name, path: p, size: s.size, mtime: Math.floor(s.mtimeMs / 1000), type });
  }
  return { path: dir, entries, truncated };
}
