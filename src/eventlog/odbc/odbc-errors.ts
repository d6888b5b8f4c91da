// odbc errors (an Error with odbcErrors: [{state, code, message}]) as evio errors naming the DSN.
import { evioError, EvioError } from '../../errors.js';

interface OdbcDiag {
  state?: string;
  message?: string;
}

function diags(err: unknown): OdbcDiag[] {
  const list = (err as { odbcErrors?: unknown } | null)?.odbcErrors;
  return Array.isArray(list) ? (list as OdbcDiag[]) : [];
}

export function odbcMessage(err: unknown): string {
  const parts = diags(err)
    .map((d) => (d.message ?? '').replace(/\s*\n\s*/g, ' ').trim())
    .filter(Boolean);
  if (parts.length) return parts.join('; ');
  return (err instanceof Error ? err.message : String(err)).replace(/^\[odbc\]\s*/, '');
}

export function odbcState(err: unknown): string | undefined {
  return diags(err).find((d) => typeof d.state === 'string')?.state;
}

const LOST = /server closed the connection|connection (was )?(lost|closed|reset|terminated)|could not send|no connection to the server|communication link failure|terminating connection/i;

export function isOdbcConnectionGone(err: unknown): boolean {
  const st = odbcState(err);
  return (st !== undefined && st.startsWith('08')) || LOST.test(odbcMessage(err));
}

export function odbcError(err: unknown, storeName: string, phase: 'connect' | 'query', statementTimeoutMs: number): EvioError {
  if (err instanceof EvioError) return err;
  const state = odbcState(err);
  const msg = odbcMessage(err);
  const st = state ? ` (SQLSTATE ${state})` : '';
  if (phase === 'connect') return evioError('ODBC_CONNECT', `${storeName}: cannot open the data source: ${msg}${st}`, err);
  if (state === 'HYT00' || state === 'HYT01' || state === '57014') {
    return evioError('DB_TIMEOUT', `${storeName}: the statement ran past the statement timeout (${statementTimeoutMs} ms)`, err);
  }
  if (isOdbcConnectionGone(err)) return evioError('ODBC_QUERY', `${storeName}: the connection was lost during the query: ${msg}${st}`, err);
  return evioError('ODBC_QUERY', `${storeName}: ${msg}${st}`, err);
}
