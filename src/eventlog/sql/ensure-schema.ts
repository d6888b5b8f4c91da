// Opening a database: create evio's schema on first use, upgrade an older one, refuse a newer or
// foreign one (STORE_SCHEMA). Runs in one write transaction, so two processes opening a new
// database at once cannot both create it.
import { evioError, isEvioError } from '../../errors.js';
import { buildDeferredIndexes, DEFERRED_INDEXES_KEY } from './bulk-load.js';
import { column, type SqlDriver } from './driver.js';
import { createSchemaStatements, decideSchema, existingTablesSql, migrationSql, readMetaSql, type SchemaState } from './schema.js';
import type { RawRow } from './select.js';

function metaMap(rows: RawRow[]): Map<string, string> {
  return new Map(rows.map((r) => [String(column(r, 'meta_key')), String(column(r, 'meta_value'))]));
}

/** With `mayCreate` false, a database without evio's tables is refused (STORE_NOT_FOUND), not set up. */
export async function ensureSchema(driver: SqlDriver, storeName: string, mayCreate = true): Promise<void> {
  const p = driver.profile;
  if (!p.ownsDdl) {
    // A DBMS whose DDL evio does not write: the schema must be there already (docs/databases.md).
    let meta: Map<string, string>;
    try {
      meta = metaMap(await driver.read((s) => s.all({ sql: readMetaSql(p), params: [] })));
    } catch (err) {
      if (isEvioError(err, 'STORE_SCHEMA')) throw err;
      throw evioError('STORE_SCHEMA', `${storeName}: no evio schema found (evio_meta cannot be read); create it from docs/databases.md`, err);
    }
    const action = decideSchema({ hasEvents: true, hasMeta: true, meta }, storeName);
    if (action.action !== 'ok') {
      throw evioError('STORE_SCHEMA', `${storeName}: schema version ${action.action === 'migrate' ? action.from : '?'} is older than this evio's; upgrade it as docs/databases.md describes`);
    }
    return;
  }
  const deferred = await driver.transaction(async (s) => {
    if (p.flavor === 'pg') {
      // Serialise concurrent first opens of the same schema (CREATE TABLE is not IF NOT EXISTS).
      const key = `evio-schema:${p.schema ?? ''}`;
      await s.all({ sql: `SELECT pg_advisory_xact_lock(hashtext(${p.placeholders === 'dollar' ? '$1' : '?'})) AS locked`, params: [key] });
    }
    const tables = new Set((await s.all(existingTablesSql(p))).map((r) => String(column(r, 'name'))));
    const state: SchemaState = { hasEvents: tables.has('events'), hasMeta: tables.has('evio_meta'), meta: null };
    if (state.hasMeta) state.meta = metaMap(await s.all({ sql: readMetaSql(p), params: [] }));
    const action = decideSchema(state, storeName);
    if (action.action === 'create' && !mayCreate) {
      throw evioError('STORE_NOT_FOUND', `${storeName} holds no evio event log; a request never creates one (evio events append, copy or import does)`);
    }
    if (action.action === 'create') for (const st of createSchemaStatements(p)) await s.run(st);
    else if (action.action === 'migrate') for (const st of migrationSql(p, action.from)) await s.run(st);
    return state.meta?.has(DEFERRED_INDEXES_KEY) === true;
  });
  // A bulk load that dropped the indexes did not finish (killed): build them now (bulk-load.ts).
  if (deferred) await buildDeferredIndexes(driver);
}
