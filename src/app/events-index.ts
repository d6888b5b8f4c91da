// `evio events index FILE`: builds (or brings up to date) the skip indexes of a flat-file event
// log — the file alone, or with --family its rotated files too (docs/flatfile.md, "Skip index").
// Queries build what is missing themselves within flatfileIndexBuildMs; this is the explicit way,
// with no time bound and with progress.
import { resolve } from 'node:path';
import type { Engine } from '../engine.js';
import { evioError } from '../errors.js';
import { buildIndexes, type IndexReport } from '../eventlog/flatfile/index-files.js';
import { flatfileIndexSettings } from '../eventlog/stores.js';

export type { IndexReport } from '../eventlog/flatfile/index-files.js';

export async function indexEventLog(
  engine: Engine,
  r: { file?: string | undefined; family?: boolean; signal?: AbortSignal; onProgress?: (path: string, done: number, total: number) => void },
): Promise<IndexReport[]> {
  if (r.file !== undefined && /^(db|pg|odbc):/.test(r.file)) throw evioError('ROTATE_NOT_FLATFILE', `${r.file} is not a flat file; only flat-file event logs have skip indexes`);
  const path = resolve(r.file === undefined ? engine.settings.eventlog : r.file.replace(/^ff:/, ''));
  const s = flatfileIndexSettings(engine);
  return buildIndexes(path, { cacheDir: s.cacheDir, family: r.family ?? false, ...(r.signal ? { signal: r.signal } : {}), ...(r.onProgress ? { onProgress: r.onProgress } : {}) });
}
