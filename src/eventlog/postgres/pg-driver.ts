// node-postgres behind the SqlDriver contract: a pg.Pool whose every connection carries the
// statement timeout, queries streamed through a server-side cursor (DECLARE ... CURSOR, then
// FETCH n at a time, inside a read-only transaction: never a whole result set in memory).
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Pool, PoolClient } from 'pg';
import type { SqlDriver, SqlSession } from '../sql/driver.js';
import { sqlProfile, type SqlProfile } from '../sql/profile.js';
import type { RawRow } from '../sql/select.js';
import type { SqlStatement } from '../sql/statement.js';
import { copyTextChunks } from './copy-text.js';
import { isConnectionGone, pgError } from './pg-errors.js';
import { pg } from './pg-module.js';
import { pingPool } from './pg-ping.js';
import { effectiveUserName } from './pg-url.js';

// node-postgres falls back to `$USER` (read once, when pg loads) for a URL without a user, and
// fails with "no PostgreSQL user name specified" where it is unset (cron, systemd). It reads
// PGUSER before its defaults, so a default of the effective user's name gives libpq's order
// (libpqDefaultUser). Every pg client in the process is evio's, so the global default is ours.
pg.defaults.user = effectiveUserName() ?? pg.defaults.user;

export interface PostgresDriverOptions {
  storeName: string;
  /** postgres:// URL; undefined = libpq environment variables (PGHOST, PGPORT, PGDATABASE, ...). */
  connectionString: string | undefined;
  schema: string | null;
  statementTimeoutMs: number;
  connectTimeoutMs: number;
  poolSize: number;
  fetchSize: number;
  applicationName: string;
}

const CURSOR = 'evio_cursor';

/**
 * Distinct page statements kept prepared on each connection. A page's SELECT differs only by
 * the filters given (their values are parameters), so a service sees a few dozen texts; past
 * this bound a new text runs unnamed, so server memory per connection stays bounded.
 */
const MAX_PREPARED = 256;

/**
 * Set once on each new connection: a prepared page is planned for its parameters every time,
 * as an unnamed statement is, never by a generic plan chosen after five executions (a generic
 * plan of `submituser = $4 ... LIMIT $5` cannot know that one user has 2 rows and another
 * 50,000). Preparing then saves the parse and analysis of the text, not the plan. The setting
 * exists from PostgreSQL 12; an older server skips it (the WHERE is false there).
 */
const CUSTOM_PLANS = "SELECT set_config('plan_cache_mode', 'force_custom_plan', false) WHERE current_setting('server_version_num')::int >= 120000";

export class PostgresDriver implements SqlDriver {
  readonly profile: SqlProfile;
  private readonly pool: Pool;
  private ended = false;
  /** SQL text -> its prepared statement's name (MAX_PREPARED at most). */
  private readonly names = new Map<string, string>();

  constructor(private readonly opts: PostgresDriverOptions) {
    this.profile = sqlProfile('pg', { driver: 'native', schema: opts.schema });
    this.pool = new pg.Pool({
      ...(opts.connectionString !== undefined ? { connectionString: opts.connectionString } : {}),
      statement_timeout: opts.statementTimeoutMs,
      connectionTimeoutMillis: opts.connectTimeoutMs,
      max: opts.poolSize,
      idleTimeoutMillis: 30_000,
      application_name: opts.applicationName,
    });
    // An idle connection that dies (server restart) is dropped by the pool; the next checkout
    // opens a fresh one. Without a listener the error would crash the process.
    this.pool.on('error', () => {});
    // Queued before the checkout's first query on a new connection. A failure here (the
    // connection dying at once) shows up again as that query's error.
    this.pool.on('connect', (client) => {
      client.query(CUSTOM_PLANS).catch(() => {});
    });
  }

  /**
   * Cleared when the server loses a statement this connection prepared (SQLSTATE 26000): a
   * connection pooler in transaction mode that does not keep prepared statements (PgBouncer
   * before 1.21, or without max_prepared_statements) hands each statement to any server
   * connection. Pages then run unnamed, as before.
   */
  private prepare = true;

  /** The prepared statement's name for a page's SQL text; undefined past MAX_PREPARED texts. */
  private statementName(sql: string): string | undefined {
    if (!this.prepare) return undefined;
    let name = this.names.get(sql);
    if (name === undefined && this.names.size < MAX_PREPARED) {
      name = `evio_page_${createHash('sha1').update(sql).digest('hex').slice(0, 20)}`;
      this.names.set(sql, name);
    }
    return name;
  }

  /**
   * A page's rows in one round trip, as a named prepared statement: each connection parses and
   * analyses the text once, then binds and executes it (measured in BENCHMARKS.md section 4).
   */
  private async page(s: SqlStatement): Promise<RawRow[]> {
    const { client, done, lastError } = await this.checkout(null);
    const name = this.statementName(s.sql);
    let broken: unknown;
    try {
      if (name === undefined) return (await client.query(s.sql, s.params)).rows as RawRow[];
      try {
        return (await client.query({ name, text: s.sql, values: s.params })).rows as RawRow[];
      } catch (err) {
        if ((err as { code?: unknown }).code !== '26000') throw err;
        this.prepare = false;
        return (await client.query(s.sql, s.params)).rows as RawRow[];
      }
    } catch (err) {
      if (isConnectionGone(lastError() ?? err)) broken = err;
      throw this.fail(lastError() ?? err, 'query');
    } finally {
      done(broken);
    }
  }

  private fail(err: unknown, phase: 'connect' | 'query') {
    return pgError(err, this.opts.storeName, phase, this.opts.statementTimeoutMs);
  }

  /**
   * A pooled client with `first` already run on it. A pooled connection may have died since it
   * was last used; when `first` finds it gone, nothing has happened yet, so one fresh retry is safe.
   */
  private async checkout(first: string | null): Promise<{ client: PoolClient; done: (err?: unknown) => void; lastError: () => unknown }> {
    for (let attempt = 0; ; attempt++) {
      let client: PoolClient;
      try {
        client = await this.pool.connect();
      } catch (err) {
        throw this.fail(err, 'connect');
      }
      // While checked out, a dying connection emits 'error' here rather than crashing the process;
      // the failing query reports it.
      // The first error says why (57P01 "terminating connection due to administrator command");
      // the "Connection terminated unexpectedly" that follows says less.
      let seen: unknown = null;
      const onError = (err: unknown) => {
        seen ??= err;
      };
      client.on('error', onError);
      let released = false;
      const done = (err?: unknown) => {
        if (released) return;
        released = true;
        client.removeListener('error', onError);
        client.release(err === undefined ? undefined : err instanceof Error ? err : new Error(String(err)));
      };
      if (first === null) return { client, done, lastError: () => seen };
      try {
        await client.query(first);
        return { client, done, lastError: () => seen };
      } catch (err) {
        done(err);
        if (attempt === 0 && isConnectionGone(err)) continue;
        throw this.fail(err, 'query');
      }
    }
  }

  private session(client: PoolClient, lastError: () => unknown): SqlSession {
    const fail = (err: unknown) => this.fail(lastError() ?? err, 'query');
    return {
      async run(s: SqlStatement) {
        try {
          return (await client.query(s.sql, s.params)).rowCount ?? 0;
        } catch (err) {
          throw fail(err);
        }
      },
      async all(s: SqlStatement) {
        try {
          return (await client.query(s.sql, s.params)).rows as RawRow[];
        } catch (err) {
          throw fail(err);
        }
      },
      async copyIn(table: string, columns: readonly string[], rows: Iterable<readonly unknown[]>) {
        try {
          // Loaded by the bulk loads that use it, not by every command that opens the store.
          const { default: pgCopy } = await import('pg-copy-streams');
          const sink = client.query(pgCopy.from(`COPY ${table} (${columns.join(', ')}) FROM STDIN`));
          await pipeline(Readable.from(copyTextChunks(rows)), sink);
        } catch (err) {
          throw fail(err);
        }
      },
    };
  }

  async transaction<T>(work: (s: SqlSession) => Promise<T>): Promise<T> {
    const { client, done, lastError } = await this.checkout('BEGIN');
    let broken: unknown;
    try {
      const out = await work(this.session(client, lastError));
      try {
        await client.query('COMMIT');
      } catch (err) {
        throw this.fail(lastError() ?? err, 'query');
      }
      return out;
    } catch (err) {
      if (isConnectionGone(lastError() ?? err) || isConnectionGone((err as { cause?: unknown }).cause)) broken = err;
      else await client.query('ROLLBACK').catch((e: unknown) => (broken = e));
      throw err;
    } finally {
      done(broken);
    }
  }

  async read<T>(work: (s: SqlSession) => Promise<T>): Promise<T> {
    const { client, done, lastError } = await this.checkout(null);
    let broken: unknown;
    try {
      return await work(this.session(client, lastError));
    } catch (err) {
      if (isConnectionGone((err as { cause?: unknown }).cause ?? err)) broken = err;
      throw err;
    } finally {
      done(broken);
    }
  }

  async *stream(s: SqlStatement, signal?: AbortSignal): AsyncGenerator<RawRow[]> {
    if (s.maxRows !== undefined && s.maxRows <= this.opts.fetchSize) {
      // A page no larger than one fetch: one round trip instead of BEGIN, DECLARE, FETCH and
      // COMMIT. Memory stays bounded by the LIMIT, as it is by the fetch size below.
      let rows: RawRow[];
      try {
        rows = await this.page(s);
      } catch (err) {
        // A pooled connection the server closed since (a restart): a read-only SELECT is safe
        // to run again, once, on a fresh one (checkout does the same for a transaction).
        if (!isConnectionGone((err as { cause?: unknown }).cause ?? err)) throw err;
        rows = await this.page(s);
      }
      if (rows.length > 0) yield rows;
      return;
    }
    const { client, done, lastError } = await this.checkout('BEGIN READ ONLY');
    let broken: unknown;
    let open = true; // the transaction is open and must be ended
    try {
      try {
        await client.query(`DECLARE ${CURSOR} NO SCROLL CURSOR FOR ${s.sql}`, s.params);
      } catch (err) {
        throw this.fail(lastError() ?? err, 'query');
      }
      const fetch = `FETCH FORWARD ${this.opts.fetchSize} FROM ${CURSOR}`;
      for (;;) {
        let rows: RawRow[];
        try {
          rows = (await client.query(fetch)).rows as RawRow[];
        } catch (err) {
          throw this.fail(lastError() ?? err, 'query');
        }
        if (rows.length > 0) yield rows;
        if (rows.length < this.opts.fetchSize) break;
        signal?.throwIfAborted();
      }
      try {
        await client.query('COMMIT');
        open = false;
      } catch (err) {
        throw this.fail(lastError() ?? err, 'query');
      }
    } catch (err) {
      if (isConnectionGone(lastError() ?? (err as { cause?: unknown }).cause ?? err)) {
        broken = err;
        open = false;
      }
      throw err;
    } finally {
      // Also reached when the consumer stops early: ROLLBACK closes the cursor.
      if (open) await client.query('ROLLBACK').catch((e: unknown) => (broken = e));
      done(broken);
    }
  }

  /** Readiness: null when SELECT 1 answers on a pooled connection within `timeoutMs`, else a short reason. */
  ping(timeoutMs: number): Promise<string | null> {
    return pingPool(this.pool, timeoutMs);
  }

  /** Whether close() was called (the pool is ended: a store opens a new driver). */
  get closed(): boolean {
    return this.ended;
  }

  async close(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    await this.pool.end();
  }
}
