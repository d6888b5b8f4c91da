// Real services for the suites that need them. In CI (CI=true) a missing service is a failure;
// on a developer machine the suite skips with a message that says how to enable it.
import pg from 'pg';

export const PG_URL = process.env.EVIO_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';

export async function pgAvailable(): Promise<boolean> {
  const c = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
  try {
    await c.connect();
    await c.query('select 1');
    return true;
  } catch (err) {
    if (process.env.CI) throw new Error(`PostgreSQL is required in CI at ${PG_URL}: ${(err as Error).message}`);
    console.warn(`skipping PostgreSQL tests: no server at ${PG_URL} (start one, or set EVIO_TEST_PG)`);
    return false;
  } finally {
    await c.end().catch(() => {});
  }
}
