// Bulk loads into an empty database (evio events copy/import): the secondary indexes are dropped
// before the rows and built after them, which is several times faster than keeping 14 indexes
// current row by row. A marker row in evio_meta (deferred_indexes) is written in the same
// transaction that drops them and deleted in the one that builds them, so a load killed half
// way leaves the marker, and the next open of the store (ensure-schema.ts) builds the indexes
// before anything else is done with it.
import type { SqlDriver } from './driver.js';
import type { SqlProfile } from './profile.js';
import { dropSecondaryIndexSql, secondaryIndexSql } from './schema.js';
import { statement, type SqlStatement } from './statement.js';

export const DEFERRED_INDEXES_KEY = 'deferred_indexes';

const plain = (sql: string): SqlStatement => ({ sql, params: [] });

function markerStatements(p: SqlProfile, set: boolean): SqlStatement[] {
  const del = statement(p, (b) => `DELETE FROM ${p.meta} WHERE meta_key = ${b.bind(DEFERRED_INDEXES_KEY)}`);
  if (!set) return [del];
  return [del, statement(p, (b) => `INSERT INTO ${p.meta} (meta_key, meta_value) VALUES (${b.bind(DEFERRED_INDEXES_KEY)}, ${b.bind('1')})`)];
}

/**
 * When the store holds no record: marks the indexes deferred and drops them (one transaction,
 * under the writer lock). True when they were dropped; false for a store with records or a
 * DBMS whose DDL evio does not own.
 */
export async function deferIndexes(d: SqlDriver): Promise<boolean> {
  const p = d.profile;
  if (!p.ownsDdl) return false;
  return d.transaction(async (s) => {
    if (p.writeLockSql) await s.run(plain(p.writeLockSql));
    if ((await s.all(plain(`SELECT recnum FROM ${p.events} LIMIT 1`))).length > 0) return false;
    for (const st of markerStatements(p, true)) await s.run(st);
    for (const sql of dropSecondaryIndexSql(p)) await s.run(plain(sql));
    return true;
  });
}

/**
 * PostgreSQL sessions building indexes at once: CREATE INDEX takes a SHARE lock on the table,
 * which does not conflict with itself, and each build is mostly one CPU's sort.
 */
export const PG_INDEX_BUILDERS = 2;

/**
 * Builds every missing secondary index, then clears the marker (statistics refreshed after).
 * SQLite: all in one transaction. PostgreSQL: PG_INDEX_BUILDERS transactions take the indexes
 * from one queue (without the statement timeout, with more sort memory each), and the marker
 * is cleared once all have committed; a build killed half way leaves the marker, and the next
 * open builds what is still missing (CREATE INDEX IF NOT EXISTS).
 */
export async function buildDeferredIndexes(d: SqlDriver): Promise<void> {
  const p = d.profile;
  if (p.flavor === 'pg') {
    const queue = secondaryIndexSql(p);
    const builder = () =>
      d.transaction(async (s) => {
        await s.run(plain('SET LOCAL statement_timeout = 0'));
        await s.run(plain("SET LOCAL maintenance_work_mem = '256MB'"));
        for (let sql = queue.shift(); sql !== undefined; sql = queue.shift()) await s.run(plain(sql));
      });
    const built = await Promise.allSettled(Array.from({ length: PG_INDEX_BUILDERS }, builder));
    for (const r of built) if (r.status === 'rejected') throw r.reason;
    await d.transaction(async (s) => {
      for (const st of markerStatements(p, false)) await s.run(st);
    });
  } else {
    await d.transaction(async (s) => {
      for (const sql of secondaryIndexSql(p)) await s.run(plain(sql));
      for (const st of markerStatements(p, false)) await s.run(st);
    });
  }
  if (p.analyzeSql) await d.read((s) => s.run(plain(p.analyzeSql!)));
}
