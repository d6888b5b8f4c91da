// The flat-file event store: an NDJSON file answered by sequential scans (scan.ts), written by
// locked appends (append.ts) and atomic rewrites (rewrite.ts). docs/flatfile.md describes the
// format, the locking, crash safety and memory bounds. The writers, the index upkeep and the
// family snapshot are imported when first used: a one-shot query loads none of them
// (BENCHMARKS.md, "Start-up steps").
//
// No file descriptor is kept between calls: every query opens the file (and reads the inode it
// opened to the end, even if a delete renames a new file over the path meanwhile; a family query
// opens all its files first and reads that snapshot, family-snapshot.ts), every write reopens it
// under the lock.
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
import type { TailCache } from './append.js';
import { FileLock, type HeldLock } from '../../common/file-lock.js';
import type { RewriteOptions } from './rewrite.js';
import { readLastRecnum } from './tail.js';
import type { SnapshotMember } from './family-snapshot.js';
import { FinishMerge } from './finish-merge.js';
import { FAMILY_BASE, queryFile, type FileQueryContext, type IndexSettings, type ReadCounters, type StartAt } from './file-query.js';
import type { IndexUpkeep } from './index-upkeep.js';
import { indexPathFor, type SkipIndex } from './skip-index.js';
import { eachRow } from '../row-batches.js';

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
  /**
   * Read the log's whole rotation family (family.ts): the rotated files, oldest first, then the
   * live file, as one stream. Appends and deletes still act on the live file alone.
   */
  family?: boolean;
  /** Skip indexes (skip-index.ts); default on, beside the files, 1 s of building per query. */
  index?: Partial<IndexSettings>;
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
  /** Keeps the index current after appends (index-upkeep.ts). */
  private upkeep: IndexUpkeep | null = null;
  private closed = false;
  readonly family: boolean;
  readonly indexSettings: IndexSettings;
  /** Indexes loaded or built, by index path (checked against their file before every use). */
  readonly indexCache = new Map<string, SkipIndex>();
  /** Bytes the last query read (plain bytes, compressed bytes of gzip files). */
  readonly lastRead: ReadCounters = { bytes: 0 };

  constructor(opts: FlatFileStoreOptions) {
    this.path = resolve(opts.path);
    this.name = `ff:${opts.path}`;
    this.lock = new FileLock(this.path, { timeoutMs: opts.lockTimeoutMs ?? 10_000 });
    this.maxOpenAccepts = opts.maxOpenAccepts ?? 1_000_000;
    this.readSize = opts.readSize;
    this.confined = opts.confined ?? false;
    this.family = opts.family ?? false;
    this.indexSettings = { enabled: true, cacheDir: null, budgetMs: 1000, ...opts.index };
    // A log a request named lies in a folder the request side may change (symlink swaps,
    // docs/security.md): its index is read and written only in the operator's cache folder
    // (flatfileIndexDir), never beside it. Without that folder, such logs are scanned.
    if (this.confined && this.indexSettings.cacheDir === null) this.indexSettings.enabled = false;
  }

  private checkOpen(): void {
    if (this.closed) throw evioError('STORE_IO', `${this.name} is closed`);
  }

  /** Opens the log for reading: a regular file, where it was checked to be (confined). */
  private openChecked(path = this.path): Promise<FileHandle> {
    return openChecked(path, OPEN_READ, 'file', { at: this.confined ? path : null, follow: !this.confined });
  }

  /** Opens a file of the log for reading; null for a missing one when `missingOk`. */
  private async openForRead(path = this.path, missingOk = false): Promise<FileHandle | null> {
    try {
      return await this.openChecked(path);
    } catch (err) {
      if (isEvioError(err)) throw err;
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        if (missingOk) return null;
        throw evioError('STORE_NOT_FOUND', `${path} does not exist (a flat-file event log is created by its first append)`);
      }
      throw evioError('STORE_IO', `cannot open ${path}: ${(err as Error).message}`, err);
    }
  }

  /**
   * The files a query reads, oldest first, and where it starts. A family is opened whole first
   * (family-snapshot.ts): the caller closes the handles.
   */
  private async plan(q: EventQuery, signal: AbortSignal | undefined): Promise<{ members: SnapshotMember[]; first: number; start: StartAt }> {
    if (!this.family) {
      if (q.byteOffset >= FAMILY_BASE) throw evioError('FF_NO_FAMILY_POSITION', `offset=${q.byteOffset} names a record of a family query (a rotated file's or the live file's by recnum); add family=1`);
      return { members: [{ path: this.path, live: true, gz: false, fh: null, view: null }], first: 0, start: { byte: q.byteOffset } };
    }
    const { takeFamilySnapshot } = await import('./family-snapshot.js');
    const members = await takeFamilySnapshot(this.path, (p) => this.openForRead(p, true), signal);
    if (q.byteOffset >= FAMILY_BASE) return { members, first: 0, start: { afterRecnum: q.byteOffset - FAMILY_BASE } };
    // A byte offset is a position in the live file: the rotated files lie before it.
    if (q.byteOffset > 0) return { members, first: members.length - 1, start: { byte: q.byteOffset } };
    return { members, first: 0, start: { byte: 0 } };
  }

  query(q: EventQuery, opts?: QueryOptions): AsyncIterable<EventRow> {
    return eachRow(this.queryBatches(q, opts));
  }

  async *queryBatches(q: EventQuery, opts: QueryOptions = {}): AsyncIterable<EventRow[]> {
    this.checkOpen();
    opts.signal?.throwIfAborted();
    if (q.order !== 'recnum' || q.direction !== 'asc') {
      throw evioError('QUERY_ORDER_ON_FLATFILE', 'flat files are read in recnum order; order and orderdirection are refused');
    }
    const { members, first, start } = await this.plan(q, opts.signal);
    try {
      yield* this.readMembers(q, opts, members, first, start);
    } finally {
      // A family's members were opened by the snapshot (those not read yet are closed here); a
      // file queried alone is opened and closed by readMembers.
      if (this.family) await (await import('./family-snapshot.js')).closeAll(members);
    }
  }

  private async *readMembers(q: EventQuery, opts: QueryOptions, members: SnapshotMember[], first: number, start: StartAt): AsyncIterable<EventRow[]> {
    const stats = opts.stats ?? this.stats;
    stats.malformed = 0;
    stats.bytesRead = 0;
    this.lastRead.bytes = 0;
    this.lastRead.indexed = 0;
    this.lastRead.plannedScans = 0;
    // This query's own count: a store serves concurrent queries.
    const counters: ReadCounters = { bytes: 0 };
    const ctx: FileQueryContext = {
      q,
      merge: new FinishMerge(q, q.skip, q.limit, this.maxOpenAccepts),
      stats,
      signal: opts.signal,
      maxOpenAccepts: this.maxOpenAccepts,
      readSize: this.readSize,
      freq: { value: null },
      index: this.indexSettings,
      cache: this.indexCache,
      counters,
      budgetLeft: this.indexSettings.budgetMs,
      buffers: opts.buffers,
    };
    const merge = ctx.merge;
    if (merge.done) return;
    let at: StartAt = start;
    for (let m = first; m < members.length && !merge.done; m++) {
      const member = members[m]!;
      // A family's members are open (the snapshot); a file queried alone is opened now.
      const fh = this.family ? member.fh : await this.openForRead(member.path);
      // The live file of a family may be missing (rotated, not yet appended to): no rows.
      if (fh === null) {
        if (members.length === 1) await this.openForRead(member.path); // STORE_NOT_FOUND
        continue;
      }
      member.fh = null;
      try {
        // Resuming after a recnum: the files before the first one holding a greater recnum answer
        // nothing; from that one on, files are read from their start.
        if (yield* queryFile(member.path, fh, member.live, this.family, at, ctx, member.view)) at = { byte: 0 };
      } catch (err) {
        if (err instanceof Error && err.name !== 'EvioError' && err.name !== 'AbortError' && (err as NodeJS.ErrnoException).code) {
          throw evioError('STORE_IO', `reading ${member.path} failed: ${err.message}`, err);
        }
        throw err;
      } finally {
        await fh.close();
        stats.bytesRead = counters.bytes;
        this.lastRead.bytes = counters.bytes;
        this.lastRead.indexed = counters.indexed ?? 0;
        this.lastRead.plannedScans = counters.plannedScans ?? 0;
      }
    }
    if (merge.done) return;
    merge.endOfInput();
    const out: EventRow[] = [];
    merge.drain(out);
    if (out.length > 0) yield out;
  }

  /** Gzip members of a family are read-only (their blocks are compressed once, by rotate). */
  private refuseGzip(): void {
    if (this.path.endsWith('.gz')) throw evioError('FF_GZIP_READ_ONLY', `${this.path} is a compressed rotated log; appends and deletes go to plain files`);
  }

  async append(events: Iterable<NewEvent> | AsyncIterable<NewEvent>, opts: QueryOptions = {}): Promise<AppendResult> {
    this.checkOpen();
    this.refuseGzip();
    return this.writing(async (dir, held) => {
      await this.afterTakeover(dir, held);
      const { appendEvents } = await import('./append.js');
      const { result, cache } = await appendEvents({ path: this.path, dir, cache: this.tail, signal: opts.signal }, events).catch((err: unknown) => {
        this.tail = null;
        throw err;
      });
      this.tail = cache;
      // The index catches up after the lock is released, on its own thread (index-upkeep.ts).
      if (this.indexSettings.enabled) (this.upkeep ??= new (await import('./index-upkeep.js')).IndexUpkeep(this.path, this.indexSettings.cacheDir, this.indexCache)).after(cache.size, cache.ino);
      return result;
    }, opts.signal);
  }

  async delete(filter: EventFilter, opts: QueryOptions = {}): Promise<DeleteResult> {
    this.checkOpen();
    this.refuseGzip();
    return this.writing(async (dir) => {
      this.tail = null;
      await this.upkeep?.whenDone();
      this.upkeep?.reset();
      const ropts: RewriteOptions = { maxOpenAccepts: this.maxOpenAccepts, signal: opts.signal };
      if (this.readSize !== undefined) ropts.readSize = this.readSize;
      const { rewriteWithout } = await import('./rewrite.js');
      const res = await rewriteWithout(dir, this.path, filter, ropts);
      // The rename gave the path a new inode, which the old index does not name: it is stale
      // from that instant (indexMatches). Removing it only saves the next query the check.
      if (res.deleted > 0) {
        const idx = indexPathFor(this.path, this.indexSettings.cacheDir);
        this.indexCache.delete(idx);
        await (await import('./index-write.js')).dropIndex(idx);
      }
      return res;
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

  /**
   * Runs `fn` holding the writers' lock: no append, delete or rotation is half-way meanwhile, so
   * every record a query reads in `fn` was fsynced and acknowledged, and none of them can still be
   * cut back by a failed append (STORE_APPEND_UNDONE). The forwarders of event destinations read
   * this way what they cannot otherwise know to be acknowledged.
   */
  async whileWritersWait<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    this.checkOpen();
    return this.writing(async (dir, held) => {
      await this.afterTakeover(dir, held);
      return fn();
    }, signal);
  }

  /** Resolves when the index upkeep of the appends so far is done (tests, benchmarks, close). */
  whenIndexed(): Promise<void> {
    return this.upkeep?.whenDone() ?? Promise.resolve();
  }

  async close(): Promise<void> {
    await this.upkeep?.close();
    this.closed = true;
  }

  /** A writer that took a dead holder's lock cleans what that holder may have left. */
  private async afterTakeover(dir: DirHandle, held: HeldLock): Promise<void> {
    if (held.tookOver) await (await import('./rewrite.js')).cleanupStaleFiles(this.path, dir);
  }
}
