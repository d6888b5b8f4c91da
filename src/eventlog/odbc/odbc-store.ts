// An event database reached through an ODBC data source (`format=odbc&dsn=NAME`): the DBMS is
// detected, and evio's schema is read (and written) with that DBMS's paging and wildcard syntax.
import { checkDsnName } from './dsn-name.js';
import { checkSchemaName } from '../sql/profile.js';
import { SqlEventStore, type SqlStoreOptions } from '../sql/sql-store.js';
import type { SqlDriver } from '../sql/driver.js';
import { OdbcDriver } from './odbc-driver.js';
import { loadOdbc } from './odbc-module.js';

export interface OdbcStoreOptions extends SqlStoreOptions {
  /** The data source name (odbc.ini). */
  dsn: string;
  /**
   * Full connection string; default `DSN=<dsn>`. Attributes after the DSN override the DSN's
   * (tests point one DSN at a database file of their own: `DSN=evio_sqlite;Database=/tmp/x.sqlite`).
   */
  connectionString?: string;
  /** PostgreSQL behind the DSN: a schema of its own (created if absent). */
  schema?: string;
  /** Bound on every statement, ms (settings.statementTimeoutMs). */
  statementTimeoutMs?: number;
  connectTimeoutSeconds?: number;
  /** Rows per cursor fetch (default 64 on PostgreSQL, 16 elsewhere). */
  fetchSize?: number;
  maxIdleConnections?: number;
  /** The module to load (default `odbc`); another name simulates a machine without it. */
  moduleName?: string;
}

export class OdbcStore extends SqlEventStore {
  readonly kind = 'odbc' as const;
  readonly dsn: string;
  private readonly options: OdbcStoreOptions;
  private driverRef: OdbcDriver | null = null;

  /** `new OdbcStore('central')` or options (see OdbcStoreOptions). */
  constructor(dsnOrOptions: string | OdbcStoreOptions) {
    const o = typeof dsnOrOptions === 'string' ? { dsn: dsnOrOptions } : dsnOrOptions;
    super(`odbc:${o.dsn}`, { batchSize: o.batchSize ?? 2000, insertRows: o.insertRows ?? 50 });
    checkDsnName(o.dsn);
    if (o.schema !== undefined) checkSchemaName(o.schema);
    this.dsn = o.dsn;
    this.options = o;
  }

  protected async openDriver(): Promise<SqlDriver> {
    const o = this.options;
    const odbc = await loadOdbc(o.moduleName);
    const driver = await OdbcDriver.open(odbc, {
      storeName: this.name,
      connectionString: o.connectionString ?? `DSN=${o.dsn}`,
      schema: o.schema ?? null,
      statementTimeoutMs: o.statementTimeoutMs ?? 30_000,
      connectTimeoutSeconds: o.connectTimeoutSeconds ?? 10,
      fetchSize: o.fetchSize,
      maxIdle: o.maxIdleConnections ?? 4,
    });
    this.driverRef = driver;
    return driver;
  }

  /** The DBMS family and version detected behind the DSN (after the first use). */
  async dbms(): Promise<{ flavor: string; version: string }> {
    await this.ready();
    return this.driverRef!.dbms;
  }
}
