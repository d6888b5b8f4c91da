// The SQL evio writes for DBMS families it cannot test here for real (plain LIKE, paging and
// class wildcards finished in memory, NULL order by CASE, SQL Server's LIKE brackets) runs on
// SQLite with that family's profile, against the reference store: the paths that finish work in
// memory (filters, paging, deletes by recnum) must give exactly the same answers.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { SqlDriver } from '../../../src/eventlog/sql/driver.js';
import { sqlProfile, type SqlProfile } from '../../../src/eventlog/sql/profile.js';
import { SqlEventStore, type SqlStoreOptions } from '../../../src/eventlog/sql/sql-store.js';
import { SqliteDriver } from '../../../src/eventlog/sqlite/sqlite-driver.js';
import { SqliteStore } from '../../../src/eventlog/sqlite/index.js';
import type { EventStore } from '../../../src/eventlog/types.js';
import { describeAgainstReference } from './against-reference.js';
import type { TestStoreFactory } from './stores.js';

class ProfiledSqliteStore extends SqlEventStore {
  readonly kind = 'odbc' as const;
  constructor(
    private readonly path: string,
    private readonly profile: SqlProfile,
    options: SqlStoreOptions,
  ) {
    super(`portable:${profile.flavor}`, options);
  }
  protected async openDriver(): Promise<SqlDriver> {
    // Standard LIKE is case-sensitive; SQLite's is not unless told so.
    return new SqliteDriver({ path: this.path, storeName: this.name, busyTimeoutMs: 5000, streamBatch: 7, maxIdleReaders: 2, profile: this.profile, connectionPragmas: ['case_sensitive_like = ON'] });
  }
}

const dir = mkdtempSync(join(tmpdir(), 'evio-portable-'));
let n = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function factoryFor(profile: SqlProfile): TestStoreFactory {
  const made: EventStore[] = [];
  return {
    name: 'sqlite',
    format: 'odbc',
    params: {},
    unavailable: null,
    async make(options = {}) {
      const path = join(dir, `p-${n++}.sqlite`);
      await new SqliteStore(path).open().then((s) => s.close()); // evio's schema, as a DBA would create it
      const s = new ProfiledSqliteStore(path, profile, options);
      made.push(s);
      return s.open();
    },
    async cleanup() {
      await Promise.allSettled(made.map((s) => s.close()));
    },
  };
}

const generic = factoryFor(sqlProfile('generic', { driver: 'odbc' }));
const mysqlLike = factoryFor(sqlProfile('mysql', { driver: 'odbc' }));
// SQL Server's LIKE reads [..] as a class: patterns with a literal [ finish in memory.
const bracketLike = factoryFor({ ...sqlProfile('mysql', { driver: 'odbc' }), likeBrackets: true, nulls: 'case' });
beforeAll(() => {});
afterAll(async () => {
  await Promise.all([generic.cleanup(), mysqlLike.cleanup(), bracketLike.cleanup()]);
});

describeAgainstReference('generic ODBC SQL (LIKE, paging in memory, CASE for NULLs)', () => generic, { numRuns: 60, seed: 5501 });
describeAgainstReference('MySQL-style SQL (LIKE, LIMIT/OFFSET)', () => mysqlLike, { numRuns: 40, seed: 5601 });
describeAgainstReference('SQL Server-style LIKE brackets', () => bracketLike, { numRuns: 40, seed: 5701 });
