// ODBC through the PostgreSQL driver (psqlodbc, DSN evio_pg): the reference comparison, DBMS
// detection, reading and writing the schema the native store created, the statement timeout,
// errors naming the DSN, and incremental fetching.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isEvioError } from '../../../src/errors.js';
import { OdbcStore } from '../../../src/eventlog/odbc/index.js';
import { PostgresStore } from '../../../src/eventlog/postgres/index.js';
import type { EventRow, EventStore } from '../../../src/eventlog/types.js';
import { describeAgainstReference } from './against-reference.js';
import { DUMP_ALL, MERGED_ALL } from './model.js';
import { ODBC_PG_DSN, PG_URL, PgScratch } from './services.js';
import { openTestStores, type TestStoreFactory } from './stores.js';

let factory: TestStoreFactory | undefined;
const pgs = new PgScratch();
const { schemaName, stores } = pgs;

beforeAll(async () => {
  [factory] = await openTestStores(['odbc-pg']);
  if (!factory!.unavailable) await pgs.open();
}, 300_000);
afterAll(async () => {
  await pgs.close(() => factory?.cleanup() ?? Promise.resolve());
}, 300_000);

describeAgainstReference('odbc (PostgreSQL driver)', () => factory, { numRuns: 25, seed: 5301 });

async function all(s: AsyncIterable<EventRow>): Promise<Array<[number, string | null, number | null, unknown]>> {
  const out: Array<[number, string | null, number | null, unknown]> = [];
  for await (const r of s) out.push([r.rec.recnum, r.exitstatus, r.exittime, r.rec]);
  return out;
}

describe('OdbcStore on PostgreSQL', () => {
  const odbc = (schema: string, extra: Partial<ConstructorParameters<typeof OdbcStore>[0] & object> = {}) => {
    const s = new OdbcStore({ dsn: ODBC_PG_DSN, schema, ...extra });
    stores.push(s);
    return s;
  };

  it('detects PostgreSQL behind the DSN', async (ctx) => {
    if (!pgs.admin) return ctx.skip();
    const s = odbc(schemaName('detect'));
    expect(s.name).toBe(`odbc:${ODBC_PG_DSN}`);
    expect(await s.dbms()).toMatchObject({ flavor: 'pg', version: expect.stringMatching(/^PostgreSQL \d+/) });
  });

  it('reads and writes the database the native store keeps (same schema, same answers)', async (ctx) => {
    if (!pgs.admin) return ctx.skip();
    const schema = schemaName('shared');
    const native = new PostgresStore({ connectionString: PG_URL, schema });
    stores.push(native);
    await native.append([
      { uniqueid: 's1', etype: 'A', time: 10.1, submituser: 'alice', runargv: ['ls', '-l'] },
      { uniqueid: 's2', etype: 'R', time: 11, exitstatus: 'rejected' },
      { uniqueid: 's1', etype: 'F', time: 12 + 1 / 3, exitstatus: 'Command finished with exit status 0' },
    ]);
    const viaOdbc = odbc(schema);
    expect(await all(viaOdbc.query(MERGED_ALL))).toEqual(await all(native.query(MERGED_ALL)));
    expect(await viaOdbc.append([{ uniqueid: 's3', etype: 'K', time: 13, iolog: '/var/log/io/s3' }, { uniqueid: 's3', etype: 'F', time: 14, exitstatus: 'x' }])).toMatchObject({ first: 4, last: 5, count: 2 });
    expect(await all(native.query(DUMP_ALL))).toEqual(await all(viaOdbc.query(DUMP_ALL)));
    expect((await viaOdbc.delete({ ...MERGED_ALL, patterns: {}, etypes: ['K'] })).deleted).toBe(2);
    expect(await native.lastRecnum()).toBe(3);
  });

  it('keeps long records whole', async (ctx) => {
    if (!pgs.admin) return ctx.skip();
    const s = odbc(schemaName('long'));
    const argv = Array.from({ length: 3000 }, (_, i) => `argument-${i}-${'é😀'.repeat(20)}`);
    await s.append([{ uniqueid: 'big', etype: 'A', time: 1, runargv: argv }, { uniqueid: 'small', etype: 'A', time: 2 }]);
    const rows = await all(s.query(DUMP_ALL));
    expect(rows.map((r) => r[0])).toEqual([1, 2]);
    expect((rows[0]![3] as { runargv: string[] }).runargv).toEqual(argv);
    expect(s.stats.malformed).toBe(0);
  });

  it('fetches incrementally (UseDeclareFetch): the reader holds an open portal mid-stream', async (ctx) => {
    if (!pgs.admin) return ctx.skip();
    const schema = schemaName('declare');
    const s = odbc(schema);
    await s.append(Array.from({ length: 2500 }, (_, i) => ({ uniqueid: `u${i}`, etype: 'A' as const, time: i })));
    let states: string[] = [];
    let seen = 0;
    for await (const _ of s.query(DUMP_ALL)) {
      if (++seen === 10) {
        // Whoever still holds a lock on the table is a reader whose result is not all fetched.
        const r = await pgs.admin.query(
          `SELECT a.state FROM pg_stat_activity a WHERE a.pid IN (SELECT l.pid FROM pg_locks l WHERE l.relation = to_regclass($1)) AND a.pid <> pg_backend_pid()`,
          [`"${schema}".events`],
        );
        states = r.rows.map((x) => x.state);
      }
    }
    expect(seen).toBe(2500);
    expect(states).toEqual(['idle in transaction']);
  });

  it('bounds statements with the statement timeout (DB_TIMEOUT), then works again', async (ctx) => {
    if (!pgs.admin) return ctx.skip();
    const schema = schemaName('timeout');
    const s = odbc(schema, { statementTimeoutMs: 300 });
    await s.append([{ uniqueid: 'a', etype: 'A', time: 1 }]);
    await pgs.whileLocked(schema, async () => {
      const err = await s.lastRecnum().catch((e: unknown) => e);
      expect(isEvioError(err, 'DB_TIMEOUT')).toBe(true);
      expect((err as Error).message).toMatch(new RegExp(`^1303 odbc:${ODBC_PG_DSN}: `));
      const err2 = await s.query(DUMP_ALL)[Symbol.asyncIterator]().next().catch((e: unknown) => e);
      expect(isEvioError(err2, 'DB_TIMEOUT')).toBe(true);
    });
    expect(await s.lastRecnum()).toBe(1);
  });

  it('answers ODBC_QUERY naming the DSN when the server refuses a statement', async (ctx) => {
    if (!pgs.admin) return ctx.skip();
    const schema = schemaName('dropped');
    const s = odbc(schema);
    await s.open();
    await pgs.admin.query(`DROP TABLE "${schema}".events`);
    const err = await s.lastRecnum().catch((e: unknown) => e);
    expect(isEvioError(err, 'ODBC_QUERY')).toBe(true);
    expect((err as Error).message).toMatch(new RegExp(`^1306 odbc:${ODBC_PG_DSN}: .*events.* does not exist`));
    expect((err as Error).message).not.toMatch(/\n\s+at /);
  });
});
