// The embedded default event database: an SQLite file (created with evio's schema if absent).
import { SqlEventStore, type SqlStoreOptions } from '../sql/sql-store.js';
import type { SqlDriver } from '../sql/driver.js';
import { SqliteDriver } from './sqlite-driver.js';

export interface SqliteStoreOptions extends SqlStoreOptions {
  path: string;
  /** How long a write waits for another process's lock before STORE_LOCK_TIMEOUT, ms. */
  busyTimeoutMs?: number;
  /** Rows stepped synchronously between yields to the event loop. */
  streamBatch?: number;
  /** Read-only connections kept open for queries. */
  maxIdleReaders?: number;
  /** Open only an existing database file (and, with createSchema false, only an evio one). */
  fileMustExist?: boolean;
}

export class SqliteStore extends SqlEventStore {
  readonly kind = 'sqlite' as const;
  readonly path: string;
  private readonly driverOptions: Required<Pick<SqliteStoreOptions, 'busyTimeoutMs' | 'streamBatch' | 'maxIdleReaders' | 'fileMustExist'>>;

  /** `new SqliteStore('/var/lib/evio/events.sqlite')`; the file and schema appear on first use. */
  constructor(pathOrOptions: string | SqliteStoreOptions) {
    const o = typeof pathOrOptions === 'string' ? { path: pathOrOptions } : pathOrOptions;
    super(`db:${o.path}`, { batchSize: o.batchSize ?? 20_000, insertRows: o.insertRows ?? 50, createSchema: o.createSchema ?? true });
    this.path = o.path;
    this.driverOptions = { busyTimeoutMs: o.busyTimeoutMs ?? 10_000, streamBatch: o.streamBatch ?? 1000, maxIdleReaders: o.maxIdleReaders ?? 4, fileMustExist: o.fileMustExist ?? false };
  }

  protected async openDriver(): Promise<SqlDriver> {
    return new SqliteDriver({ path: this.path, storeName: this.name, ...this.driverOptions });
  }
}
