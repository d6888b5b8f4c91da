// One call per database store for tests: `openTestStores()` yields a factory per store kind
// (sqlite, pg, odbc-pg, odbc-sqlite) whose make() returns a fresh, empty store of its own (a new
// SQLite file, or a new PostgreSQL schema) and whose cleanup() closes them all and removes their
// files and schemas. Shared with the conformance table and the property harness.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OdbcStore } from '../../../src/eventlog/odbc/index.js';
import { PostgresStore } from '../../../src/eventlog/postgres/index.js';
import type { SqlStoreOptions } from '../../../src/eventlog/sql/sql-store.js';
import { SqliteStore } from '../../../src/eventlog/sqlite/index.js';
import type { EventStore } from '../../../src/eventlog/types.js';
import { dropPgSchemas, ODBC_PG_DSN, ODBC_SQLITE_DSN, odbcService, PG_URL, postgresService, type Service } from './services.js';

/** The stores' common options, and rows per cursor fetch (pg, odbc) or per step batch (sqlite). */
export type TestStoreOptions = SqlStoreOptions & { stream?: number };

export type TestStoreName = 'sqlite' | 'pg' | 'odbc-pg' | 'odbc-sqlite';
export const TEST_STORE_NAMES: readonly TestStoreName[] = ['sqlite', 'pg', 'odbc-pg', 'odbc-sqlite'];

export interface TestStoreFactory {
  name: TestStoreName;
  /** REST parameters naming this kind of store, for parseEventQuery/parseEventDelete. */
  format: 'db' | 'odbc';
  params: Record<string, string>;
  /** null when the service is there; else why not and how to enable it (CI throws instead). */
  unavailable: string | null;
  /** A fresh, empty store (schema created) of its own; `stream` sets its rows per fetch or step. */
  make(options?: TestStoreOptions): Promise<EventStore>;
  /** Closes every store made and removes their files and schemas. */
  cleanup(): Promise<void>;
}

let serial = 0;
const uniq = () => `${process.pid}_${Date.now().toString(36)}_${serial++}`;

function factory(
  name: TestStoreName,
  format: 'db' | 'odbc',
  params: Record<string, string>,
  service: Service,
  create: (options: SqlStoreOptions, stream: number | undefined) => { store: EventStore & { open(): Promise<unknown> }; schema?: string },
  dir: string | null,
): TestStoreFactory {
  const made: EventStore[] = [];
  const schemas: string[] = [];
  return {
    name,
    format,
    params,
    unavailable: service.ok ? null : service.reason,
    async make({ stream, ...options }: TestStoreOptions = {}) {
      if (!service.ok) throw new Error(service.reason);
      const { store, schema } = create(options, stream);
      made.push(store);
      if (schema) schemas.push(schema);
      await store.open();
      return store;
    },
    async cleanup() {
      await Promise.allSettled(made.splice(0).map((s) => s.close()));
      await dropPgSchemas(schemas.splice(0));
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Factories for the named stores (default: all four), probing their services first. */
export async function openTestStores(only: readonly TestStoreName[] = TEST_STORE_NAMES): Promise<TestStoreFactory[]> {
  const out: TestStoreFactory[] = [];
  for (const name of only) {
    switch (name) {
      case 'sqlite': {
        const dir = mkdtempSync(join(tmpdir(), 'evio-sqlite-test-'));
        out.push(factory(name, 'db', {}, { ok: true, reason: '' }, (o, stream) => ({ store: new SqliteStore({ ...o, ...(stream ? { streamBatch: stream } : {}), path: join(dir, `events-${uniq()}.sqlite`) }) }), dir));
        break;
      }
      case 'pg': {
        const svc = await postgresService();
        out.push(
          factory(name, 'db', {}, svc, (o, stream) => {
            const schema = `evio_t_${uniq()}`;
            return { store: new PostgresStore({ ...o, ...(stream ? { fetchSize: stream } : {}), connectionString: PG_URL, schema, name: `test/${schema}`, poolSize: 4 }), schema };
          }, null),
        );
        break;
      }
      case 'odbc-pg': {
        const svc = await odbcService(ODBC_PG_DSN);
        out.push(
          factory(name, 'odbc', { dsn: ODBC_PG_DSN }, svc, (o, stream) => {
            const schema = `evio_t_${uniq()}`;
            return { store: new OdbcStore({ ...o, ...(stream ? { fetchSize: stream } : {}), dsn: ODBC_PG_DSN, schema }), schema };
          }, null),
        );
        break;
      }
      case 'odbc-sqlite': {
        const svc = await odbcService(ODBC_SQLITE_DSN);
        const dir = mkdtempSync(join(tmpdir(), 'evio-odbc-sqlite-test-'));
        out.push(
          factory(name, 'odbc', { dsn: ODBC_SQLITE_DSN }, svc, (o, stream) => ({
            // Attributes after the DSN override its Database: one file per store.
            store: new OdbcStore({ ...o, ...(stream ? { fetchSize: stream } : {}), dsn: ODBC_SQLITE_DSN, connectionString: `DSN=${ODBC_SQLITE_DSN};Database=${join(dir, `events-${uniq()}.sqlite`)}` }),
          }), dir),
        );
        break;
      }
    }
  }
  return out;
}
