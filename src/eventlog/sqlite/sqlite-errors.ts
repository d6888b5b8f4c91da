// better-sqlite3 errors as evio errors that name the database file.
import { evioError, EvioError } from '../../errors.js';

export function sqliteError(err: unknown, storeName: string): EvioError {
  if (err instanceof EvioError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  const msg = err instanceof Error ? err.message : String(err);
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
    return evioError('STORE_LOCK_TIMEOUT', `${storeName}: the database stayed locked by another writer past the busy timeout (${msg})`, err);
  }
  return evioError('STORE_SQLITE', `${storeName}: ${msg}${typeof code === 'string' ? ` (${code})` : ''}`, err);
}
