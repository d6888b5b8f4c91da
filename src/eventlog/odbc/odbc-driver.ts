// The odbc package behind the SqlDriver contract. The DBMS behind the data source is detected
// once and picks the profile (paging syntax, wildcard dialect, NULL order). Queries stream with
// the odbc cursor API (fetchSize rows per fetch); the connection string asks the drivers to
// fetch incrementally too (psqlodbc: UseDeclareFetch; SQLite driver: StepAPI), else a driver
// would copy the whole result set into memory before the first fetch.
import type { SqlDriver, SqlSession } from '../sql/driver.js';
import { sqlProfile, type SqlProfile } from '../sql/profile.js';
import type { RawRow } from '../sql/select.js';
import type { SqlStatement } from '../sql/statement.js';
import { detectDbms, type DetectedDbms } from './detect-dbms.js';
import { isOdbcConnectionGone, odbcError } from './odbc-errors.js';
import type { OdbcConnection, OdbcCursor, OdbcModule, OdbcQueryOptions, OdbcResult, OdbcValue } from './odbc-module.js';

export interface OdbcDriverOptions {
  storeName: string;
  connectionString: string;
  schema: string | null;
  statementTimeoutMs: number;
  connectTimeoutSeconds: number;
  /** Rows per cursor fetch; default by DBMS (the odbc package binds fetchSize x column-size buffers). */
  fetchSize: number | undefined;
  maxIdle: number;
}

function values(params: unknown[]): OdbcValue[] {
  return params.map((v) => (v === null || v === undefined ? null : typeof v === 'number' || typeof v === 'string' ? v : String(v)));
}

export class OdbcDriver implements SqlDriver {
  private readonly idle: OdbcConnection[] = [];
  private closed = false;
  private readonly connectionString: string;
  private readonly fetchSize: number;

  private constructor(
    private readonly odbc: OdbcModule,
    private readonly opts: OdbcDriverOptions,
    readonly dbms: DetectedDbms,
    readonly profile: SqlProfile,
  ) {
    this.connectionString = opts.connectionString + OdbcDriver.streamingAttributes(dbms.flavor);
    // The odbc package binds, per text column, fetchSize buffers as large as the column may be
    // (SQLite driver: 256 KiB per TEXT value): small blocks keep that allocation cheap. A value
    // longer than its buffer is cut; the store then reads that record again on its own.
    this.fetchSize = opts.fetchSize ?? (dbms.flavor === 'pg' ? 64 : 16);
  }

  /** Connection-string attributes that make the driver fetch rows as they are asked for. */
  private static streamingAttributes(flavor: DetectedDbms['flavor']): string {
    if (flavor === 'pg') return ';UseDeclareFetch=1;Fetch=1000';
    if (flavor === 'sqlite') return ';StepAPI=1';
    return '';
  }

  static async open(odbc: OdbcModule, opts: OdbcDriverOptions): Promise<OdbcDriver> {
    const first = await OdbcDriver.connect(odbc, opts, opts.connectionString);
    let dbms: DetectedDbms;
    try {
      dbms = await detectDbms(first);
    } finally {
      await first.close().catch(() => {});
    }
    return new OdbcDriver(odbc, opts, dbms, sqlProfile(dbms.flavor, { driver: 'odbc', schema: opts.schema }));
  }

  private static async connect(odbc: OdbcModule, opts: OdbcDriverOptions, connectionString: string): Promise<OdbcConnection> {
    try {
      return await odbc.connect({ connectionString, connectionTimeout: opts.connectTimeoutSeconds, loginTimeout: opts.connectTimeoutSeconds });
    } catch (err) {
      throw odbcError(err, opts.storeName, 'connect', opts.statementTimeoutMs);
    }
  }

  private fail(err: unknown) {
    return odbcError(err, this.opts.storeName, 'query', this.opts.statementTimeoutMs);
  }

  /** The statement timeout: PostgreSQL enforces it server-side; other drivers get a query timeout. */
  private queryOptions(extra: OdbcQueryOptions = {}): OdbcQueryOptions {
    if (this.profile.flavor === 'pg') return extra;
    return { ...extra, timeout: Math.max(1, Math.ceil(this.opts.statementTimeoutMs / 1000)) };
  }

  private async acquire(): Promise<OdbcConnection> {
    const idle = this.idle.pop();
    if (idle) return idle;
    const conn = await OdbcDriver.connect(this.odbc, this.opts, this.connectionString);
    if (this.profile.flavor === 'pg') {
      const ms = Math.max(0, Math.floor(this.opts.statementTimeoutMs)); // an integer from the settings
      try {
        await conn.query(`SET statement_timeout = ${ms}`, []);
      } catch (err) {
        await conn.close().catch(() => {});
        throw this.fail(err);
      }
    }
    return conn;
  }

  private release(conn: OdbcConnection, healthy: boolean): void {
    if (healthy && !this.closed && this.idle.length < this.opts.maxIdle) this.idle.push(conn);
    else void conn.close().catch(() => {});
  }

  private session(conn: OdbcConnection): SqlSession {
    return {
      run: async (s: SqlStatement) => {
        try {
          const r = (await conn.query(s.sql, values(s.params), this.queryOptions())) as OdbcResult;
          return typeof r.count === 'number' && r.count > 0 ? r.count : 0;
        } catch (err) {
          throw this.fail(err);
        }
      },
      all: async (s: SqlStatement) => {
        try {
          return [...((await conn.query(s.sql, values(s.params), this.queryOptions())) as OdbcResult)] as RawRow[];
        } catch (err) {
          throw this.fail(err);
        }
      },
    };
  }

  private static gone(err: unknown): boolean {
    return isOdbcConnectionGone((err as { cause?: unknown }).cause ?? err);
  }

  async transaction<T>(work: (s: SqlSession) => Promise<T>): Promise<T> {
    const conn = await this.acquire();
    let healthy = true;
    try {
      try {
        await conn.beginTransaction();
      } catch (err) {
        throw this.fail(err);
      }
      const out = await work(this.session(conn));
      try {
        await conn.commit();
      } catch (err) {
        throw this.fail(err);
      }
      return out;
    } catch (err) {
      if (OdbcDriver.gone(err)) healthy = false;
      else await conn.rollback().catch(() => (healthy = false));
      throw err;
    } finally {
      this.release(conn, healthy);
    }
  }

  async read<T>(work: (s: SqlSession) => Promise<T>): Promise<T> {
    const conn = await this.acquire();
    let healthy = true;
    try {
      return await work(this.session(conn));
    } catch (err) {
      if (OdbcDriver.gone(err)) healthy = false;
      throw err;
    } finally {
      this.release(conn, healthy);
    }
  }

  async *stream(s: SqlStatement, signal?: AbortSignal): AsyncGenerator<RawRow[]> {
    const conn = await this.acquire();
    let cursor: OdbcCursor | undefined;
    let healthy = true;
    try {
      try {
        cursor = (await conn.query(s.sql, values(s.params), this.queryOptions({ cursor: true, fetchSize: this.fetchSize }))) as OdbcCursor;
      } catch (err) {
        throw this.fail(err);
      }
      for (;;) {
        let batch: OdbcResult;
        try {
          batch = await cursor.fetch();
        } catch (err) {
          throw this.fail(err);
        }
        if (batch.length > 0) yield batch as unknown as RawRow[];
        if (batch.length === 0 || cursor.noData) break;
        signal?.throwIfAborted();
      }
    } catch (err) {
      if (OdbcDriver.gone(err)) healthy = false;
      throw err;
    } finally {
      if (cursor) await cursor.close().catch(() => (healthy = false));
      this.release(conn, healthy);
    }
  }

  /** Closes idle connections; those still streaming close when their query ends. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled(this.idle.splice(0).map((c) => c.close()));
  }
}
