// What the SQL builder needs to know about a database: which DBMS family it is, how it writes
// placeholders, pages, sorts NULLs and matches wildcards, and where evio's tables live. The
// three SQL stores (SQLite, PostgreSQL, ODBC) share one builder and differ only in this profile
// and in their driver code.
import { evioError } from '../../errors.js';
import type { SqlDialect } from '../../common/sql-wildcard.js';

/** The DBMS family behind a store (for ODBC: detected through the data source). */
export type SqlFlavor = 'sqlite' | 'pg' | 'mssql' | 'oracle' | 'mysql' | 'generic';

export interface SqlProfile {
  readonly flavor: SqlFlavor;
  /** Wildcard compiler dialect (sql-wildcard.ts): GLOB, LIKE/~, or plain LIKE. */
  readonly wildcard: SqlDialect;
  readonly placeholders: 'question' | 'dollar';
  /** LIMIT/OFFSET, OFFSET ... FETCH, or none (skip and limit are then applied while streaming). */
  readonly paging: 'limit-offset' | 'offset-fetch' | 'memory';
  /**
   * How `NULL sorts as the smallest value` is written: the DBMS already does it ('smallest':
   * SQLite, SQL Server, MySQL), NULLS FIRST/LAST ('explicit': PostgreSQL, Oracle), or a
   * portable CASE key ('case': unknown DBMS).
   */
  readonly nulls: 'smallest' | 'explicit' | 'case';
  /** LIKE also reads `[...]` as a class (SQL Server): patterns with a literal `[` finish in memory. */
  readonly likeBrackets: boolean;
  /** Lists travel as one array parameter (`= ANY($1)`, node-postgres) instead of `IN (?, ...)`. */
  readonly arrayParams: boolean;
  /** The driver rounds doubles it returns (SQLite ODBC: 15 digits): read them as exact text. */
  readonly doublesAsText: boolean;
  /** Statement that serialises writers for one transaction (readers go on), or null. */
  readonly writeLockSql: string | null;
  /** Refreshes the planner's statistics during a bulk load, or null (SQLite plans well without). */
  readonly analyzeSql: string | null;
  /**
   * The same for the columns a load's own statements filter on (recnum, uniqueid, etype,
   * fin_recnum), for a load whose secondary indexes are dropped: without statistics the planner
   * links finishes by scanning the whole table per batch instead of by events_uniqueid.
   */
  readonly analyzeLoadSql: string | null;
  /** evio creates its schema on this DBMS (others need docs/databases.md's DDL by hand). */
  readonly ownsDdl: boolean;
  /** Qualified table names. */
  readonly events: string;
  readonly meta: string;
  /** The schema (PostgreSQL) the tables live in; null = the connection's default. */
  readonly schema: string | null;
  /** Most bound parameters one statement may carry on this path. */
  readonly maxParams: number;
}

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** A schema name from configuration or tests: a plain identifier, quoted when used. */
export function checkSchemaName(schema: string): string {
  if (!SCHEMA_NAME.test(schema)) {
    throw evioError('SETTINGS_INVALID', `schema "${schema}" must be a plain identifier (letters, digits, _; at most 63 characters)`);
  }
  return schema;
}

export interface ProfileOptions {
  /** Native driver (better-sqlite3, node-postgres) or ODBC. */
  driver: 'native' | 'odbc';
  schema?: string | null;
}

export function sqlProfile(flavor: SqlFlavor, opts: ProfileOptions): SqlProfile {
  const schema = opts.schema ? checkSchemaName(opts.schema) : null;
  if (schema !== null && flavor === 'sqlite') {
    throw evioError('SETTINGS_INVALID', 'an SQLite event database has no schema option; use another file');
  }
  const qualify = (t: string) => (schema ? `"${schema}".${t}` : t);
  const events = qualify('events');
  const base = {
    flavor,
    events,
    meta: qualify('evio_meta'),
    schema,
    placeholders: 'question' as const,
    arrayParams: false,
    doublesAsText: false,
    likeBrackets: false,
    writeLockSql: null,
    analyzeSql: null,
    analyzeLoadSql: null,
    ownsDdl: false,
    maxParams: opts.driver === 'odbc' ? 900 : 30000,
  };
  switch (flavor) {
    case 'sqlite':
      return { ...base, wildcard: 'sqlite', paging: 'limit-offset', nulls: 'smallest', ownsDdl: true, doublesAsText: opts.driver === 'odbc' };
    case 'pg':
      return {
        ...base,
        wildcard: 'pg',
        paging: 'limit-offset',
        nulls: 'explicit',
        ownsDdl: true,
        placeholders: opts.driver === 'native' ? 'dollar' : 'question',
        arrayParams: opts.driver === 'native',
        // Conflicts with itself and with every write, not with reads (ACCESS SHARE).
        writeLockSql: `LOCK TABLE ${events} IN SHARE ROW EXCLUSIVE MODE`,
        analyzeSql: `ANALYZE ${events}`,
        analyzeLoadSql: `ANALYZE ${events} (recnum, uniqueid, etype, fin_recnum)`,
      };
    case 'mssql':
      return { ...base, wildcard: 'like', paging: 'offset-fetch', nulls: 'smallest', likeBrackets: true };
    case 'oracle':
      return { ...base, wildcard: 'like', paging: 'offset-fetch', nulls: 'explicit' };
    case 'mysql':
      return { ...base, wildcard: 'like', paging: 'limit-offset', nulls: 'smallest' };
    case 'generic':
      return { ...base, wildcard: 'like', paging: 'memory', nulls: 'case' };
  }
}
