// The shared factory: one call gives every SQL store kind; make() gives fresh, empty, isolated
// stores; cleanup() removes what they created.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openTestStores, TEST_STORE_NAMES } from './stores.js';
import { PG_URL } from './services.js';

describe('openTestStores', () => {
  it('yields sqlite, pg, odbc-pg and odbc-sqlite; each make() is a fresh empty store of its own', async () => {
    const factories = await openTestStores();
    expect(factories.map((f) => f.name)).toEqual([...TEST_STORE_NAMES]);
    for (const f of factories) {
      if (f.unavailable) {
        console.warn(`${f.name}: ${f.unavailable}`);
        continue;
      }
      const [a, b] = [await f.make(), await f.make()];
      await a.append([{ uniqueid: 'x', etype: 'A', time: 1 }]);
      expect({ store: f.name, a: await a.lastRecnum(), b: await b.lastRecnum() }).toEqual({ store: f.name, a: 1, b: 0 });
      await f.cleanup();
    }
    const pgFactory = factories.find((f) => f.name === 'pg');
    if (pgFactory && !pgFactory.unavailable) {
      const c = new pg.Client(PG_URL);
      await c.connect();
      const left = await c.query(`SELECT nspname FROM pg_namespace WHERE nspname LIKE $1`, [`evio\\_t\\_${process.pid}\\_%`]);
      await c.end();
      expect(left.rows).toEqual([]);
    }
  }, 300_000); // the probes wait while the restart test has the server
});
