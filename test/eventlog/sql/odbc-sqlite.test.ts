// ODBC through the SQLite driver (libsqliteodbc, DSN evio_sqlite, one database file per store):
// the reference comparison, DBMS detection, reading and writing a file the native store keeps,
// long records and exact doubles despite the driver's buffers and rounding, refused schemas,
// and an unknown DSN.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isEvioError } from '../../../src/errors.js';
import { OdbcStore } from '../../../src/eventlog/odbc/index.js';
import { SqliteStore } from '../../../src/eventlog/sqlite/index.js';
import type { EventRow, EventStore } from '../../../src/eventlog/types.js';
import { describeAgainstReference } from './against-reference.js';
import { DUMP_ALL, MERGED_ALL } from './model.js';
import { ODBC_SQLITE_DSN } from './services.js';
import { openTestStores, type TestStoreFactory } from './stores.js';

let factory: TestStoreFactory | undefined;
const stores: EventStore[] = [];
const dir = mkdtempSync(join(tmpdir(), 'evio-odbc-sqlite-own-'));
let n = 0;

beforeAll(async () => {
  [factory] = await openTestStores(['odbc-sqlite']);
});
afterAll(async () => {
  await Promise.allSettled(stores.map((s) => s.close()));
  await factory?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

describeAgainstReference('odbc (SQLite driver)', () => factory, { numRuns: 25, seed: 5401 });

async function all(s: AsyncIterable<EventRow>): Promise<Array<[number, string | null, number | null, unknown]>> {
  const out: Array<[number, string | null, number | null, unknown]> = [];
  for await (const r of s) out.push([r.rec.recnum, r.exitstatus, r.exittime, r.rec]);
  return out;
}

describe('OdbcStore on SQLite', () => {
  const available = () => factory !== undefined && factory.unavailable === null;
  const file = () => join(dir, `db-${n++}.sqlite`);
  const odbc = (path: string) => {
    const s = new OdbcStore({ dsn: ODBC_SQLITE_DSN, connectionString: `DSN=${ODBC_SQLITE_DSN};Database=${path}` });
    stores.push(s);
    return s;
  };

  it('detects SQLite behind the DSN', async (ctx) => {
    if (!available()) return ctx.skip();
    expect(await odbc(file()).dbms()).toMatchObject({ flavor: 'sqlite', version: expect.stringMatching(/^SQLite 3\./) });
  });

  it('reads and writes the file the native store keeps (same answers, exact times)', async (ctx) => {
    if (!available()) return ctx.skip();
    // One at a time: two SQLite libraries (better-sqlite3's and the driver's) in one process
    // must not have the same file open together, or each drops the other's POSIX locks.
    const path = file();
    const native = new SqliteStore(path);
    await native.append([
      { uniqueid: 's1', etype: 'A', time: 1767225600.1, submituser: 'alice' },
      { uniqueid: 's1', etype: 'F', time: 1767225600 + 1 / 3, exitstatus: 'Command finished with exit status 0' },
      { uniqueid: 's2', etype: 'K', time: 1767225601.7, submituser: 'bob' },
    ]);
    const nativeMerged = await all(native.query(MERGED_ALL));
    await native.close();

    const viaOdbc = odbc(path);
    const merged = await all(viaOdbc.query(MERGED_ALL));
    expect(merged).toEqual(nativeMerged);
    expect(merged[0]![2]).toBe(1767225600 + 1 / 3); // the driver would round it to 15 digits
    await viaOdbc.append([{ uniqueid: 's2', etype: 'F', time: 1767225602.25, exitstatus: 'killed' }]);
    const odbcDump = await all(viaOdbc.query(DUMP_ALL));
    await viaOdbc.close();

    const again = new SqliteStore(path);
    stores.push(again);
    expect(await all(again.query(DUMP_ALL))).toEqual(odbcDump);
    expect((await all(again.query(MERGED_ALL)))[1]!.slice(0, 3)).toEqual([3, 'killed', 1767225602.25]);
  });

  it('keeps long records whole (the driver cuts long text in block fetches: read again alone)', async (ctx) => {
    if (!available()) return ctx.skip();
    const s = odbc(file());
    const argv = Array.from({ length: 6000 }, (_, i) => `argument-${i}-${'é😀'.repeat(20)}`);
    await s.append([{ uniqueid: 'small', etype: 'A', time: 1 }, { uniqueid: 'big', etype: 'A', time: 2, runargv: argv }, { uniqueid: 'small2', etype: 'A', time: 3 }]);
    const rows = await all(s.query(DUMP_ALL));
    expect(rows.map((r) => r[0])).toEqual([1, 2, 3]);
    expect(JSON.stringify(rows[1]![3]).length).toBeGreaterThan(300_000);
    expect((rows[1]![3] as { runargv: string[] }).runargv).toEqual(argv);
    expect(s.stats.malformed).toBe(0);
  });

  it('refuses a foreign schema with STORE_SCHEMA naming the DSN', async (ctx) => {
    if (!available()) return ctx.skip();
    const path = file();
    const db = new Database(path);
    db.exec('CREATE TABLE events (id INTEGER PRIMARY KEY, what TEXT)');
    db.close();
    const err = await odbc(path).lastRecnum().catch((e: unknown) => e);
    expect(isEvioError(err, 'STORE_SCHEMA')).toBe(true);
    expect((err as Error).message).toMatch(new RegExp(`^1208 odbc:${ODBC_SQLITE_DSN}: `));
  });

  it('answers ODBC_CONNECT naming an unknown DSN', async (ctx) => {
    if (!available()) return ctx.skip();
    const s = new OdbcStore('evio_no_such_dsn');
    stores.push(s);
    const err = await s.query(DUMP_ALL)[Symbol.asyncIterator]().next().catch((e: unknown) => e);
    expect(isEvioError(err, 'ODBC_CONNECT')).toBe(true);
    expect((err as Error).message).toMatch(/^1305 odbc:evio_no_such_dsn: cannot open the data source: .*(not found|no default driver)/i);
  });
});
