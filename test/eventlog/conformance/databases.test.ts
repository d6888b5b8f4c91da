// The conformance table and the property test against every database store: SQLite, PostgreSQL
// and both ODBC drivers (PostgreSQL Unicode and SQLite3), on the real server and drivers.
import { afterAll, describe } from 'vitest';
import type { StoredEvent } from '../../../src/eventlog/types.js';
import { openTestStores } from '../sql/stores.js';
import { runPropertyTest } from '../property/run.js';
import { runConformance, type AdapterUnderTest } from './run.js';

const factories = await openTestStores();

afterAll(async () => {
  await Promise.allSettled(factories.map((f) => f.cleanup()));
});

for (const f of factories) {
  describe(f.name, () => {
    if (f.unavailable) console.warn(`skipping ${f.name}: ${f.unavailable}`);
    const adapter = (): AdapterUnderTest | null =>
      f.unavailable
        ? null
        : {
            format: f.format,
            params: f.params,
            async make(records: StoredEvent[]) {
              const s = await f.make();
              await s.append(records);
              return s;
            },
          };
    runConformance(f.name, adapter);
    runPropertyTest(f.name, adapter, f.name.startsWith('odbc') ? 20 : 40);
  });
}
