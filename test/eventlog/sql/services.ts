// The database services the SQL store suites need, probed once per test file.
//   PostgreSQL: EVIO_TEST_PG (default postgres://postgres@127.0.0.1:5432/test)
//   ODBC:       the odbc module plus DSNs EVIO_TEST_ODBC_PG_DSN (default evio_pg) and
//               EVIO_TEST_ODBC_SQLITE_DSN (default evio_sqlite), registered by .ci/odbc-setup.sh
// In CI (CI set) a missing service fails the suite; on a developer machine the suite skips and
// says how to enable it.
import { existsSync, statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { PG_URL } from '../../helpers/services.js';
import { loadOdbc } from '../../../src/eventlog/odbc/index.js';

export { PG_URL };
export const ODBC_PG_DSN = process.env.EVIO_TEST_ODBC_PG_DSN ?? 'evio_pg';
export const ODBC_SQLITE_DSN = process.env.EVIO_TEST_ODBC_SQLITE_DSN ?? 'evio_sqlite';

/** Present while postgres-restart.test.ts restarts the server: other suites wait it out. */
export const PG_RESTART_MARKER = '/tmp/evio-test-pg-restart.lock';

export interface Service {
  ok: boolean;
  /** Why not, and how to enable it. */
  reason: string;
}

/**
 * Waits while the restart test is about to restart the server, or is restarting it (a stale
 * marker is ignored after 5 min). Call it holding no connection: the restart test waits for
 * every other client to leave first.
 */
export async function waitForPgRestart(): Promise<void> {
  for (let i = 0; i < 600 && existsSync(PG_RESTART_MARKER); i++) {
    try {
      if (Date.now() - statSync(PG_RESTART_MARKER).mtimeMs > 300_000) return;
    } catch {
      return;
    }
    await sleep(500);
  }
}

function unavailable(what: string, why: string, how: string): Service {
  const reason = `${what} unavailable (${why}); ${how}`;
  if (process.env.CI) throw new Error(`CI requires ${reason}`);
  console.warn(`skipping: ${reason}`);
  return { ok: false, reason };
}

let pgProbe: Promise<Service> | null = null;

export function postgresService(): Promise<Service> {
  pgProbe ??= (async () => {
    await waitForPgRestart();
    const c = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
    c.on('error', () => {});
    try {
      await c.connect();
      await c.query('SELECT 1');
      return { ok: true, reason: '' };
    } catch (err) {
      return unavailable(`PostgreSQL at ${PG_URL}`, (err as Error).message, 'start a server (trust auth, database test) or set EVIO_TEST_PG to a postgres:// URL');
    } finally {
      await c.end().catch(() => {});
    }
  })();
  return pgProbe;
}

const odbcProbes = new Map<string, Promise<Service>>();

/** The odbc module loads and the DSN opens (and answers a trivial query). */
export function odbcService(dsn: string): Promise<Service> {
  let p = odbcProbes.get(dsn);
  if (!p) {
    p = (async () => {
      const how = 'install unixodbc, odbc-postgresql and libsqliteodbc, run `bash .ci/odbc-setup.sh` as root, and npm rebuild odbc';
      let odbc;
      try {
        odbc = await loadOdbc();
      } catch (err) {
        return unavailable('the odbc module', (err as Error).message, how);
      }
      if (dsn === ODBC_PG_DSN) await waitForPgRestart();
      try {
        const conn = await odbc.connect({ connectionString: `DSN=${dsn}`, connectionTimeout: 5, loginTimeout: 5 });
        await conn.close();
        return { ok: true, reason: '' };
      } catch (err) {
        const e = err as { message?: string; odbcErrors?: Array<{ message?: string }> };
        return unavailable(`ODBC data source ${dsn}`, e.odbcErrors?.[0]?.message ?? e.message ?? String(err), how);
      }
    })();
    odbcProbes.set(dsn, p);
  }
  return p;
}

/** Drops test schemas (their names are made by stores.ts). */
export async function dropPgSchemas(schemas: readonly string[]): Promise<void> {
  if (schemas.length === 0) return;
  await waitForPgRestart();
  const c = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 5000 });
  c.on('error', () => {});
  try {
    await c.connect();
    for (const s of schemas) {
      if (!/^evio_t_[a-z0-9_]+$/.test(s)) throw new Error(`refusing to drop schema ${s}`);
      await c.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
    }
  } finally {
    await c.end().catch(() => {});
  }
}

/**
 * A PostgreSQL test file's scratch space: schemas named per process (dropped by close()), the
 * stores it opened (closed first) and one admin connection for looking under the store.
 */
export class PgScratch {
  readonly schemas: string[] = [];
  readonly stores: Array<{ close(): Promise<void> }> = [];
  admin: pg.Client | null = null;

  /** A new schema name of this file, dropped by close(). */
  readonly schemaName = (tag: string): string => {
    const s = `evio_t_${tag}_${process.pid}_${this.schemas.length}`;
    this.schemas.push(s);
    return s;
  };

  /** Waits out a restart by the restart test, then connects the admin client. */
  async open(): Promise<void> {
    await waitForPgRestart();
    this.admin = new pg.Client({ connectionString: PG_URL });
    this.admin.on('error', () => {});
    await this.admin.connect();
  }

  /**
   * Runs `work` while another connection holds an ACCESS EXCLUSIVE lock on the schema's events
   * table (every statement of a store on it then waits), and releases the lock afterwards.
   */
  async whileLocked<T>(schema: string, work: () => Promise<T>): Promise<T> {
    const locker = new pg.Client({ connectionString: PG_URL });
    locker.on('error', () => {});
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query(`LOCK TABLE "${schema}".events IN ACCESS EXCLUSIVE MODE`);
      return await work();
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
  }

  /** Connections first (the restart test waits for every other client to leave), then `before`, then the schemas. */
  async close(before?: () => Promise<void>): Promise<void> {
    await Promise.allSettled(this.stores.map((s) => s.close()));
    await this.admin?.end().catch(() => {});
    await before?.();
    await dropPgSchemas(this.schemas);
  }
}
