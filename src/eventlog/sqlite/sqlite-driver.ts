// better-sqlite3 behind the SqlDriver contract. One writer connection (WAL mode, a busy timeout,
// one transaction at a time) and a few read-only connections for queries; WAL lets readers run
// beside the writer. A streamed answer is read in short keyset batches, each a statement run to
// its end on a reader taken for that batch only: a client that reads slowly (or not at all) holds
// no statement, no read transaction and no connection between batches, so it neither pins the
// WAL (checkpoints go on) nor keeps a connection and its page cache.
import { createPrivateFile } from '../../private-files.js';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import Database from 'better-sqlite3';
import type { SqlDriver, SqlSession } from '../sql/driver.js';
import { sqlProfile, type SqlProfile } from '../sql/profile.js';
import type { RawRow } from '../sql/select.js';
import type { KeysetBatches, SqlStatement } from '../sql/statement.js';
import { SerialLock } from './serial-lock.js';
import { sqliteError } from './sqlite-errors.js';
import { StatementCache } from './statement-cache.js';

export interface SqliteDriverOptions {
  path: string;
  /** Shown in messages (`db:PATH`). */
  storeName: string;
  /** How long a statement waits for another process's write lock, ms. */
  busyTimeoutMs: number;
  /** Rows read synchronously before the stream yields to the event loop. */
  streamBatch: number;
  /** Read-only connections kept open between queries. */
  maxIdleReaders: number;
  /** Refuse (SQLITE_CANTOPEN) instead of creating a missing file. */
  fileMustExist?: boolean;
  /**
   * Another profile than SQLite's own (tests run the portable SQL of other DBMS families, such
   * as plain LIKE and paging in memory, on SQLite), and pragmas every connection then needs.
   */
  profile?: SqlProfile;
  connectionPragmas?: readonly string[];
}

interface Connection {
  db: Database.Database;
  cache: StatementCache;
}

const isAbort = (err: unknown) => (err as { name?: string } | null)?.name === 'AbortError';

export class SqliteDriver implements SqlDriver {
  readonly profile: SqlProfile;
  private readonly writer: Connection;
  private readonly writeLock = new SerialLock();
  private readonly idleReaders: Connection[] = [];
  private readonly inMemory: boolean;
  private closed = false;

  constructor(private readonly opts: SqliteDriverOptions) {
    this.profile = opts.profile ?? sqlProfile('sqlite', { driver: 'native' });
    this.inMemory = opts.path === ':memory:';
    try {
      if (!this.inMemory && !opts.fileMustExist) {
        mkdirSync(dirname(opts.path), { recursive: true });
        // A new database is 0600 from the start (its -wal and -shm follow it); an existing one keeps its mode.
        createPrivateFile(opts.path);
      }
      const db = new Database(opts.path, { fileMustExist: opts.fileMustExist === true });
      this.configure(db);
      if (!this.inMemory) db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL'); // with WAL: durable at checkpoints, never corrupt
      this.writer = { db, cache: new StatementCache(db) };
    } catch (err) {
      throw sqliteError(err, opts.storeName);
    }
  }

  private configure(db: Database.Database): void {
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(this.opts.busyTimeoutMs))}`);
    for (const p of this.opts.connectionPragmas ?? []) db.pragma(p);
  }

  private session(c: Connection): SqlSession {
    const name = this.opts.storeName;
    return {
      async run(s: SqlStatement) {
        try {
          return c.cache.get(s.sql).run(...s.params).changes;
        } catch (err) {
          throw sqliteError(err, name);
        }
      },
      async all(s: SqlStatement) {
        try {
          return c.cache.get(s.sql).all(...s.params) as RawRow[];
        } catch (err) {
          throw sqliteError(err, name);
        }
      },
      async runMany(sql: string, rows: Iterable<readonly unknown[]>) {
        try {
          const st = c.cache.get(sql);
          for (const r of rows) st.run(...r);
        } catch (err) {
          throw sqliteError(err, name);
        }
      },
    };
  }

  private acquireReader(): Connection {
    if (this.inMemory) return this.writer; // one connection holds the whole database
    const idle = this.idleReaders.pop();
    if (idle) return idle;
    try {
      const db = new Database(this.opts.path, { readonly: true, fileMustExist: true });
      this.configure(db);
      return { db, cache: new StatementCache(db) };
    } catch (err) {
      throw sqliteError(err, this.opts.storeName);
    }
  }

  private releaseReader(c: Connection, healthy: boolean): void {
    if (c === this.writer) return;
    if (healthy && !this.closed && this.idleReaders.length < this.opts.maxIdleReaders) this.idleReaders.push(c);
    else c.db.close();
  }

  transaction<T>(work: (s: SqlSession) => Promise<T>): Promise<T> {
    return this.writeLock.run(async () => {
      const db = this.writer.db;
      try {
        db.exec('BEGIN IMMEDIATE'); // take the write lock now: the batch reads, then writes
      } catch (err) {
        throw sqliteError(err, this.opts.storeName);
      }
      try {
        const out = await work(this.session(this.writer));
        db.exec('COMMIT');
        return out;
      } catch (err) {
        if (db.inTransaction) db.exec('ROLLBACK');
        throw isAbort(err) ? err : sqliteError(err, this.opts.storeName);
      }
    });
  }

  async read<T>(work: (s: SqlSession) => Promise<T>): Promise<T> {
    const c = this.acquireReader();
    let healthy = false;
    try {
      const out = await work(this.session(c));
      healthy = true;
      return out;
    } finally {
      this.releaseReader(c, healthy);
    }
  }

  /** Runs a statement to its end on a reader taken for it alone. */
  private readAll(s: SqlStatement): RawRow[] {
    const c = this.acquireReader();
    let healthy = false;
    try {
      const rows = c.cache.get(s.sql).all(...s.params) as RawRow[];
      healthy = true;
      return rows;
    } catch (err) {
      throw sqliteError(err, this.opts.storeName);
    } finally {
      this.releaseReader(c, healthy);
    }
  }

  private async *keysetBatches(s: SqlStatement, batches: KeysetBatches, signal?: AbortSignal): AsyncGenerator<RawRow[]> {
    const ceiling = Number(this.readAll(batches.ceiling)[0]?.last ?? 0);
    let left = s.maxRows ?? Number.POSITIVE_INFINITY;
    let after: RawRow | null = null;
    while (left > 0) {
      const rows = Math.min(this.opts.streamBatch, left);
      const batch = this.readAll(batches.next(after, rows, ceiling));
      if (batch.length > 0) yield batch;
      left -= batch.length;
      if (batch.length < rows) return;
      after = batch[batch.length - 1]!;
      signal?.throwIfAborted();
      await nextTurn(); // stepping is synchronous: let the event loop breathe between batches
    }
  }

  async *stream(s: SqlStatement, signal?: AbortSignal): AsyncGenerator<RawRow[]> {
    if (this.inMemory) {
      // The only connection is the writer: read the answer at once, between transactions.
      const rows = await this.writeLock.run(async () => this.session(this.writer).all(s));
      if (rows.length > 0) yield rows;
      return;
    }
    if (s.maxRows !== undefined && s.maxRows <= this.opts.streamBatch) {
      // A page no larger than one batch: one all(), one batch.
      const rows = this.readAll(s);
      if (rows.length > 0) yield rows;
      return;
    }
    if (s.batches) {
      yield* this.keysetBatches(s, s.batches, signal);
      return;
    }
    // A dialect without a paging syntax (tests of other DBMS families): one stepped statement.
    const c = this.acquireReader();
    let it: IterableIterator<unknown> | undefined;
    try {
      try {
        it = c.cache.get(s.sql).iterate(...s.params);
      } catch (err) {
        throw sqliteError(err, this.opts.storeName);
      }
      for (;;) {
        const batch: RawRow[] = [];
        try {
          while (batch.length < this.opts.streamBatch) {
            const n = it.next();
            if (n.done) break;
            batch.push(n.value as RawRow);
          }
        } catch (err) {
          throw sqliteError(err, this.opts.storeName);
        }
        if (batch.length > 0) yield batch;
        if (batch.length < this.opts.streamBatch) break;
        signal?.throwIfAborted();
        await nextTurn(); // stepping is synchronous: let the event loop breathe between batches
      }
    } finally {
      it?.return?.(); // resets the statement: the reader is free for the next query
      this.releaseReader(c, true);
    }
  }

  /** Closes the writer and idle readers; a reader still streaming closes when its query ends. */
  async close(): Promise<void> {
    this.closed = true;
    await this.writeLock.run(async () => {
      for (const c of this.idleReaders.splice(0)) c.db.close();
      if (this.writer.db.open) this.writer.db.close();
    });
  }
}
