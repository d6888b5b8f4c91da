// The flat-file event store: an NDJSON file answered by sequential scans (scan.ts), written by
// locked appends (append.ts) and atomic rewrites (rewrite.ts). docs/flatfile.md describes the
// format, the locking, crash safety and memory bounds.
//
// No file descriptor is kept between calls: every query opens the file (and reads the inode it
// opened to the end, even if a delete renames a new file over the path meanwhile), every write
// reopens it under the lock.
//
// A store a request named is `confined`: its path is the real path resolveInsideRoots checked,
// and every open must land exactly there (safe-open.ts). Writes hold the log's directory open
// (DirHandle) for their whole turn, so the lock, the scratch files and the rename happen in the
// directory that was checked, even if a directory on the path is swapped for a symlink meanwhile.
import type { FileHandle } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { evioError, isEvioError } from '../../errors.js';
import { DirHandle, openChecked, OPEN_READ } from '../../safe-open.js';
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
  /**
   * The path is a real path checked inside eventlogdirs (a request named it): every open must
   * land exactly there, and no symlink is followed. Default false (the local operator's paths,
   * symlinks allowed).
   */
  confined?: boolean;
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
  private readonly confined: boolean;
  private tail: TailCache | null = null;
  private closed = false;

  constructor(opts: FlatFileStoreOptions) {
    this.path = resolve(opts.path);
    this.name = `ff:${opts.path}`;
    this.lock = new FileLock(this.path, { timeoutMs: opts.lockTimeoutMs ?? 10_000 });
    this.maxOpenAccepts = opts.maxOpenAccepts ?? 1_000_000;
    this.readSize = opts.readSize;
    this.confined = opts.confined ?? false;
  }

  private checkOpen(): void {
    if (this.closed) throw evioError('STORE_IO', `${this.name} is closed`);
  }

  /** Opens the log for reading: a regular file, where it was checked to be (confined). */
  private openChecked(): Promise<FileHandle> {
    return openChecked(this.path, OPEN_READ, 'file', { at: this.confined ? this.path : null, follow: !this.confined });
  }

  private async openForRead(): Promise<FileHandle> {
    try {
      return await this.openChecked();
    } catch (err) {
      if (isEvioError(err)) throw err;
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
    return this.writing(async (dir, held) => {
      await this.afterTakeover(dir, held);
      const { result, cache } = await appendEvents({ path: this.path, dir, cache: this.tail, signal: opts.signal }, events).catch((err: unknown) => {
        this.tail = null;
        throw err;
      });
      this.tail = cache;
      return result;
    }, opts.signal);
  }

  async delete(filter: EventFilter, opts: QueryOptions = {}): Promise<DeleteResult> {
    this.checkOpen();
    return this.writing(async (dir) => {
      this.tail = null;
      const ropts: RewriteOptions = { maxOpenAccepts: this.maxOpenAccepts, signal: opts.signal };
      if (this.readSize !== undefined) ropts.readSize = this.readSize;
      return rewriteWithout(dir, this.path, filter, ropts);
    }, opts.signal);
  }

  /** Runs a write holding the log's directory open and, in it, the writer lock. */
  private async writing<T>(fn: (dir: DirHandle, held: HeldLock) => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    const d = dirname(this.path);
    let dir: DirHandle;
    try {
      dir = await DirHandle.open(d, { at: this.confined ? d : null, follow: !this.confined });
    } catch (err) {
      if (isEvioError(err)) throw err;
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') throw evioError('STORE_NOT_FOUND', `the directory of ${this.path} does not exist`, err);
      // Checked to be a directory, now a symlink or a file: swapped since the check.
      if (this.confined && (code === 'ELOOP' || code === 'ENOTDIR')) {
        throw evioError('PATH_CHANGED', `the directory of ${this.path} was replaced while it was opened; it was not used`, err);
      }
      throw evioError('STORE_IO', `cannot open the directory of ${this.path}: ${(err as Error).message}`, err);
    }
    try {
      return await this.lock.withLock((held) => fn(dir, held), signal, dir);
    } finally {
      await dir.close();
    }
  }

  async lastRecnum(): Promise<number> {
    this.checkOpen();
    let fh: FileHandle;
    try {
      fh = await this.openChecked();
    } catch (err) {
      if (isEvioError(err)) throw err;
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
  private async afterTakeover(dir: DirHandle, held: HeldLock): Promise<void> {
    if (held.tookOver) await cleanupStaleFiles(this.path, dir);
  }
}
