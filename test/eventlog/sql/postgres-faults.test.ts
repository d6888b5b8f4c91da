// PostgreSQL faults answer clear errors that name the store, never a stack trace:
// unreachable server / refused login -> PG_CONNECT; the statement timeout bounds every statement
// -> DB_TIMEOUT; other server errors -> PG_QUERY. (A restart mid-query: postgres-restart.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EvioError, isEvioError, type ErrorName } from '../../../src/errors.js';
import { Engine } from '../../../src/engine.js';
import { openStore, parseStoreName } from '../../../src/eventlog/stores.js';
import { PostgresStore } from '../../../src/eventlog/postgres/index.js';
import { loadSettings } from '../../../src/settings.js';
import { DELETE_ALL, DUMP_ALL } from './model.js';
import { PG_URL, PgScratch, postgresService } from './services.js';

const pgs = new PgScratch();
const { schemaName, stores } = pgs;

beforeAll(async () => {
  if ((await postgresService()).ok) await pgs.open();
}, 300_000);
afterAll(async () => {
  await pgs.close();
}, 300_000);

async function failure(p: Promise<unknown>): Promise<EvioError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!isEvioError(err)) throw new Error(`expected an EvioError, got ${err === null ? 'success' : String(err)}`);
  return err;
}

function expectClear(err: EvioError, name: ErrorName, storeName: string, detail: RegExp): void {
  expect({ error: err.errorName, message: err.message }).toMatchObject({ error: name });
  expect(err.message.startsWith(`${err.code} ${storeName}: `)).toBe(true);
  expect(err.message).toMatch(detail);
  expect(err.message).not.toMatch(/\n\s+at /);
}

const firstRow = (s: PostgresStore) => s.query(DUMP_ALL)[Symbol.asyncIterator]().next();

describe('PostgreSQL connection failures answer PG_CONNECT naming the store', () => {
  it('an unreachable port', async () => {
    const s = new PostgresStore({ connectionString: 'postgres://postgres@127.0.0.1:1/test', name: 'nowhere', connectTimeoutMs: 3000 });
    stores.push(s);
    expectClear(await failure(firstRow(s)), 'PG_CONNECT', 'pg:nowhere', /cannot connect: .*ECONNREFUSED/);
    expectClear(await failure(s.append([{ uniqueid: 'a', etype: 'A', time: 1 }])), 'PG_CONNECT', 'pg:nowhere', /ECONNREFUSED/);
    expectClear(await failure(s.delete(DELETE_ALL)), 'PG_CONNECT', 'pg:nowhere', /ECONNREFUSED/);
    expect(await failure(s.lastRecnum())).toMatchObject({ errorName: 'PG_CONNECT', http: 503 });
  });

  it('a login the server refuses (unknown role), with the password kept out of the name', async (ctx) => {
    if (!pgs.admin) return ctx.skip();
    const u = new URL(PG_URL);
    u.username = 'evio_no_such_role';
    u.password = 's3cret';
    const s = new PostgresStore({ connectionString: u.toString() });
    stores.push(s);
    const err = await failure(s.lastRecnum());
    expectClear(err, 'PG_CONNECT', `pg:postgres://evio_no_such_role:***@${u.host}${u.pathname}`, /role "evio_no_such_role" does not exist|password authentication failed/);
    expect(err.message).not.toContain('s3cret');
  });

  it('a database that does not exist', async (ctx) => {
    if (!pgs.admin) return ctx.skip();
    const u = new URL(PG_URL);
    u.pathname = '/evio_no_such_database';
    const s = new PostgresStore({ connectionString: u.toString(), name: 'central' });
    stores.push(s);
    expectClear(await failure(s.lastRecnum()), 'PG_CONNECT', 'pg:central', /database "evio_no_such_database" does not exist/);
  });

  it('a name in the settings: unknown names are refused, known ones take the settings timeout', async () => {
    const engine = new Engine(loadSettings({ overrides: { databases: { central: PG_URL, local: '/tmp/x.sqlite' }, statementTimeoutMs: 1234 } }));
    const named = async (n: string) => (await openStore(engine, parseStoreName(engine, n))).name;
    expect(await named('pg:central')).toBe('pg:central');
    expect(() => parseStoreName(engine, 'pg:local')).toThrow(/^1116 /);
    expect(() => parseStoreName(engine, 'pg:nope')).toThrow(/^1116 /);
    expect(await named('pg:postgres://u:pw@h/db')).toBe('pg:postgres://u:***@h/db');
    await engine.close();
  });
});

describe('the statement timeout bounds every statement (DB_TIMEOUT)', () => {
  it('a query, an append and a delete blocked by a lock end at the timeout; the store then works', async (ctx) => {
    if (!pgs.admin) return ctx.skip();
    const schema = schemaName('timeout');
    const s = new PostgresStore({ connectionString: PG_URL, schema, name: 'slow', statementTimeoutMs: 300 });
    stores.push(s);
    await s.append([{ uniqueid: 'a', etype: 'A', time: 1 }]);
    await pgs.whileLocked(schema, async () => {
      const started = Date.now();
      expectClear(await failure(firstRow(s)), 'DB_TIMEOUT', 'pg:slow', /statement timeout \(300 ms\)/);
      expect(Date.now() - started).toBeLessThan(5000);
      expectClear(await failure(s.append([{ uniqueid: 'b', etype: 'A', time: 2 }])), 'DB_TIMEOUT', 'pg:slow', /timeout/);
      expectClear(await failure(s.delete(DELETE_ALL)), 'DB_TIMEOUT', 'pg:slow', /timeout/);
      expect((await failure(s.lastRecnum())).http).toBe(504);
    });
    expect(await s.lastRecnum()).toBe(1);
    expect((await s.append([{ uniqueid: 'b', etype: 'A', time: 2 }])).count).toBe(1);
  });

  it('a slow statement is cancelled at the timeout', async (ctx) => {
    if (!pgs.admin) return ctx.skip();
    const schema = schemaName('heavy');
    const s = new PostgresStore({ connectionString: PG_URL, schema, name: 'heavy', statementTimeoutMs: 200 });
    stores.push(s);
    await s.open();
    // A trigger that sleeps makes the insert itself slow: the server cancels it at 200 ms.
    await pgs.admin.query(`CREATE FUNCTION "${schema}".slow() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(5); RETURN NEW; END $$`);
    await pgs.admin.query(`CREATE TRIGGER slow BEFORE INSERT ON "${schema}".events FOR EACH ROW EXECUTE FUNCTION "${schema}".slow()`);
    const started = Date.now();
    expectClear(await failure(s.append([{ uniqueid: 'a', etype: 'A', time: 1 }])), 'DB_TIMEOUT', 'pg:heavy', /200 ms/);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(await s.lastRecnum()).toBe(0); // the batch was rolled back
  });
});

describe('other server errors answer PG_QUERY naming the store', () => {
  it('a table dropped under a running store', async (ctx) => {
    if (!pgs.admin) return ctx.skip();
    const schema = schemaName('dropped');
    const s = new PostgresStore({ connectionString: PG_URL, schema, name: 'gone' });
    stores.push(s);
    await s.open();
    await pgs.admin.query(`DROP TABLE "${schema}".events`);
    expectClear(await failure(firstRow(s)), 'PG_QUERY', 'pg:gone', /relation .*events.* does not exist/);
  });
});
