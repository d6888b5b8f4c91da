// node-postgres errors as evio errors that name the store, never a stack trace:
//   cannot connect / login refused        -> PG_CONNECT
//   connection lost mid-query             -> PG_CONNECTION_LOST (the next query reconnects)
//   statement_timeout (SQLSTATE 57014)    -> DB_TIMEOUT
//   anything else the server answers      -> PG_QUERY
import { evioError, EvioError } from '../../errors.js';

/** SQLSTATEs that end a session: admin/crash shutdown, and class 08 (connection exception). */
const SESSION_ENDED = new Set(['57P01', '57P02', '57P03', '57P04', '57P05']);
const NETWORK = new Set(['ECONNRESET', 'EPIPE', 'ECONNREFUSED', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const CLIENT_GONE = /Connection terminated|not queryable|connection error|Client was closed|timeout exceeded when trying to connect|Connection terminated due to connection timeout/i;

export type PgPhase = 'connect' | 'query';

function codeOf(err: unknown): string | undefined {
  const c = (err as { code?: unknown } | null)?.code;
  return typeof c === 'string' ? c : undefined;
}

function messageOf(err: unknown): string {
  const m = err instanceof Error ? err.message : String(err);
  // AggregateError (several addresses refused) has an empty message: name its parts.
  if (!m && err instanceof AggregateError) return err.errors.map(messageOf).join('; ');
  return m || codeOf(err) || 'unknown error';
}

/** True when the error means the connection is gone (the client must be discarded). */
export function isConnectionGone(err: unknown): boolean {
  const code = codeOf(err);
  if (code && (SESSION_ENDED.has(code) || code.startsWith('08') || NETWORK.has(code))) return true;
  return CLIENT_GONE.test(messageOf(err));
}

export function pgError(err: unknown, storeName: string, phase: PgPhase, statementTimeoutMs: number): EvioError {
  if (err instanceof EvioError) return err;
  const code = codeOf(err);
  const msg = messageOf(err);
  const sqlstate = code && /^[0-9A-Z]{5}$/.test(code) ? ` (SQLSTATE ${code})` : '';
  if (phase === 'connect') {
    return evioError('PG_CONNECT', `${storeName}: cannot connect: ${msg}${sqlstate}`, err);
  }
  if (code === '57014') {
    return evioError('DB_TIMEOUT', `${storeName}: the statement was cancelled by the statement timeout (${statementTimeoutMs} ms)`, err);
  }
  if (isConnectionGone(err)) {
    return evioError('PG_CONNECTION_LOST', `${storeName}: the connection was lost during the query: ${msg}${sqlstate}`, err);
  }
  return evioError('PG_QUERY', `${storeName}: ${msg}${sqlstate}`, err);
}
