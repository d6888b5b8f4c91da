// What a database driver gives the shared SQL store: statements in a session, write
// transactions, and a streamed SELECT. Drivers map their errors to evio's codes themselves
// (each names its store), so the store above never sees a driver's raw error.
import type { SqlProfile } from './profile.js';
import type { RawRow } from './select.js';
import type { SqlStatement } from './statement.js';

export interface SqlSession {
  /** Runs a statement and returns how many rows it changed (0 when the driver cannot tell). */
  run(s: SqlStatement): Promise<number>;
  /** Runs a query whose answer is small (a count, a recnum list, catalog rows). */
  all(s: SqlStatement): Promise<RawRow[]>;
  /**
   * Bulk loads (optional). runMany: one statement (`?` placeholders) prepared once and run for
   * each parameter row (SQLite). copyIn: rows streamed into a table by COPY (PostgreSQL).
   * Both use each row before taking the next: a caller may hand the same array refilled.
   */
  runMany?(sql: string, rows: Iterable<readonly unknown[]>): Promise<void>;
  copyIn?(table: string, columns: readonly string[], rows: Iterable<readonly unknown[]>): Promise<void>;
}

export interface SqlDriver {
  readonly profile: SqlProfile;
  /** One write transaction on one connection: committed when `work` resolves, else rolled back. */
  transaction<T>(work: (s: SqlSession) => Promise<T>): Promise<T>;
  /** Small reads outside a write transaction. */
  read<T>(work: (s: SqlSession) => Promise<T>): Promise<T>;
  /**
   * Streams a SELECT with bounded memory (a cursor, or a stepped statement), one batch per fetch
   * (never empty). Leaving the loop early closes the cursor and gives the connection back.
   */
  stream(s: SqlStatement, signal?: AbortSignal): AsyncIterable<RawRow[]>;
  close(): Promise<void>;
}

/** A column of a small result row, whatever case the DBMS gave its name. */
export function column(row: RawRow | undefined, name: string): unknown {
  if (!row) return undefined;
  return name in row ? row[name] : row[name.toUpperCase()];
}
