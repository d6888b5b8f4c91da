// Readiness of a configured PostgreSQL database: one short-lived connection runs SELECT 1 within
// a bound. The answer is a short reason (a system error code, an SQLSTATE or "timeout"), never
// the server's message: that may name the host, the user or the database.
import pg from 'pg';

export async function pingPostgres(connectionString: string, timeoutMs: number): Promise<string | null> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: timeoutMs, statement_timeout: timeoutMs, application_name: 'evio readyz' });
  client.on('error', () => {}); // a connection dying after the answer must not crash the process
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs + 100);
  });
  const attempt = (async () => {
    try {
      await client.connect();
      await client.query('SELECT 1');
      return null;
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      return typeof code === 'string' && /^[A-Z0-9_]{1,16}$/.test(code) ? code : /timeout/i.test((err as Error).message) ? 'timeout' : 'unreachable';
    }
  })();
  try {
    return await Promise.race([attempt, bound]);
  } finally {
    clearTimeout(timer);
    void client.end().catch(() => {});
  }
}
