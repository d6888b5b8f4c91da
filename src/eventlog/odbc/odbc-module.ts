// The optional `odbc` package, loaded only when an ODBC store is used: a machine where it could
// not be built still installs and runs everything else, and ODBC calls answer ODBC_UNAVAILABLE.
import { evioError } from '../../errors.js';

/** The part of the odbc package's API evio uses (typed here: the package may be absent). */
export interface OdbcResult extends Array<Record<string, unknown>> {
  count: number;
}

export interface OdbcCursor {
  readonly noData: boolean;
  fetch(): Promise<OdbcResult>;
  close(): Promise<void>;
}

export interface OdbcQueryOptions {
  cursor?: boolean;
  fetchSize?: number;
  /** Seconds (SQL_ATTR_QUERY_TIMEOUT). */
  timeout?: number;
}

export type OdbcValue = string | number | null;

export interface OdbcConnection {
  query(sql: string, params: OdbcValue[], options?: OdbcQueryOptions): Promise<OdbcResult | OdbcCursor>;
  beginTransaction(): Promise<void>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
  close(): Promise<void>;
}

export interface OdbcModule {
  connect(params: { connectionString: string; connectionTimeout?: number; loginTimeout?: number }): Promise<OdbcConnection>;
}

const loaded = new Map<string, Promise<OdbcModule>>();

export const ODBC_INSTALL_HINT = 'install unixODBC and its headers (apt-get install unixodbc unixodbc-dev), then run npm rebuild odbc (or npm install odbc)';

/** The odbc module (cached); ODBC_UNAVAILABLE with what to install when it cannot be loaded. */
export function loadOdbc(specifier = 'odbc'): Promise<OdbcModule> {
  let p = loaded.get(specifier);
  if (!p) {
    p = (async () => {
      try {
        const mod = (await import(specifier)) as { default?: OdbcModule } & Partial<OdbcModule>;
        const api = (mod.default ?? mod) as OdbcModule;
        if (typeof api.connect !== 'function') throw new Error('it has no connect()');
        return api;
      } catch (err) {
        const why = err instanceof Error ? err.message.split('\n')[0] : String(err);
        throw evioError('ODBC_UNAVAILABLE', `the ${specifier} module cannot be loaded (${why}); ${ODBC_INSTALL_HINT}`, err);
      }
    })();
    loaded.set(specifier, p);
  }
  return p;
}
