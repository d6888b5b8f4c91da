// PostgreSQL store: the reference comparison, plus the schema (own schema per test file,
// versioned, "C" collation, BRIN time index), refusal of foreign/newer schemas, concurrent first
// opens, indexed dump=0 reads (no join), and cursors that give their connection back.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isEvioError } from '../../../src/errors.js';
import { PostgresStore } from '../../../src/eventlog/postgres/index.js';
import { sqlProfile } from '../../../src/eventlog/sql/profile.js';
import { buildSelect } from '../../../src/eventlog/sql/select.js';
import { compileWildcard } from '../../../src/common/wildcard.js';
import type { EventRow, EventStore } from '../../../src/eventlog/types.js';
import { describeAgainstReference } from './against-reference.js';
import { DUMP_ALL, MERGED_ALL } from './model.js';
import { PG_URL, PgScratch, postgresService } from './services.js';
import { openTestStores, type TestStoreFactory } from './stores.js';

let factory: TestStoreFactory | undefined;
const pgs = new PgScratch();
const { schemaName } = pgs;

beforeAll(async () => {
  [factory] = await openTestStores(['pg']);
  if ((await postgresService()).ok) await pgs.open();
}, 300_000);
afterAll(async () => {
  await pgs.close(() => factory?.cleanup() ?? Promise.resolve());
}, 300_000);

describeAgainstReference('postgres', () => factory, { numRuns: 40, seed: 5201 });

async function all(s: AsyncIterable<EventRow>): Promise<EventRow[]> {
  const out: EventRow[] = [];
  for await (const r of s) out.push(r);
  return out;
}

describe('PostgresStore specifics', () => {
  const { stores } = pgs; // closed by pgs.close()
  const open = (schema: string, extra: Partial<ConstructorParameters<typeof PostgresStore>[0] & object> = {}) => {
    const s = new PostgresStore({ connectionString: PG_URL, schema, ...extra });
    stores.push(s);
    return s;
  };

  it('creates its versioned schema on first use: C collation, btree and BRIN indexes', async (ctx) => {
    if (!pgs.admin) return ctx.skip();
    const schema = schemaName('ddl');
    const s = open(schema, { name: 'central' });
    expect(s.kind).toBe('pg');
    expect(s.name).toBe('pg:central');
    await s.append([{ uniqueid: 'a', etype: 'A', time: 1 }]);
    const meta = await pgs.admin.query(`SELECT meta_key, meta_value FROM "${schema}".evio_meta ORDER BY meta_key`);
    expect(meta.rows).toEqual([
      { meta_key: 'schema', meta_value: 'evio-events' },
      { meta_key: 'version', meta_value: '1' },
    ]);
    const coll = await pgs.admin.query(`SELECT column_name, collation_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'events' AND data_type = 'text' AND column_name <> 'record'`, [schema]);
    expect(coll.rows.length).toBeGreaterThan(5);
    for (const r of coll.rows) expect(r).toMatchObject({ collation_name: 'C' });
    const idx = await pgs.admin.query(`SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = 'events'`, [schema]);
    const defs = Object.fromEntries(idx.rows.map((r) => [r.indexname, r.indexdef]));
    expect(defs.events_time_brin).toMatch(/USING brin \("?time"?\)/);
    for (const c of ['uniqueid', 'etype', 'time', 'submituser', 'submithost', 'runuser', 'runhost', 'runcommand', 'exitstatus', 'merged_exitstatus', 'merged_exittime', 'fin_recnum']) {
      expect(Object.keys(defs)).toContain(`events_${c}`);
    }
  });

  it('refuses a foreign schema and a newer evio schema with STORE_SCHEMA naming the store', async (ctx) => {
    if (!pgs.admin) return ctx.skip();
    const foreign = schemaName('foreign');
    await pgs.admin.query(`CREATE SCHEMA "${foreign}"; CREATE TABLE "${foreign}".events (id int)`);
    const err = await open(foreign, { name: 'legacy' }).lastRecnum().catch((e: unknown) => e);
    expect(isEvioError(err, 'STORE_SCHEMA')).toBe(true);
    expect((err as Error).message).toMatch(/^1208 pg:legacy: /);

    const newer = schemaName('newer');
    await open(newer).open();
    await pgs.admin.query(`UPDATE "${newer}".evio_meta SET meta_value = '7' WHERE meta_key = 'version'`);
    const err2 = await open(newer).lastRecnum().catch((e: unknown) => e);
    expect((err2 as Error).message).toMatch(/^1208 .*version 7 is newer than this evio/);
  });

  it('creates a new schema once when several stores open it at the same time', async (ctx) => {
    if (!pgs.admin) return ctx.skip();
    const schema = schemaName('race');
    const many = Array.from({ length: 4 }, () => open(schema));
    await Promise.all(many.map((s) => s.open()));
    const r = await many[0]!.append([{ uniqueid: 'a', etype: 'A', time: 1 }]);
    expect(r.count).toBe(1);
    expect(await many[3]!.lastRecnum()).toBe(1);
  });

  it('reads dump=0 from the accept rows through an index, without a join', async (ctx) => {
    if (!pgs.admin) return ctx.skip();
    const schema = schemaName('plan');
    await open(schema).open();
    const p = sqlProfile('pg', { driver: 'native', schema });
    const q = { ...MERGED_ALL, limit: 50, order: 'exittime' as const, patterns: { exitstatus: [compileWildcard('Command finished*')] } };
    const plan = buildSelect(q, p);
    await pgs.admin.query('BEGIN');
    try {
      await pgs.admin.query('SET LOCAL enable_seqscan = off');
      const explain = await pgs.admin.query(`EXPLAIN ${plan.sql}`, plan.params);
      const text = explain.rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(text).toMatch(/events_merged_(exitstatus|exittime)/);
      expect(text).not.toMatch(/Join|Nested Loop/);
    } finally {
      await pgs.admin.query('ROLLBACK');
    }
  });

  it('gives a cursor connection back when the reader stops early (one-connection pool)', async (ctx) => {
    if (!pgs.admin) return ctx.skip();
    const s = open(schemaName('cursor'), { poolSize: 1, fetchSize: 10 });
    await s.append(Array.from({ length: 200 }, (_, i) => ({ uniqueid: `u${i % 7}`, etype: i % 3 === 2 ? ('F' as const) : ('A' as const), time: i, exitstatus: 'x' })));
    for (let i = 0; i < 12; i++) {
      let seen = 0;
      for await (const _ of s.query(DUMP_ALL)) if (++seen === 15) break;
      expect(seen).toBe(15);
    }
    expect((await all(s.query(DUMP_ALL))).length).toBe(200);
    expect((await all(s.query(MERGED_ALL))).length).toBe(134);
  });

  it('streams through a server-side cursor in FETCH-sized batches', async (ctx) => {
    if (!pgs.admin) return ctx.skip();
    const schema = schemaName('fetch');
    const s = open(schema, { fetchSize: 25, applicationName: `evio-fetch-${process.pid}` });
    await s.append(Array.from({ length: 120 }, (_, i) => ({ uniqueid: `u${i}`, etype: 'A' as const, time: i })));
    let activity = '';
    let seen = 0;
    for await (const _ of s.query(DUMP_ALL)) {
      if (++seen === 30) {
        const r = await pgs.admin.query(`SELECT query, state FROM pg_stat_activity WHERE application_name = $1`, [`evio-fetch-${process.pid}`]);
        activity = r.rows.map((x) => `${x.state}: ${x.query}`).join('\n');
      }
    }
    expect(seen).toBe(120);
    // The reader's connection sits inside its transaction between FETCHes of the open cursor.
    expect(activity).toMatch(/idle in transaction: FETCH FORWARD 25 FROM evio_cursor/);
  });

  it('runs a page as a named prepared statement, planned for its parameters each time', async (ctx) => {
    if (!pgs.admin) return ctx.skip();
    const s = open(schemaName('prepared'), { poolSize: 1 });
    await s.append(Array.from({ length: 60 }, (_, i) => ({ uniqueid: `u${i}`, etype: 'A' as const, time: i, submituser: i % 10 === 0 ? 'rare' : 'common' })));
    const page = (user: string) => ({ ...DUMP_ALL, patterns: { submituser: [compileWildcard(user)] }, limit: 5 });
    for (let i = 0; i < 7; i++) {
      expect((await all(s.query(page(i % 2 ? 'rare' : 'common')))).map((r) => r.rec.recnum)).toEqual(i % 2 ? [1, 11, 21, 31, 41] : [2, 3, 4, 5, 6]);
    }
    expect((await all(s.query({ ...DUMP_ALL, limit: 3 }))).map((r) => r.rec.recnum)).toEqual([1, 2, 3]);
    // The pool's one connection, asked about its own prepared statements (they are per session).
    const driver = await (s as unknown as { ready(): Promise<import('../../../src/eventlog/sql/driver.js').SqlDriver> }).ready();
    const prepared = await driver.read((x) => x.all({ sql: "SELECT name, generic_plans::int AS generic, custom_plans::int AS custom, current_setting('plan_cache_mode') AS mode FROM pg_prepared_statements ORDER BY custom_plans DESC", params: [] }));
    expect(prepared).toEqual([
      { name: expect.stringMatching(/^evio_page_[0-9a-f]{20}$/), generic: 0, custom: 7, mode: 'force_custom_plan' },
      { name: expect.stringMatching(/^evio_page_[0-9a-f]{20}$/), generic: 0, custom: 1, mode: 'force_custom_plan' },
    ]);
    // A server that loses them (as behind a pooler that does not keep prepared statements):
    // the page is answered unnamed, and so are the pages after it.
    await driver.read((x) => x.run({ sql: 'DEALLOCATE ALL', params: [] }));
    for (let i = 0; i < 2; i++) expect((await all(s.query(page('rare')))).map((r) => r.rec.recnum)).toEqual([1, 11, 21, 31, 41]);
    expect(await driver.read((x) => x.all({ sql: 'SELECT name FROM pg_prepared_statements', params: [] }))).toEqual([]);
  });

  it('reads PG* environment variables when given no URL', async (ctx) => {
    if (!pgs.admin) return ctx.skip();
    const u = new URL(PG_URL);
    const saved = { ...process.env };
    Object.assign(process.env, { PGHOST: u.hostname, PGPORT: u.port || '5432', PGDATABASE: u.pathname.slice(1), PGUSER: decodeURIComponent(u.username) });
    try {
      const s = new PostgresStore({ schema: schemaName('env') });
      stores.push(s);
      expect(s.name).toBe(`pg:${u.username}@${u.hostname}:${u.port || '5432'}/${u.pathname.slice(1)}`);
      expect(await s.lastRecnum()).toBe(0);
    } finally {
      for (const k of ['PGHOST', 'PGPORT', 'PGDATABASE', 'PGUSER']) if (saved[k] === undefined) delete process.env[k];
      Object.assign(process.env, saved);
    }
  });
});
