// The EventStore contract on top of any SqlDriver: SQLite, PostgreSQL and ODBC stores are this
// class plus their driver. Everything about meaning (filters, finish merge, paging, recnum
// rules) is decided here and in the builders beside it, once for all three.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { AppendResult, DeleteResult, EventFilter, EventQuery, EventRow, EventStore, NewEvent, QueryOptions, ScanStats, StoreKind } from '../types.js';
import { existingRecnumsStatements, insertRowSql, insertStatements, insertValueStatements, lastRecnumSql, linkAppendBatch, linkedRowValues, linkedValues, linkOlderRowParams, linkOlderRowSql, linkOlderStatements, planBatch, prepareEvent, recnumsToCheck, recomputeForUniqueids, type BatchPlan } from './append-plan.js';
import { deleteStatements, filterPredicate, recnumPredicate, relinkMarkedStatement } from './delete-plan.js';
import { column, type SqlDriver, type SqlSession } from './driver.js';
import { buildDeferredIndexes, deferIndexes } from './bulk-load.js';
import { ensureSchema } from './ensure-schema.js';
import { EVENT_COLUMNS } from './schema.js';
import { buildSelect, finishRows, recordByRecnumSql } from './select.js';
import { chunks } from './statement.js';
import { eachRow } from '../row-batches.js';

export interface SqlStoreOptions {
  /** Records per append transaction. */
  batchSize?: number;
  /** Rows per multi-row INSERT. */
  insertRows?: number;
  /**
   * Create evio's schema when the database has none (default true). False for stores a request
   * names: a request reads or deletes what exists and never turns a database into an event store.
   */
  createSchema?: boolean;
}

export abstract class SqlEventStore implements EventStore {
  abstract readonly kind: StoreKind;
  readonly stats: ScanStats = { malformed: 0 };
  private opening: Promise<SqlDriver> | null = null;
  private readonly batchSize: number;
  private readonly insertRows: number;
  private readonly createSchema: boolean;
  /**
   * Bulk loads under way that dropped the secondary indexes (bulkLoad): their appends refresh
   * the statistics of the columns the load filters on only (analyzeLoadSql); the build after
   * the rows refreshes all.
   */
  private deferredLoads = 0;

  protected constructor(
    readonly name: string,
    options: SqlStoreOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 5000;
    this.insertRows = options.insertRows ?? 500;
    this.createSchema = options.createSchema ?? true;
  }

  /** Opens the driver (connection, pool, module); the schema is checked by ready(). */
  protected abstract openDriver(): Promise<SqlDriver>;

  /** The driver with the schema ensured; a failed open is retried by the next call. */
  protected ready(): Promise<SqlDriver> {
    if (!this.opening) {
      const opening = (async () => {
        const d = await this.openDriver();
        try {
          await ensureSchema(d, this.name, this.createSchema);
        } catch (err) {
          await d.close().catch(() => {});
          throw err;
        }
        return d;
      })();
      this.opening = opening;
      opening.catch(() => {
        if (this.opening === opening) this.opening = null;
      });
    }
    return this.opening;
  }

  /** Opens the database now (creating the schema) instead of on first use. */
  async open(): Promise<this> {
    await this.ready();
    return this;
  }

  query(q: EventQuery, opts?: QueryOptions): AsyncIterable<EventRow> {
    return eachRow(this.queryBatches(q, opts));
  }

  async *queryBatches(q: EventQuery, opts: QueryOptions = {}): AsyncGenerator<EventRow[]> {
    const stats = opts.stats ?? this.stats;
    stats.malformed = 0;
    if (q.limit <= 0) return;
    opts.signal?.throwIfAborted();
    const d = await this.ready();
    const plan = buildSelect(q, d.profile, opts.summary === true);
    const refetch = async (recnum: number) => {
      const v = column((await d.read((s) => s.all(recordByRecnumSql(d.profile, recnum))))[0], 'record');
      return typeof v === 'string' ? v : null;
    };
    yield* finishRows(d.stream(plan, opts.signal), q, plan, stats, opts, refetch);
  }

  async append(events: Iterable<NewEvent> | AsyncIterable<NewEvent>, opts: QueryOptions = {}): Promise<AppendResult> {
    const d = await this.ready();
    const res: AppendResult = { first: null, last: null, count: 0, skipped: 0 };
    let batch: NewEvent[] = [];
    // A bulk load outgrows the planner's statistics of a young table: refresh them each time the
    // rows written since the last refresh reach the table's size then (a few times per load;
    // autovacuum keeps large tables' statistics fresh by itself).
    let sinceAnalyze = 0;
    let sizeAtAnalyze: number | null = null;
    const flush = async () => {
      if (batch.length === 0) return;
      const b = batch;
      batch = [];
      opts.signal?.throwIfAborted();
      const plan = await d.transaction((s) => this.writeBatch(d, s, b));
      res.skipped += plan.skipped;
      for (const r of plan.rows) {
        res.first ??= r.recnum;
        res.last = r.recnum;
        res.count++;
      }
      sizeAtAnalyze ??= plan.lastBefore;
      sinceAnalyze += plan.rows.length;
      const analyze = this.deferredLoads > 0 ? d.profile.analyzeLoadSql : d.profile.analyzeSql;
      if (analyze && sinceAnalyze >= Math.max(10_000, sizeAtAnalyze)) {
        await d.read((s) => s.run({ sql: analyze, params: [] }));
        sizeAtAnalyze += sinceAnalyze;
        sinceAnalyze = 0;
      }
      await nextTurn(); // a long copy lets the event loop breathe between transactions
    };
    let index = 0;
    let bad: { err: unknown } | null = null;
    /** Adds one record; true when the batch is full or the record is refused. */
    const take = (ev: NewEvent): boolean => {
      try {
        batch.push(prepareEvent(ev, index++));
      } catch (err) {
        bad = { err };
        return true;
      }
      return batch.length >= this.batchSize;
    };
    // An array (a copy's batch) is taken without a turn per record: `for await` would let the
    // copy's reading run between any two records of the batch being prepared.
    if (Array.isArray(events)) {
      for (const ev of events as NewEvent[]) {
        if (!take(ev)) continue;
        if (bad) break;
        await flush();
      }
    } else {
      for await (const ev of events) {
        if (!take(ev)) continue;
        if (bad) break;
        await flush();
      }
    }
    // As the reference store does: records before a refused one are written.
    await flush();
    if (bad) throw (bad as { err: unknown }).err;
    return res;
  }

  /**
   * A load of many appends (copy, import): into a store that holds no record yet, the secondary
   * indexes are dropped first and built once `work` ends, whether it succeeds or fails; a
   * load killed half way leaves them to the store's next open (bulk-load.ts).
   */
  async bulkLoad<T>(work: (load: { emptyAtStart: boolean }) => Promise<T>): Promise<T> {
    const d = await this.ready();
    const deferred = await deferIndexes(d);
    if (deferred) this.deferredLoads++;
    try {
      return await work({ emptyAtStart: deferred });
    } finally {
      if (deferred) {
        this.deferredLoads--;
        await buildDeferredIndexes(d);
      }
    }
  }

  private async writeBatch(d: SqlDriver, s: SqlSession, batch: NewEvent[]): Promise<BatchPlan> {
    const p = d.profile;
    // A session that loads by COPY (node-postgres) queues statements and sends each when the
    // last is answered: independent ones are handed over together, and the batch waits for one
    // reply instead of one per statement (replies wait for the event loop, which a copy's
    // reading keeps busy). Other drivers run them one after the other.
    const pipelined = s.copyIn !== undefined;
    const lastSql = { sql: lastRecnumSql(p), params: [] };
    let lastRows;
    if (p.writeLockSql && pipelined) [, lastRows] = await Promise.all([s.run({ sql: p.writeLockSql, params: [] }), s.all(lastSql)]);
    else {
      if (p.writeLockSql) await s.run({ sql: p.writeLockSql, params: [] });
      lastRows = await s.all(lastSql);
    }
    const last = Number(column(lastRows[0], 'last') ?? 0);
    const existing = new Set<number>();
    for (const st of existingRecnumsStatements(p, recnumsToCheck(batch, last))) {
      for (const r of await s.all(st)) existing.add(Number(column(r, 'recnum')));
    }
    const plan = planBatch(batch, last, existing);
    const linked = linkAppendBatch(plan.rows, plan.lastBefore);
    if (linked) {
      // Only appends (a copy or load in recnum order): linked here, inserted in bulk.
      if (s.copyIn) await s.copyIn(p.events, EVENT_COLUMNS, linkedRowValues(linked));
      else if (s.runMany) await s.runMany(insertRowSql(p), linkedRowValues(linked));
      else for (const st of insertValueStatements(p, linkedValues(linked), this.insertRows)) await s.run(st);
      // Then older rows still without a finish (after the insert: the general re-link, ODBC's
      // form, reads the batch's F rows from the table).
      if (plan.lastBefore > 0 && linked.finishes.length > 0) {
        if (s.runMany && !p.arrayParams) await s.runMany(linkOlderRowSql(p), linkOlderRowParams(linked.finishes, plan.lastBefore));
        else if (pipelined) await Promise.all(linkOlderStatements(p, linked.finishes, plan.lastBefore).map((st) => s.run(st)));
        else for (const st of linkOlderStatements(p, linked.finishes, plan.lastBefore)) await s.run(st);
      }
      return plan;
    }
    for (const st of insertStatements(p, plan.rows, this.insertRows)) await s.run(st);
    for (const st of recomputeForUniqueids(p, plan.uniqueids)) await s.run(st);
    return plan;
  }

  async delete(filter: EventFilter, opts: QueryOptions = {}): Promise<DeleteResult> {
    const d = await this.ready();
    const p = d.profile;
    const where = filterPredicate(filter, p);
    let predicates;
    if (where) {
      predicates = [where];
    } else {
      // Part of the filter is finished in memory (a DBMS without class wildcards): find the
      // matching recnums by streaming the query, then delete those by recnum.
      const recnums: number[] = [];
      const all: EventQuery = { ...filter, skip: 0, byteOffset: 0, limit: Number.MAX_SAFE_INTEGER, verbose: false, order: 'recnum', direction: 'asc' };
      for await (const batch of this.queryBatches(all, opts)) for (const row of batch) recnums.push(row.rec.recnum);
      if (recnums.length === 0) return { deleted: 0 };
      predicates = chunks(recnums, Math.max(1, Math.floor(p.maxParams / 4))).map(recnumPredicate);
    }
    opts.signal?.throwIfAborted();
    const deleted = await d.transaction(async (s) => {
      if (p.writeLockSql) await s.run({ sql: p.writeLockSql, params: [] });
      let n = 0;
      for (const pred of predicates) {
        for (const st of deleteStatements(p, pred, filter.dump)) {
          const changed = await s.run(st);
          if (st.counts) n += changed;
        }
      }
      await s.run(relinkMarkedStatement(p));
      opts.signal?.throwIfAborted(); // cancelled before commit: nothing is deleted
      return n;
    });
    return { deleted };
  }

  async lastRecnum(): Promise<number> {
    const d = await this.ready();
    const rows = await d.read((s) => s.all({ sql: lastRecnumSql(d.profile), params: [] }));
    return Number(column(rows[0], 'last') ?? 0);
  }

  /** Closes connections; a later call opens them again. */
  async close(): Promise<void> {
    const opening = this.opening;
    this.opening = null;
    if (opening) await (await opening.catch(() => null))?.close();
  }
}
