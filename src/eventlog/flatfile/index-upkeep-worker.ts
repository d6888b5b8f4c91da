// The thread that keeps skip indexes current for the append path (index-upkeep.ts). Told "the
// log at PATH is now END bytes long", it extends the log's index from the file — the new lines
// read and parsed here, so the appending thread does not pay for them — once EXTEND_BLOCKS
// blocks are unindexed, and answers with where the index now ends. Jobs run one at a time.
import { open } from 'node:fs/promises';
import { parentPort } from 'node:worker_threads';
import { buildPlainIndex } from './index-build.js';
import { setIndexKey } from './index-key.js';
import { indexFileUnchanged, indexMatches, loadIndex } from './index-load.js';
import { EXTEND_BLOCKS, type SkipIndex } from './skip-index.js';
import type { UpkeepDone, UpkeepJob } from './index-upkeep.js';

/** Time one job may spend reading and parsing (the rest: the next job). */
const UPKEEP_BUDGET_MS = 1000;

/** The index as this thread last left it, per index file (kept with its builder, index-build.ts). */
const held = new Map<string, SkipIndex>();
let chain: Promise<unknown> = Promise.resolve();

parentPort!.on('message', (job: UpkeepJob) => {
  chain = chain.then(async () => {
    if (job.key) setIndexKey(Buffer.from(job.key));
    const done: UpkeepDone = { id: job.id, usize: null, blockBytes: 0 };
    try {
      const ix = await run(job);
      if (ix) {
        done.usize = ix.usize;
        done.blockBytes = ix.blockBytes;
      }
    } catch {
      // The index is an accelerator: queries extend it or scan.
    }
    parentPort!.postMessage(done);
  });
});

async function run(job: UpkeepJob): Promise<SkipIndex | null> {
  const fh = await open(job.path, 'r');
  try {
    const s = await fh.stat({ bigint: true });
    if (String(s.ino) !== job.ino || Number(s.size) < job.end) return null;
    // Up to the end of this append: later appends' lines are theirs to index.
    const st = { ino: s.ino, size: job.end };
    let ix = held.get(job.idxPath) ?? null;
    if (ix && !((await indexFileUnchanged(job.idxPath, ix)) && (await indexMatches(ix, fh, st, false)))) ix = null;
    ix ??= await loadIndex(job.idxPath, fh, st, false);
    if (!ix) {
      held.delete(job.idxPath);
      return null;
    }
    if (st.size - ix.usize >= EXTEND_BLOCKS * ix.blockBytes) ix = (await buildPlainIndex(fh, st, ix, job.idxPath, { budgetMs: UPKEEP_BUDGET_MS })) ?? ix;
    held.set(job.idxPath, ix);
    return ix;
  } finally {
    await fh.close();
  }
}
