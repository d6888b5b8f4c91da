// A PostgreSQL event database (a central log server's years of events), behind the same
// EventStore contract as SQLite. evio owns the schema (created on first use, versioned).
import { checkSchemaName } from '../sql/profile.js';
import { SqlEventStore, type SqlStoreOptions } from '../sql/sql-store.js';
import type { SqlDriver } from '../sql/driver.js';
import { PostgresDriver } from './pg-driver.js';
import { redactUrl } from './pg-url.js';

export interface PostgresStoreOptions extends SqlStoreOptions {
  /** postgres:// URL; absent: the libpq environment variables (PGHOST, PGPORT, PGDATABASE, PGUSER, PGPASSWORD). */
  connectionString?: string;
  /** How the store is named in messages (`pg:NAME`); default: the URL without its password. */
  name?: string;
  /** A schema of its own (created if absent), e.g. an isolated one per test; default: the search_path's. */
  schema?: string;
  /** statement_timeout on every connection, ms (settings.statementTimeoutMs). */
  statementTimeoutMs?: number;
  connectTimeoutMs?: number;
  poolSize?: number;
  /** Rows per FETCH from the server-side cursor. */
  fetchSize?: number;
  applicationName?: string;
}

/** A URL as it may be shown: the password replaced. */
function defaultName(url: string | undefined): string {
  if (url !== undefined) return redactUrl(url);
  const e = process.env;
  return `${e.PGUSER ?? ''}${e.PGUSER ? '@' : ''}${e.PGHOST ?? 'localhost'}:${e.PGPORT ?? '5432'}/${e.PGDATABASE ?? e.PGUSER ?? ''}`;
}

export class PostgresStore extends SqlEventStore {
  readonly kind = 'pg' as const;
  private readonly options: PostgresStoreOptions;

  /** `new PostgresStore('postgres://evio@db.example/events')`, or options (see PostgresStoreOptions). */
  constructor(urlOrOptions: string | PostgresStoreOptions = {}) {
    const o = typeof urlOrOptions === 'string' ? { connectionString: urlOrOptions } : urlOrOptions;
    super(`pg:${o.name ?? defaultName(o.connectionString)}`, { batchSize: o.batchSize ?? 20_000, insertRows: o.insertRows ?? 500 });
    if (o.schema !== undefined) checkSchemaName(o.schema);
    this.options = o;
  }

  /** The store's one pool: queries, appends and readiness probes share its connections. */
  private driver: PostgresDriver | null = null;

  private pooled(): PostgresDriver {
    if (this.driver && !this.driver.closed) return this.driver;
    const o = this.options;
    this.driver = new PostgresDriver({
      storeName: this.name,
      connectionString: o.connectionString,
      schema: o.schema ?? null,
      statementTimeoutMs: o.statementTimeoutMs ?? 30_000,
      connectTimeoutMs: o.connectTimeoutMs ?? 10_000,
      poolSize: o.poolSize ?? 10,
      fetchSize: o.fetchSize ?? 1000,
      applicationName: o.applicationName ?? 'evio',
    });
    return this.driver;
  }

  protected async openDriver(): Promise<SqlDriver> {
    return this.pooled();
  }

  /**
   * Readiness (GET /readyz): null when the database answers SELECT 1 on a connection of this
   * store's pool within `timeoutMs`, else a short reason naming nothing (pg-ping.ts). The schema
   * is neither checked nor created.
   */
  ping(timeoutMs: number): Promise<string | null> {
    return this.pooled().ping(timeoutMs);
  }

  override async close(): Promise<void> {
    await super.close();
    await this.driver?.close();
    this.driver = null;
  }
}
