// Readiness of a configured PostgreSQL database (GET /readyz): SELECT 1 on a connection of the
// store's own pool, within a bound, so a probe opens no connection of its own (an idle pooled
// one serves it; at most one more is opened). The answer is a short reason (a system error
// code, an SQLSTATE or "timeout"), never the server's message: that may name the host, the user
// or the database.
import type pg from 'pg';

/** A failure as a short reason that names nothing. */
export function pingFailure(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[A-Z0-9_]{1,16}$/.test(code)) return code;
  return /timeout/i.test((err as Error | null)?.message ?? '') ? 'timeout' : 'unreachable';
}

/** null when the database answered SELECT 1 through `pool` within `timeoutMs`, else a reason. */
export async function pingPool(pool: pg.Pool, timeoutMs: number): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  // Past the bound the attempt still ends on its own (the pool's connect timeout, the query
  // timeout) and gives its connection back.
  const attempt = (async () => {
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (err) {
      return pingFailure(err);
    }
    try {
      await client.query({ text: 'SELECT 1', query_timeout: timeoutMs } as pg.QueryConfig);
      client.release();
      return null;
    } catch (err) {
      client.release(err instanceof Error ? err : new Error(String(err))); // not reused
      return pingFailure(err);
    }
  })();
  try {
    return await Promise.race([attempt, bound]);
  } finally {
    clearTimeout(timer);
  }
}
