// Keeping the live file's skip index current from the append path. After an append (once the
// append has returned), when the index ends EXTEND_BLOCKS blocks or more before the file's end,
// the upkeep asks its thread (index-upkeep-worker.ts) to extend the index from the file: the new
// lines are read and parsed there, not on the thread that appends. Below that, queries scan so
// short a tail about as fast as an index would serve it. A log with no index gets none here
// (queries and `evio events index` build it), and an append never fails because of its index:
// the records are durable before any of this. The thread starts with the first extension a
// store needs and keeps the process alive only while it has work.
import { existsSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import { workerEntry } from '../../common/package-root.js';
import { indexKey } from './index-key.js';
import { loadIndex } from './index-load.js';
import { EXTEND_BLOCKS, indexPathFor, type SkipIndex } from './skip-index.js';

export interface UpkeepJob {
  id: number;
  path: string;
  idxPath: string;
  end: number;
  ino: string;
  /** The install's index key (index-key.ts), as the asking thread has it. */
  key?: Uint8Array;
}

export interface UpkeepDone {
  id: number;
  /** Where the index now ends (null: there is none, or it could not be read). */
  usize: number | null;
  blockBytes: number;
}

export class IndexUpkeep {
  private readonly idxPath: string;
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly waiting = new Map<number, () => void>();
  /** Where the index ends, as the thread last said (null: not known). */
  private usize: number | null = null;
  private blockBytes = 0;
  private last: Promise<void> = Promise.resolve();

  constructor(
    private readonly path: string,
    cacheDir: string | null,
    /** The store's loaded indexes: what its queries know of where the index ends. */
    private readonly cache: Map<string, SkipIndex>,
  ) {
    this.idxPath = indexPathFor(path, cacheDir);
  }

  /** After an append that left the file `end` bytes long (inode `ino`). Never throws. */
  after(end: number, ino: bigint): void {
    this.last = this.last.then(() => this.check(end, String(ino))).catch(() => undefined);
  }

  /** Resolves when the upkeep of the appends so far is done. */
  whenDone(): Promise<void> {
    return this.last;
  }

  async close(): Promise<void> {
    await this.last;
    await this.worker?.terminate();
    this.worker = null;
  }

  /** Forgets where the index ends (a delete rewrote the file). */
  reset(): void {
    this.usize = null;
  }

  private async check(end: number, ino: string): Promise<void> {
    const ix = this.cache.get(this.idxPath);
    if (ix && ix.dataIno === ino && ix.usize <= end && (this.usize === null || ix.usize > this.usize)) {
      this.usize = ix.usize;
      this.blockBytes = ix.blockBytes;
    }
    if (this.usize === null) {
      // Not known yet: read the index here (its heads and block table) once.
      if (!existsSync(this.idxPath)) return;
      const fh = await open(this.path, 'r');
      try {
        const s = await fh.stat({ bigint: true });
        const got = String(s.ino) === ino && Number(s.size) >= end ? await loadIndex(this.idxPath, fh, { ino: s.ino, size: end }, false) : null;
        if (!got) return;
        this.usize = got.usize;
        this.blockBytes = got.blockBytes;
      } finally {
        await fh.close();
      }
    }
    if (end - this.usize < EXTEND_BLOCKS * this.blockBytes) return;
    const done = await this.ask({ id: this.nextId++, path: this.path, idxPath: this.idxPath, end, ino });
    if (done) {
      this.usize = done.usize;
      this.blockBytes = done.blockBytes;
    }
  }

  private ask(job: UpkeepJob): Promise<UpkeepDone | null> {
    const w = this.thread();
    if (!w) return Promise.resolve(null);
    w.ref();
    return new Promise((resolve) => {
      this.waiting.set(job.id, () => resolve(null));
      const onDone = (d: UpkeepDone) => {
        if (d.id !== job.id) return;
        w.off('message', onDone);
        this.waiting.delete(job.id);
        if (this.waiting.size === 0) w.unref();
        resolve(d);
      };
      w.on('message', onDone);
      w.postMessage({ ...job, key: indexKey() });
    });
  }

  private thread(): Worker | null {
    if (this.worker) return this.worker;
    const entry = workerEntry('index-upkeep-worker', 'eventlog/flatfile');
    if (!existsSync(entry)) return null; // not built: queries extend the index instead
    const w = new Worker(entry);
    w.unref();
    const gone = () => {
      for (const r of this.waiting.values()) r();
      this.waiting.clear();
      if (this.worker === w) this.worker = null;
    };
    w.on('error', gone);
    w.on('exit', gone);
    this.worker = w;
    return w;
  }
}
