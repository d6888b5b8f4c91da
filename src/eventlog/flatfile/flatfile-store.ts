// The flat-file event store: an NDJSON file answered by sequential scans (scan.ts), written by
// locked appends (append.ts) and atomic rewrites (rewrite.ts). docs/flatfile.md describes the
// format, the locking, crash safety and memory bounds.
//
// No file descriptor is kept between calls: every query opens the file (and reads the inode it
// opened to the end, even if a delete renames a new file over the path meanwhile), every write
// reopens it under the lock.
import { open, type FileHandle } from 'node:fs/promises';
import { resolve } from 'node:path';
import { evioError } from '../../errors.js';
import type { AppendResult, DeleteResult, EventFilter, EventQuery, EventRow, EventStore, NewEvent, QueryOptions, ScanStats } from '../types.js';
import { appendEvents, type TailCache } from './append.js';
import { fileSource } from './line-reader.js';
import { FileLock, type HeldLock } from '../../common/file-lock.js';
import { cleanupStaleFiles, rewriteWithout, type RewriteOptions } from './rewrite.js';
import { checkByteOffset, scanRows } from './scan.js';
import { readLastRecnum } from './tail.js';

export interface FlatFileStoreOptions {
  path: string;
  /** How long a writer waits for the lock (settings.lockTimeoutMs). Default 10 s. */
  lockTimeoutMs?: number;
  /** dump=0 queries and deletes: rows that may wait for finish records at once (settings.maxOpenAccepts). Default 1,000,000. */
  maxOpenAccepts?: number;
  /** Bytes per read (tests use tiny values). Default 1 MiB. */
  readSize?: number;
}

export class FlatFileStore implements EventStore {
  readonly kind = 'ff' as const;
  readonly name: string;
  readonly path: string;
  readonly stats: ScanStats = { malformed: 0 };
  /** The writer lock, `<path>.lock` (also taken by the rotate job). */
  readonly lock: FileLock;
  private readonly maxOpenAccepts: number;
  private readonly readSize: number | undefined;
  private tail: TailCache | null = null;
  private closed = false;

  constructor(opts: FlatFileStoreOptions) {
    this.path = resolve(opts.path);
    this.name = `ff:${opts.path}`;
    this.lock = new FileLock(this.path, { timeoutMs: opts.lockTimeoutMs ?? 10_000 });
    this.maxOpenAccepts = opts.maxOpenAccepts ?? 1_000_000;
    this.readSize = opts.readSize;
  }

  private checkOpen(): void {
    if (this.closed) throw evioError('STORE_IO', `${this.name} is closed`);
  }

  private async openForRead(): Promise<FileHandle> {
    try {
      return await open(this.path, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        throw evioError('STORE_NOT_FOUND', `${this.path} does not exist (a flat-file event log is created by its first append)`);
      }
      throw evioError('STORE_IO', `cannot open ${this.path}: ${(err as Error).message}`, err);
    }
  }

  async *query(q: EventQuery, opts: QueryOptions = {}): AsyncIterable<EventRow> {
    this.checkOpen();
    opts.signal?.throwIfAborted();
    const fh = await this.openForRead();
    try {
      const source = fileSource(fh);
      const { size } = await fh.stat();
      await checkByteOffset(source, size, q.byteOffset, this.path);
      const stats = opts.stats ?? this.stats;
      stats.malformed = 0;
      yield* scanRows(source, q, {
        sizeHint: size - q.byteOffset,
        maxOpenAccepts: this.maxOpenAccepts,
        signal: opts.signal,
        stats,
        ...(this.readSize === undefined ? {} : { readSize: this.readSize }),
      });
    } catch (err) {
      if (err instanceof Error && err.name !== 'EvioError' && err.name !== 'AbortError' && (err as NodeJS.ErrnoException).code) {
        throw evioError('STORE_IO', `reading ${this.path} failed: ${err.message}`, err);
      }
      throw err;
    } finally {
      await fh.close();
    }
  }

  async append(events: Iterable<NewEvent> | AsyncIterable<NewEvent>, opts: QueryOptions = {}): Promise<AppendResult> {
    this.checkOpen();
    return this.lock.withLock(async (held) => {
      await this.afterTakeover(held);
      const { result, cache } = await appendEvents({ path: this.path, cache: this.tail, signal: opts.signal }, events).catch((err: unknown) => {
        this.tail = null;
        throw err;
      });
      this.tail = cache;
      return result;
    }, opts.signal);
  }

  async delete(filter: EventFilter, opts: QueryOptions = {}): Promise<DeleteResult> {
    this.checkOpen();
    return this.lock.withLock(async () => {
      this.tail = null;
      const ropts: RewriteOptions = { maxOpenAccepts: this.maxOpenAccepts, signal: opts.signal };
      if (this.readSize !== undefined) ropts.readSize = this.readSize;
      return rewriteWithout(this.path, filter, ropts);
    }, opts.signal);
  }

  async lastRecnum(): Promise<number> {
    this.checkOpen();
    let fh: FileHandle;
    try {
      fh = await open(this.path, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw evioError('STORE_IO', `cannot open ${this.path}: ${(err as Error).message}`, err);
    }
    try {
      const st = await fh.stat({ bigint: true });
      const size = Number(st.size);
      const c = this.tail;
      if (c && c.dev === st.dev && c.ino === st.ino && c.size === size) return c.last;
      const last = await readLastRecnum(fh, size);
      this.tail = { dev: st.dev, ino: st.ino, size, last };
      return last;
    } finally {
      await fh.close();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  /** A writer that took a dead holder's lock cleans what that holder may have left. */
  private async afterTakeover(held: HeldLock): Promise<void> {
    if (held.tookOver) await cleanupStaleFiles(this.path);
  }
}
