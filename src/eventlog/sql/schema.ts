// evio's event-database schema: one `events` table whose accept rows carry their finish's exit
// columns (so dump=0 is an indexed query, not a join at read time), and `evio_meta`, which names
// and versions the schema. Created on first use; a newer or foreign schema is refused.
import { evioError } from '../../errors.js';
import type { SqlProfile } from './profile.js';
import { statement, type SqlStatement } from './statement.js';

export const SCHEMA_ID = 'evio-events';
export const SCHEMA_VERSION = 1;

/**
 * Columns of `events`, in insert order.
 *   exitstatus          as stored (F and R records)
 *   exittime            as stored: an F record's own time, else NULL            (dump=1 view)
 *   fin_recnum          A/K: the recnum of its finish record, NULL while none exists
 *   merged_exitstatus   what dump=0 shows: A/K the finish's exitstatus, R/F their own
 *   merged_exittime     what dump=0 shows: A/K the finish's time, else NULL
 *   record              the stored record as JSON, returned as is
 */
export const EVENT_COLUMNS = [
  'recnum', 'uniqueid', 'etype', 'time', 'submituser', 'submithost', 'runuser', 'runhost', 'runcommand',
  'exitstatus', 'exittime', 'fin_recnum', 'merged_exitstatus', 'merged_exittime', 'record',
] as const;
export type EventColumn = (typeof EVENT_COLUMNS)[number];

/**
 * Indexes: (column, recnum) for every filter and order column (filter, then order with the
 * recnum tie-break, from one index), except uniqueid: (uniqueid, etype, recnum) serves its
 * filters and the finish merge ("the first F after this row with its uniqueid"); fin_recnum
 * for re-linking after deletes.
 * Columns that may be NULL: their PostgreSQL indexes put NULLs first, as ascending queries sort them.
 */
const NULLABLE_INDEXED = ['submituser', 'submithost', 'runuser', 'runhost', 'runcommand', 'exitstatus', 'exittime', 'merged_exitstatus', 'merged_exittime'] as const;

/**
 * One upgrade step per version: MIGRATIONS[n] takes a schema from version n to n + 1 (run in one
 * transaction, then evio_meta's version is set to n + 1). Version 1 is the first release.
 */
export const MIGRATIONS: Record<number, (p: SqlProfile) => string[]> = {};

/** Index names are unqualified: PostgreSQL puts an index in its table's schema. */
function indexName(name: string): string {
  return `events_${name}`;
}

/** Names of the secondary indexes (every index but the primary key's), unqualified. */
export function secondaryIndexNames(p: SqlProfile): string[] {
  const cols = p.flavor === 'pg' ? ['uniqueid', 'etype', 'time', 'time_brin', ...NULLABLE_INDEXED, 'fin_recnum'] : ['uniqueid', 'etype', 'time', ...NULLABLE_INDEXED, 'fin_recnum'];
  return cols.map(indexName);
}

/**
 * CREATE INDEX IF NOT EXISTS for every secondary index: the schema's own DDL, and what a bulk
 * load that deferred them (bulk-load.ts) runs to build them after the rows.
 */
export function secondaryIndexSql(p: SqlProfile): string[] {
  const out: string[] = [];
  const ci = (name: string, on: string) => out.push(`CREATE INDEX IF NOT EXISTS ${indexName(name)} ON ${p.events} ${on}`);
  if (p.flavor === 'pg') {
    ci('uniqueid', '(uniqueid, etype, recnum)');
    ci('etype', '(etype, recnum)');
    ci('time', '(time, recnum)');
    // Append-mostly data arrives in time order: a BRIN index answers time ranges from a few pages.
    ci('time_brin', 'USING brin (time)');
    for (const c of NULLABLE_INDEXED) ci(c, `(${c} NULLS FIRST, recnum)`);
    ci('fin_recnum', '(fin_recnum)');
  } else if (p.flavor === 'sqlite') {
    // SQLite sorts NULLs first in ascending order already; (column, recnum) serves filter and order.
    ci('uniqueid', '(uniqueid, etype, recnum)');
    for (const c of ['etype', 'time', ...NULLABLE_INDEXED]) ci(c, `(${c}, recnum)`);
    ci('fin_recnum', '(fin_recnum)');
  } else {
    throw evioError('STORE_SCHEMA', `evio builds indexes on PostgreSQL and SQLite only, not on a ${p.flavor} database`);
  }
  return out;
}

/**
 * DROP INDEX IF EXISTS for the secondary indexes a bulk load builds after the rows (PostgreSQL:
 * in the events table's schema): all but events_uniqueid, which the load's own finish linking
 * looks rows up by.
 */
export function dropSecondaryIndexSql(p: SqlProfile): string[] {
  return secondaryIndexNames(p).filter((n) => n !== indexName('uniqueid')).map((n) => `DROP INDEX IF EXISTS ${p.schema ? `"${p.schema}".` : ''}${n}`);
}

/** DDL creating the schema at SCHEMA_VERSION (for DBMSes where evio owns the DDL). */
export function createSchemaSql(p: SqlProfile): string[] {
  const out: string[] = [];
  if (p.flavor === 'pg') {
    const text = 'text COLLATE "C"'; // code-point order and deterministic comparisons
    const dbl = 'double precision';
    if (p.schema) out.push(`CREATE SCHEMA IF NOT EXISTS "${p.schema}"`);
    out.push(`CREATE TABLE ${p.meta} (meta_key text PRIMARY KEY, meta_value text NOT NULL)`);
    out.push(`CREATE TABLE ${p.events} (
  recnum bigint PRIMARY KEY,
  uniqueid ${text} NOT NULL,
  etype ${text} NOT NULL,
  time ${dbl} NOT NULL,
  submituser ${text}, submithost ${text}, runuser ${text}, runhost ${text}, runcommand ${text},
  exitstatus ${text},
  exittime ${dbl},
  fin_recnum bigint,
  merged_exitstatus ${text},
  merged_exittime ${dbl},
  record text NOT NULL
)`);
    out.push(...secondaryIndexSql(p));
  } else if (p.flavor === 'sqlite') {
    out.push(`CREATE TABLE ${p.meta} (meta_key TEXT PRIMARY KEY, meta_value TEXT NOT NULL)`);
    out.push(`CREATE TABLE ${p.events} (
  recnum INTEGER PRIMARY KEY,
  uniqueid TEXT NOT NULL,
  etype TEXT NOT NULL,
  time REAL NOT NULL,
  submituser TEXT, submithost TEXT, runuser TEXT, runhost TEXT, runcommand TEXT,
  exitstatus TEXT,
  exittime REAL,
  fin_recnum INTEGER,
  merged_exitstatus TEXT,
  merged_exittime REAL,
  record TEXT NOT NULL
)`);
    out.push(...secondaryIndexSql(p));
  } else {
    throw evioError('STORE_SCHEMA', `evio creates its schema on PostgreSQL and SQLite only; on a ${p.flavor} database create it from docs/databases.md`);
  }
  return out;
}

/** Rows for evio_meta, bound as (meta_key, meta_value) pairs. */
export function metaRows(version = SCHEMA_VERSION): Array<[string, string]> {
  return [
    ['schema', SCHEMA_ID],
    ['version', String(version)],
  ];
}

/** What a store found when it opened a database. */
export interface SchemaState {
  hasEvents: boolean;
  hasMeta: boolean;
  /** evio_meta's rows, when it exists. */
  meta: Map<string, string> | null;
}

export type SchemaAction = { action: 'ok' } | { action: 'create' } | { action: 'migrate'; from: number };

/** Decides what to do with a database, refusing what is not (or not yet) evio's. */
export function decideSchema(state: SchemaState, storeName: string): SchemaAction {
  if (!state.hasEvents && !state.hasMeta) return { action: 'create' };
  if (!state.hasMeta || !state.meta) {
    throw evioError('STORE_SCHEMA', `${storeName}: has an "events" table that evio did not create (no evio_meta); point evio at its own database or schema`);
  }
  const id = state.meta.get('schema');
  if (id !== SCHEMA_ID) {
    throw evioError('STORE_SCHEMA', `${storeName}: evio_meta names schema "${id ?? ''}", not ${SCHEMA_ID}; point evio at its own database or schema`);
  }
  const version = Number(state.meta.get('version'));
  if (!Number.isSafeInteger(version) || version < 1) {
    throw evioError('STORE_SCHEMA', `${storeName}: evio_meta holds no valid schema version`);
  }
  if (version > SCHEMA_VERSION) {
    throw evioError('STORE_SCHEMA', `${storeName}: schema version ${version} is newer than this evio (${SCHEMA_VERSION}); upgrade evio`);
  }
  if (!state.hasEvents) throw evioError('STORE_SCHEMA', `${storeName}: evio_meta exists but the events table is missing`);
  if (version < SCHEMA_VERSION) return { action: 'migrate', from: version };
  return { action: 'ok' };
}

/** Statements upgrading from `from` to SCHEMA_VERSION, each step ending with its version stamp. */
export function migrationSql(p: SqlProfile, from: number): SqlStatement[] {
  const out: SqlStatement[] = [];
  for (let v = from; v < SCHEMA_VERSION; v++) {
    const step = MIGRATIONS[v];
    if (!step) throw evioError('STORE_SCHEMA', `no migration from schema version ${v}`);
    for (const sql of step(p)) out.push({ sql, params: [] });
    out.push(statement(p, (b) => `UPDATE ${p.meta} SET meta_value = ${b.bind(String(v + 1))} WHERE meta_key = 'version'`));
  }
  return out;
}

/** Statements creating the schema and stamping it (run in one transaction). */
export function createSchemaStatements(p: SqlProfile): SqlStatement[] {
  return [
    ...createSchemaSql(p).map((sql) => ({ sql, params: [] })),
    ...metaRows().map(([k, v]) => statement(p, (b) => `INSERT INTO ${p.meta} (meta_key, meta_value) VALUES (${b.bind(k)}, ${b.bind(v)})`)),
  ];
}

/** Names of evio's tables that exist (SQLite: sqlite_master; PostgreSQL: the catalog). */
export function existingTablesSql(p: SqlProfile): SqlStatement {
  if (p.flavor === 'sqlite') {
    return { sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('events', 'evio_meta')", params: [] };
  }
  if (p.flavor === 'pg') {
    const ph = p.placeholders === 'dollar' ? '$1' : '?';
    return {
      sql: `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE c.relname IN ('events', 'evio_meta') AND c.relkind IN ('r', 'p', 'v')
   AND n.nspname = COALESCE(${ph}, current_schema())`,
      params: [p.schema],
    };
  }
  throw evioError('STORE_SCHEMA', `cannot list tables on a ${p.flavor} database`);
}

export function readMetaSql(p: SqlProfile): string {
  return `SELECT meta_key, meta_value FROM ${p.meta}`;
}
