// Building the skip indexes of a log (or of its whole family) explicitly, without a time bound:
// what `evio events index` runs. Each index is checked against its file first; only what is
// missing or stale is built, and a live file's index is extended over what was appended.
import { constants } from 'node:fs';
import { access, mkdir, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import { evioError, isEvioError } from '../../errors.js';
import { listFamily } from './family.js';
import { isGzipFile } from './gzip.js';
import { buildGzipIndex, buildPlainIndex } from './index-build.js';
import { indexMatches, loadIndex } from './index-load.js';
import { indexPathFor } from './skip-index.js';

export interface IndexReport {
  path: string;
  index: string | null;
  /** built | extended | current | not indexable (why). */
  outcome: string;
  bytes: number;
  indexBytes: number;
  blocks: number;
  ms: number;
}

export async function buildIndexes(
  path: string,
  opts: { cacheDir: string | null; family: boolean; blockBytes?: number; signal?: AbortSignal; onProgress?: (path: string, done: number, total: number) => void },
): Promise<IndexReport[]> {
  const members = opts.family ? await listFamily(path) : [{ path, live: true, gz: false }];
  const out: IndexReport[] = [];
  for (const m of members) {
    const t0 = Date.now();
    let fh;
    try {
      fh = await open(m.path, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        if (!opts.family) throw evioError('STORE_NOT_FOUND', `${m.path} does not exist`);
        continue;
      }
      throw evioError('STORE_IO', `cannot open ${m.path}: ${(err as Error).message}`, err);
    }
    try {
      const st0 = await fh.stat({ bigint: true });
      const st = { ino: st0.ino, size: Number(st0.size) };
      const gz = await isGzipFile(fh);
      const idxPath = indexPathFor(m.path, opts.cacheDir);
      const prev = await loadIndex(idxPath, fh, st, gz);
      let outcome = 'current';
      let ix = prev;
      const progress = (d: number, t: number) => opts.onProgress?.(m.path, d, t);
      try {
        if (gz) {
          if (!prev) {
            ix = await buildGzipIndex(fh, st, idxPath, { signal: opts.signal, onProgress: progress });
            outcome = ix ? 'built' : 'not indexable (a gzip file not written by evio events rotate --compress: it is scanned)';
          }
        } else if (!prev || prev.usize < st.size) {
          await canWrite(idxPath);
          ix = await buildPlainIndex(fh, st, prev, idxPath, { signal: opts.signal, onProgress: progress, ...(opts.blockBytes ? { blockBytes: opts.blockBytes } : {}) });
          outcome = !ix ? 'not indexable (a line longer than 32 MiB)' : prev ? (ix === prev ? 'current' : 'extended') : 'built';
        }
      } catch (err) {
        if (isEvioError(err) || (err as Error).name === 'AbortError') throw err;
        throw evioError('FF_INDEX_BUILD', `cannot write ${idxPath}: ${(err as Error).message}`, err);
      }
      if (ix && ix !== prev && !(await indexMatches(ix, fh, st, gz))) throw evioError('FF_INDEX_BUILD', `${m.path} changed while it was indexed; run the command again`);
      // The index file's size when it was last read or written (loadIndex, withSegments).
      const indexBytes = ix ? ix.fileSize : 0;
      out.push({ path: m.path, index: ix ? idxPath : null, outcome, bytes: st.size, indexBytes, blocks: ix?.blocks ?? 0, ms: Date.now() - t0 });
    } finally {
      await fh.close();
    }
  }
  return out;
}

/** The index's folder can be written: a build says so up front instead of scanning quietly. */
async function canWrite(idxPath: string): Promise<void> {
  await mkdir(dirname(idxPath), { recursive: true });
  await access(dirname(idxPath), constants.W_OK);
}
