// The SELECT that answers an EventQuery, and what is finished in memory around it: pattern
// filters the dialect cannot express and, then (or on a DBMS without a paging syntax), the
// skip/limit paging, applied while the rows stream by in the order SQL already gave them.
import { jsonTextTooDeep } from '../../json-depth.js';
import { matchesAny, patternValue } from '../filter.js';
import type { EventQuery, EventRow, PatternField, QueryOptions, ScanStats, StoredEvent } from '../types.js';
import { isStoredEvent } from '../record.js';
import type { SqlProfile } from './profile.js';
import { statement, type KeysetBatches, type SqlStatement } from './statement.js';
import type { SqlParams } from '../../common/sql-wildcard.js';
import { compileFilter, exitColumns, orderColumn } from './where.js';

/** Columns whose NULLs need an explicit place in the order (the others are NOT NULL). */
const NULLABLE_ORDER = new Set(['submituser', 'submithost', 'runuser', 'runhost', 'runcommand', 'exitstatus', 'exittime', 'merged_exitstatus', 'merged_exittime']);

export interface SelectPlan extends SqlStatement {
  /** Pattern filters finished in memory. */
  residual: PatternField[];
  /** Paging left to memory: rows to skip and the most to return; null = SQL pages. */
  memoryPaging: { skip: number; limit: number } | null;
}

/** A double column as the driver must read it (exact text where the driver would round). */
export function readDouble(p: SqlProfile, column: string): string {
  return p.doublesAsText ? `CASE WHEN ${column} IS NULL THEN NULL ELSE printf('%!.17g', ${column}) END` : column;
}

function orderBy(q: EventQuery, p: SqlProfile): string {
  const dir = q.direction === 'desc' ? 'DESC' : 'ASC';
  if (q.order === 'recnum') return `ORDER BY recnum ${dir}`;
  const c = orderColumn(q.order, q.dump);
  // NULL sorts as the smallest value: first ascending, last descending. Ties: recnum ascending.
  if (!NULLABLE_ORDER.has(c) || p.nulls === 'smallest') return `ORDER BY ${c} ${dir}, recnum ASC`;
  if (p.nulls === 'explicit') return `ORDER BY ${c} ${dir} NULLS ${dir === 'ASC' ? 'FIRST' : 'LAST'}, recnum ASC`;
  return `ORDER BY CASE WHEN ${c} IS NULL THEN 0 ELSE 1 END ${dir}, ${c} ${dir}, recnum ASC`;
}

/**
 * The columns a summary row is read from: every field of the non-verbose answer (and of the
 * pattern filters) is also an indexed column, so the record's JSON need not be read or parsed.
 */
const SUMMARY_COLUMNS = ['uniqueid', 'etype', 'submituser', 'submithost', 'runuser', 'runhost', 'runcommand'] as const;

/**
 * The statement answering `q` (byteOffset is a flat-file notion and is ignored). With `summary`
 * it selects the columns of the non-verbose answer instead of the stored record (QueryOptions).
 */
export function buildSelect(q: EventQuery, p: SqlProfile, summary = false): SelectPlan {
  let residual: PatternField[] = [];
  let memoryPaging: SelectPlan['memoryPaging'] = null;
  let maxRows: number | undefined;
  const exit = exitColumns(q.dump);
  const fields = summary ? `${SUMMARY_COLUMNS.join(', ')}, ${readDouble(p, 'time')} AS time` : 'record';
  const sortColumn = q.order === 'recnum' ? null : orderColumn(q.order, q.dump);
  /** SELECT ... WHERE filter [AND more] ORDER BY ...; `more` binds after the filter, as it is written. */
  const select = (params: SqlParams, more: (params: SqlParams) => string[] = () => []): string => {
    const filter = compileFilter(q, p, params);
    residual = filter.residual;
    const key = sortColumn === null ? '' : `, ${sortColumn} AS ${ORDER_KEY}`;
    const where = [filter.where, ...more(params)].join(' AND ');
    return `SELECT recnum, ${fields}, ${exit.exitstatus} AS x_exitstatus, ${readDouble(p, exit.exittime)} AS x_exittime${key} FROM ${p.events} WHERE ${where} ${orderBy(q, p)}`;
  };
  const page = (params: SqlParams, rows: number, skip: number): string =>
    p.paging === 'limit-offset' ? ` LIMIT ${params.bind(rows)} OFFSET ${params.bind(skip)}` : ` OFFSET ${params.bind(skip)} ROWS FETCH NEXT ${params.bind(rows)} ROWS ONLY`;
  const stmt = statement(p, (params) => {
    let sql = select(params);
    if (residual.length > 0 || p.paging === 'memory') {
      memoryPaging = { skip: q.skip, limit: q.limit };
    } else {
      sql += page(params, q.limit, q.skip);
      maxRows = q.limit;
    }
    return sql;
  });
  const sqlSkip = memoryPaging === null ? q.skip : 0;
  // Without a paging syntax a batch cannot be bounded in SQL: such a DBMS streams one statement.
  const batches: KeysetBatches | undefined = p.paging === 'memory' ? undefined : {
    ceiling: statement(p, () => `SELECT COALESCE(MAX(recnum), 0) AS last FROM ${p.events}`),
    next: (after, rows, ceiling) => statement(p, (params) =>
      select(params, (b) => [`recnum <= ${b.bind(ceiling)}`, ...(after ? [keysetAfter(after, sortColumn, q.direction, b)] : [])]) + page(params, rows, after ? 0 : sqlSkip)),
  };
  const plan: SelectPlan = { ...stmt, residual, memoryPaging };
  if (maxRows !== undefined) plan.maxRows = maxRows;
  if (batches) plan.batches = batches;
  return plan;
}

/** The column a batch's last row carries its sort value in (when the order is not recnum). */
const ORDER_KEY = 'k_order';

/**
 * The rows that come after `last` in the order of orderBy(): by recnum, or by the sort column
 * with ties by recnum ascending, NULL being the smallest value (first ascending, last descending).
 */
function keysetAfter(last: RawRow, sortColumn: string | null, direction: EventQuery['direction'], params: SqlParams): string {
  const recnum = field(last, 'recnum');
  if (sortColumn === null) return direction === 'desc' ? `recnum < ${params.bind(recnum)}` : `recnum > ${params.bind(recnum)}`;
  const c = sortColumn;
  const v = field(last, ORDER_KEY);
  if (v === null || v === undefined) {
    return direction === 'desc'
      ? `(${c} IS NULL AND recnum > ${params.bind(recnum)})`
      : `((${c} IS NULL AND recnum > ${params.bind(recnum)}) OR ${c} IS NOT NULL)`;
  }
  // Written as a range on the sort column first, so its (column, recnum) index bounds the batch.
  return direction === 'desc'
    ? `((${c} <= ${params.bind(v)} AND (${c} < ${params.bind(v)} OR recnum > ${params.bind(recnum)})) OR ${c} IS NULL)`
    : `(${c} >= ${params.bind(v)} AND (${c} > ${params.bind(v)} OR recnum > ${params.bind(recnum)}))`;
}

/** One result row as the drivers return it (some DBMSes upper-case unquoted names). */
export type RawRow = Record<string, unknown>;

function field(raw: RawRow, name: string): unknown {
  return name in raw ? raw[name] : raw[name.toUpperCase()];
}

function toNumberOrNull(v: unknown): number | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

const textOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/**
 * A summary row (buildSelect with `summary`) as an EventRow whose record holds only the
 * summary fields, with the values the columns were written from (append-plan.ts
 * eventColumnValues: a non-string field is stored as NULL, which shapeEvent renders as null too).
 */
function decodeSummaryRow(raw: RawRow): EventRow | null {
  const recnum = toNumberOrNull(field(raw, 'recnum'));
  const time = toNumberOrNull(field(raw, 'time'));
  const etype = field(raw, 'etype');
  if (recnum === null || time === null || typeof etype !== 'string') return null;
  const status = field(raw, 'x_exitstatus');
  const rec: StoredEvent = {
    recnum,
    uniqueid: textOrNull(field(raw, 'uniqueid')) ?? '',
    etype: etype as StoredEvent['etype'],
    time,
    submituser: textOrNull(field(raw, 'submituser')),
    submithost: textOrNull(field(raw, 'submithost')),
    runuser: textOrNull(field(raw, 'runuser')),
    runhost: textOrNull(field(raw, 'runhost')),
    runcommand: textOrNull(field(raw, 'runcommand')),
  } as StoredEvent;
  return { rec, exitstatus: typeof status === 'string' ? status : null, exittime: toNumberOrNull(field(raw, 'x_exittime')) };
}

/** A result row as an EventRow; null when its record is not valid JSON of an event (counted). */
export function decodeRow(raw: RawRow): EventRow | null {
  if (!('record' in raw) && !('RECORD' in raw)) return decodeSummaryRow(raw);
  const stored = field(raw, 'record');
  const text = typeof stored === 'string' ? stored : String(stored);
  // A record nested too deep (not stored by evio: appends refuse it) counts as malformed.
  if (jsonTextTooDeep(text)) return null;
  let rec: unknown;
  try {
    rec = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isStoredEvent(rec)) return null;
  const status = field(raw, 'x_exitstatus');
  return {
    rec: rec as StoredEvent,
    exitstatus: typeof status === 'string' ? status : null,
    exittime: toNumberOrNull(field(raw, 'x_exittime')),
  };
}

/** Reads one stored record's JSON by recnum. */
export function recordByRecnumSql(p: SqlProfile, recnum: number): SqlStatement {
  return statement(p, (b) => `SELECT record FROM ${p.events} WHERE recnum = ${b.bind(recnum)}`);
}

/**
 * Streams decoded rows through what SQL left undone: residual pattern filters, then paging,
 * one driver batch at a time (a synchronous pass per batch). Stops pulling (so the driver
 * closes its cursor) as soon as the limit is reached.
 */
export async function* finishRows(
  raws: AsyncIterable<readonly RawRow[]>,
  q: EventQuery,
  plan: SelectPlan,
  stats: ScanStats,
  opts: QueryOptions = {},
  refetch?: (recnum: number) => Promise<string | null>,
): AsyncGenerator<EventRow[]> {
  const paging = plan.memoryPaging;
  let toSkip = paging?.skip ?? 0;
  let left = paging?.limit ?? Number.POSITIVE_INFINITY;
  if (left <= 0) return;
  const residual = plan.residual;
  for await (const batch of raws) {
    opts.signal?.throwIfAborted();
    const out: EventRow[] = [];
    for (const raw of batch) {
      let row = decodeRow(raw);
      if (row === null && refetch) {
        // A driver that reads rows in blocks into fixed-size buffers cuts long text (a cut JSON
        // object is never valid JSON): read that one record again, on its own.
        const recnum = toNumberOrNull(field(raw, 'recnum'));
        const record = recnum === null ? null : await refetch(recnum);
        if (record !== null) row = decodeRow({ ...raw, record });
      }
      if (row === null) {
        stats.malformed++;
        continue;
      }
      if (residual.length > 0 && !residualMatch(row, q, residual)) continue;
      if (toSkip > 0) {
        toSkip--;
        continue;
      }
      out.push(row);
      if (--left <= 0) break;
    }
    if (out.length > 0) yield out;
    if (left <= 0) return;
  }
}

/** The pattern filters SQL could not apply (SelectPlan.residual), on a decoded row. */
function residualMatch(row: EventRow, q: EventQuery, residual: readonly PatternField[]): boolean {
  for (const f of residual) {
    const v = patternValue(row, f);
    if (v === null || !matchesAny(q.patterns[f]!, v)) return false;
  }
  return true;
}
