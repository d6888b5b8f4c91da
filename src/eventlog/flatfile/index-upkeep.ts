// Keeping the live file's skip index current from the append path. The appender tells the
// upkeep of every line it writes (the record it already holds, its position); once a few blocks'
// worth of the file is not indexed (UPKEEP_BLOCKS of the index's blocks), those lines are indexed without being parsed
// again and added as a segment at the end of the index (index-write.ts). Below that nothing is
// done: queries scan so short a tail about as fast as an index would serve it. A log with no
// index yet gets none here (queries and `evio events index` build it), and an append never fails
// because of its index: the records are durable before any of this runs.
import { open } from 'node:fs/promises';
import type { StoredEvent } from '../types.js';
import type { IndexSettings } from './query-context.js';
import { buildPlainIndex, type KnownLines } from './index-build.js';
import { indexMatches, loadIndex } from './index-load.js';
import { indexPathFor, type SkipIndex } from './skip-index.js';

/** Records kept for the index; past this many the rest are parsed again from the file. */
const MAX_KNOWN = 1 << 14;
/** Unindexed blocks that make the append path extend the index (1 MiB with the default blocks). */
export const UPKEEP_BLOCKS = 4;

export class AppendIndexer {
  private known: KnownLines = { at: [], len: [], recs: [] };

  /** The appender's observer (append.ts, onLine). */
  readonly onLine = (rec: StoredEvent, at: number, len: number): void => {
    const k = this.known;
    if (k.at.length >= MAX_KNOWN) return;
    k.at.push(at);
    k.len.push(len);
    k.recs.push(rec);
  };

  constructor(
    private readonly path: string,
    private readonly settings: IndexSettings,
    private readonly cache: Map<string, SkipIndex>,
  ) {}

  /** Forgets the lines it was told of (a delete rewrote the file: their positions changed). */
  reset(): void {
    this.known = { at: [], len: [], recs: [] };
  }

  /** After an append that left the file `end` bytes long (inode `ino`): extends the index if enough is not indexed. */
  async finish(end: number, ino: bigint): Promise<void> {
    try {
      const idxPath = indexPathFor(this.path, this.settings.cacheDir);
      let ix = this.cache.get(idxPath) ?? null;
      if (ix && (ix.dataIno !== String(ino) || ix.usize > end)) ix = null;
      // Nothing to do while the unindexed tail is short (checked on the index in memory).
      if (ix && end - ix.usize < UPKEEP_BLOCKS * ix.blockBytes) return;
      const fh = await open(this.path, 'r');
      try {
        const s = await fh.stat({ bigint: true });
        // Up to the end of this append: later appends' lines are theirs to index.
        if (s.ino !== ino || Number(s.size) < end) return this.reset();
        const st = { ino: s.ino, size: end };
        if (ix && !(await indexMatches(ix, fh, st, false))) ix = null;
        ix ??= await loadIndex(idxPath, fh, st, false);
        if (!ix) return this.reset(); // no index to keep: nothing is held for one
        if (st.size - ix.usize < UPKEEP_BLOCKS * ix.blockBytes) return;
        const known = this.known;
        this.reset();
        const built = await buildPlainIndex(fh, st, ix, idxPath, { known, budgetMs: this.settings.budgetMs });
        if (built) this.cache.set(idxPath, built);
      } finally {
        await fh.close();
      }
    } catch {
      // The index is an accelerator: the next query extends it or scans.
    }
  }
}
