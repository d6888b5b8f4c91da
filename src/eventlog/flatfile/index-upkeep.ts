// Keeping the live file's skip index current from the append path. The appender is told of
// every line it writes (the record it already holds, its position); after the append, when at
// least one block's worth of the file is not indexed, those lines are indexed without being
// parsed again and added as a segment at the end of the index (index-write.ts). Below a block
// nothing is done: queries scan so short a tail as fast as an index would serve it. A log with
// no index yet gets none here (queries and `evio events index` build it), and an append never
// fails because of its index: the records are durable before any of this runs.
import { open } from 'node:fs/promises';
import type { StoredEvent } from '../types.js';
import type { IndexSettings } from './file-query.js';
import { buildPlainIndex, type KnownLines } from './index-build.js';
import { indexMatches, loadIndex } from './index-load.js';
import { indexPathFor, type SkipIndex } from './skip-index.js';

/** Records kept per append for the index; a larger append leaves its lines to be parsed by queries. */
const MAX_KNOWN = 1 << 16;

export class AppendIndexer {
  private known: KnownLines | null = { at: [], recs: [] };

  /** The appender's observer (append.ts, onLine). */
  readonly onLine = (rec: StoredEvent, at: number, _len: number): void => {
    const k = this.known;
    if (k === null) return;
    if (k.at.length >= MAX_KNOWN) {
      this.known = null;
      return;
    }
    k.at.push(at);
    k.recs.push(rec);
  };

  constructor(
    private readonly path: string,
    private readonly settings: IndexSettings,
    private readonly cache: Map<string, SkipIndex>,
  ) {}

  /** After a successful append: extends the index over what is not indexed yet, if enough. */
  async finish(): Promise<void> {
    if (this.known === null) return;
    try {
      const fh = await open(this.path, 'r');
      try {
        const s = await fh.stat({ bigint: true });
        const st = { ino: s.ino, size: Number(s.size) };
        const idxPath = indexPathFor(this.path, this.settings.cacheDir);
        let ix = this.cache.get(idxPath) ?? null;
        if (ix && !(await indexMatches(ix, fh, st, false))) ix = null;
        ix ??= await loadIndex(idxPath, fh, st, false);
        if (!ix || st.size - ix.usize < ix.blockBytes) return;
        const built = await buildPlainIndex(fh, st, ix, idxPath, { known: this.known, budgetMs: this.settings.budgetMs });
        if (built) this.cache.set(idxPath, built);
      } finally {
        await fh.close();
      }
    } catch {
      // The index is an accelerator: the next query extends it or scans.
    }
  }
}
