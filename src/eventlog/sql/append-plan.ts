// Appends on a database, planned once for every driver. Per batch (one transaction):
//   1. read the last recnum (under the writer lock) and which given recnums already exist;
//   2. assign recnums exactly as the reference store does (planBatch);
//   3. insert the new rows (insertStatements);
//   4. re-link the finish merge for the uniqueids the batch touched (recomputeFinishesSql): every
//      A/K row's finish is the first F after it with its uniqueid, whatever order copies arrive in.
import { evioError } from '../../errors.js';
import { normalizedView } from '../record.js';
import type { NewEvent, StoredEvent } from '../types.js';
import type { SqlProfile } from './profile.js';
import { EVENT_COLUMNS } from './schema.js';
import { chunks, inList, statement, type SqlStatement } from './statement.js';

/** Fields stored in indexed text columns: they must be text a database can hold and compare. */
const COLUMN_TEXT_FIELDS = ['uniqueid', 'submituser', 'submithost', 'runuser', 'runhost', 'runcommand', 'exitstatus'] as const;
const NOT_STORABLE = /[\u0000\p{Cs}]/u;

/**
 * normalizeNewEvent, plus what a database cannot store: a NUL (PostgreSQL text refuses it,
 * SQLite's GLOB stops at it) or a lone surrogate (not encodable as UTF-8: a driver would store
 * U+FFFD, and filters would then disagree with the record). Refused the same on every database.
 * A record already in the canonical order (one read back from a store: a copy) is not copied
 * (normalizedView); the store only reads what it returns.
 */
export function prepareEvent(ev: NewEvent, index: number): NewEvent {
  const out = normalizedView(ev, index);
  for (const f of COLUMN_TEXT_FIELDS) {
    const v = out[f];
    if (typeof v === 'string' && NOT_STORABLE.test(v)) {
      throw evioError('STORE_BAD_RECORD', `record ${index + 1}: ${f} holds a NUL character or an unpaired surrogate, which a database cannot store`);
    }
  }
  return out;
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/**
 * The stored record (recnum first, then normalizeNewEvent's canonical order): a prepared event
 * that starts with this recnum already is that record, and is returned as is.
 */
export function storedRecord(ev: NewEvent, recnum: number): StoredEvent {
  if (ev.recnum === recnum && firstKey(ev) === 'recnum') return ev as StoredEvent;
  const { recnum: _given, ...rest } = ev;
  return { recnum, ...rest } as StoredEvent;
}

function firstKey(o: object): string | undefined {
  for (const k in o) return k;
  return undefined;
}

/** The `record` column: the stored record as JSON. */
function recordJson(rec: StoredEvent): string {
  try {
    return JSON.stringify(rec);
  } catch (err) {
    throw evioError('STORE_BAD_RECORD', `record ${rec.recnum} cannot be stored as JSON: ${(err as Error).message}`);
  }
}

/** Column values of a new row, in EVENT_COLUMNS order; A/K finish columns start empty. */
export function eventColumnValues(rec: StoredEvent): unknown[] {
  return fillColumnValues(new Array<unknown>(EVENT_COLUMNS.length), rec, undefined);
}

/**
 * Writes a row's column values into `v` (EVENT_COLUMNS order) and returns it: the finish
 * columns from `fin` (an A/K row's finish, when known), else empty.
 */
function fillColumnValues(v: unknown[], rec: StoredEvent, fin: StoredEvent | undefined): unknown[] {
  const accept = rec.etype === 'A' || rec.etype === 'K';
  const exitstatus = str(rec.exitstatus);
  v[0] = rec.recnum;
  v[1] = rec.uniqueid;
  v[2] = rec.etype;
  v[3] = rec.time;
  v[4] = str(rec.submituser);
  v[5] = str(rec.submithost);
  v[6] = str(rec.runuser);
  v[7] = str(rec.runhost);
  v[8] = str(rec.runcommand);
  v[9] = exitstatus;
  v[10] = rec.etype === 'F' ? rec.time : null;
  v[11] = fin ? fin.recnum : null;
  v[12] = fin ? str(fin.exitstatus) : accept ? null : exitstatus;
  v[13] = fin ? fin.time : null;
  v[14] = recordJson(rec);
  return v;
}

/** Given recnums at or below `last` that may already be stored (the rest cannot be). */
export function recnumsToCheck(batch: readonly NewEvent[], last: number): number[] {
  const out = new Set<number>();
  for (const ev of batch) if (ev.recnum !== undefined && ev.recnum <= last) out.add(ev.recnum);
  return [...out];
}

export interface BatchPlan {
  /** Records to insert, with their recnums. */
  rows: StoredEvent[];
  /** Records skipped because their recnum is already stored (or earlier in the batch). */
  skipped: number;
  /** uniqueids whose finish links may have changed. */
  uniqueids: string[];
  /** The last recnum before the batch (a measure of the table's size). */
  lastBefore: number;
}

/**
 * The reference store's rules: no recnum -> last + 1; a recnum that exists -> skipped. Unlike
 * the reference (and flat files), a database takes a recnum lower than the last one as long as
 * it is not present: its finish links are re-derived, so an out-of-order copy ends up as if the
 * records had arrived in recnum order.
 */
export function planBatch(batch: readonly NewEvent[], last: number, existing: ReadonlySet<number>): BatchPlan {
  const lastBefore = last;
  const taken = new Set(existing);
  const rows: StoredEvent[] = [];
  const uids = new Set<string>();
  let skipped = 0;
  for (const ev of batch) {
    const recnum = ev.recnum ?? last + 1;
    if (taken.has(recnum)) {
      skipped++;
      continue;
    }
    taken.add(recnum);
    if (recnum > last) last = recnum;
    const rec = storedRecord(ev, recnum);
    rows.push(rec);
    if (rec.etype !== 'R') uids.add(rec.uniqueid);
  }
  return { rows, skipped, uniqueids: [...uids], lastBefore };
}

export function lastRecnumSql(p: SqlProfile): string {
  return `SELECT COALESCE(MAX(recnum), 0) AS last FROM ${p.events}`;
}

export function existingRecnumsStatements(p: SqlProfile, recnums: readonly number[]): SqlStatement[] {
  return chunks(recnums, p.arrayParams ? 10000 : p.maxParams).map((c) =>
    statement(p, (b) => `SELECT recnum FROM ${p.events} WHERE ${inList(p, 'recnum', c, b, 'bigint')}`),
  );
}

/** PostgreSQL types of EVENT_COLUMNS, for array parameters. */
const PG_COLUMN_TYPES: Record<(typeof EVENT_COLUMNS)[number], string> = {
  recnum: 'bigint', uniqueid: 'text', etype: 'text', time: 'float8', submituser: 'text', submithost: 'text', runuser: 'text',
  runhost: 'text', runcommand: 'text', exitstatus: 'text', exittime: 'float8', fin_recnum: 'bigint', merged_exitstatus: 'text',
  merged_exittime: 'float8', record: 'text',
};

/**
 * INSERTs for the rows: with array parameters (node-postgres) one statement per 5000 rows, a
 * column per array, so the statement text never grows; else multi-row VALUES lists, each under
 * the profile's parameter bound.
 */
export function insertStatements(p: SqlProfile, rows: readonly StoredEvent[], maxRows = 500): SqlStatement[] {
  if (p.arrayParams) {
    return chunks(rows, 5000).map((c) =>
      statement(p, (b) => {
        const values = c.map(eventColumnValues);
        const columns = EVENT_COLUMNS.map((_, i) => values.map((v) => v[i]));
        const arrays = EVENT_COLUMNS.map((name, i) => `${b.bind(columns[i])}::${PG_COLUMN_TYPES[name]}[]`);
        return `INSERT INTO ${p.events} (${EVENT_COLUMNS.join(', ')}) SELECT * FROM unnest(${arrays.join(', ')})`;
      }),
    );
  }
  const perRow = EVENT_COLUMNS.length;
  const size = Math.max(1, Math.min(maxRows, Math.floor(p.maxParams / perRow)));
  return chunks(rows, size).map((c) =>
    statement(p, (b) => {
      const values = c.map((rec) => `(${eventColumnValues(rec).map((v) => b.bind(v)).join(', ')})`);
      return `INSERT INTO ${p.events} (${EVENT_COLUMNS.join(', ')}) VALUES ${values.join(', ')}`;
    }),
  );
}

/**
 * Re-derives the finish of the A/K rows a selector picks: fin_recnum = the first F after the row
 * with its uniqueid, and the merged exit columns from that F (NULL when none). Only rows whose
 * link changes are written (recnums are >= 1, so 0 stands for "none"). `events` in the
 * correlated subqueries is the UPDATE target (the inner tables are aliased). The etype test is
 * written so that no planner picks the (unselective) etype index over the selector's: a bulk
 * copy into a table without fresh statistics would otherwise scan every accept per batch.
 */
export function recomputeFinishesSql(p: SqlProfile, selector: string): string {
  const E = p.events;
  const next = `SELECT MIN(g.recnum) FROM ${E} g WHERE g.uniqueid = events.uniqueid AND g.etype = 'F' AND g.recnum > events.recnum`;
  return `UPDATE ${E} SET
  fin_recnum = (${next}),
  merged_exitstatus = (SELECT f.exitstatus FROM ${E} f WHERE f.recnum = (${next})),
  merged_exittime = (SELECT f.time FROM ${E} f WHERE f.recnum = (${next}))
WHERE ${selector} AND COALESCE(etype, '') IN ('A', 'K') AND COALESCE(fin_recnum, 0) <> COALESCE((${next}), 0)`;
}

/**
 * The same re-link in PostgreSQL's UPDATE ... FROM form: the next F is looked up once per row
 * (not once per assigned column), and the finish's columns come from one join.
 */
function recomputeFinishesPg(p: SqlProfile, selector: string): string {
  const E = p.events;
  return `UPDATE ${E} AS e SET fin_recnum = n.fin, merged_exitstatus = f.exitstatus, merged_exittime = f.time
FROM (SELECT a.recnum, (SELECT MIN(g.recnum) FROM ${E} g WHERE g.uniqueid = a.uniqueid AND g.etype = 'F' AND g.recnum > a.recnum) AS fin
      FROM ${E} a WHERE ${selector} AND COALESCE(a.etype, '') IN ('A', 'K')) AS n
LEFT JOIN ${E} f ON f.recnum = n.fin
WHERE e.recnum = n.recnum AND e.fin_recnum IS DISTINCT FROM n.fin`;
}

/** Re-links the A/K rows of these uniqueids. */
export function recomputeForUniqueids(p: SqlProfile, uniqueids: readonly string[]): SqlStatement[] {
  return chunks(uniqueids, p.arrayParams ? 5000 : Math.min(p.maxParams, 500)).map((c) =>
    statement(p, (b) => (p.flavor === 'pg' ? recomputeFinishesPg(p, inList(p, 'a.uniqueid', c, b, 'text')) : recomputeFinishesSql(p, inList(p, 'uniqueid', c, b, 'text')))),
  );
}

/** Re-links the rows a delete marked (fin_recnum negated). */
export function relinkMarkedSql(p: SqlProfile): string {
  return p.flavor === 'pg' ? recomputeFinishesPg(p, 'a.fin_recnum < 0') : recomputeFinishesSql(p, 'fin_recnum < 0');
}

/** The first finish of a uniqueid in a batch: what an older unfinished A/K row of it links to. */
export interface BatchFinish {
  uniqueid: string;
  recnum: number;
  exitstatus: string | null;
  time: number;
}

/**
 * A batch that only appends (every recnum above the table's last one) is linked here, without
 * asking the table: each A/K row's finish is the first F after it with its uniqueid in the batch
 * (the table has no row after it), written into its columns before the insert; older A/K rows
 * still without a finish link to the first F of their uniqueid in the batch (linkOlderStatements).
 * Null when some recnum is not above `lastBefore` (the general re-link then runs).
 */
export function linkAppendBatch(rows: readonly StoredEvent[], lastBefore: number): LinkedBatch | null {
  let sorted = true;
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!.recnum;
    if (r <= lastBefore) return null;
    if (i > 0 && r < rows[i - 1]!.recnum) sorted = false;
  }
  // Walk backwards in recnum order: the F rows seen so far are those after the current row.
  const order = sorted ? null : rows.map((_, i) => i).sort((a, b) => rows[a]!.recnum - rows[b]!.recnum);
  const fin = new Array<StoredEvent | undefined>(rows.length);
  const nextF = new Map<string, StoredEvent>();
  for (let k = rows.length - 1; k >= 0; k--) {
    const i = order ? order[k]! : k;
    const r = rows[i]!;
    if (r.etype === 'F') nextF.set(r.uniqueid, r);
    else if (r.etype === 'A' || r.etype === 'K') fin[i] = nextF.get(r.uniqueid);
  }
  const finishes: BatchFinish[] = [];
  for (const [uniqueid, f] of nextF) finishes.push({ uniqueid, recnum: f.recnum, exitstatus: str(f.exitstatus), time: f.time });
  return { rows, fin, finishes };
}

/** A batch linked in memory (linkAppendBatch). */
export interface LinkedBatch {
  rows: readonly StoredEvent[];
  /** Each A/K row's finish in the batch (by row index); undefined when it has none there. */
  fin: ReadonlyArray<StoredEvent | undefined>;
  /** The first F of each uniqueid in the batch, for older rows without a finish. */
  finishes: BatchFinish[];
}

/**
 * The batch's column values, row by row (EVENT_COLUMNS order, finish columns linked), in ONE
 * array refilled for each row: a consumer uses each row before it asks for the next (a COPY
 * text line, a prepared statement's run), so a load allocates no array per row.
 */
export function* linkedRowValues(b: LinkedBatch): Generator<readonly unknown[]> {
  const v = new Array<unknown>(EVENT_COLUMNS.length);
  for (let i = 0; i < b.rows.length; i++) yield fillColumnValues(v, b.rows[i]!, b.fin[i]);
}

/** The batch's column values as arrays of their own (the multi-row INSERT form). */
export function linkedValues(b: LinkedBatch): unknown[][] {
  return b.rows.map((r, i) => fillColumnValues(new Array<unknown>(EVENT_COLUMNS.length), r, b.fin[i]));
}

/**
 * The UPDATE that links one older A/K row set to a batch finish, bound as (fin, status, time,
 * uniqueid, lastBefore): the rows before the batch (the batch's own are linked already), which
 * all lie before every finish of the batch.
 */
export function linkOlderRowSql(p: SqlProfile): string {
  return `UPDATE ${p.events} SET fin_recnum = ?, merged_exitstatus = ?, merged_exittime = ? WHERE uniqueid = ? AND etype IN ('A', 'K') AND COALESCE(fin_recnum, 0) = 0 AND recnum <= ?`;
}

/** linkOlderRowSql's parameters for each finish. */
export function linkOlderRowParams(finishes: readonly BatchFinish[], lastBefore: number): unknown[][] {
  return finishes.map((f) => [f.recnum, f.exitstatus, f.time, f.uniqueid, lastBefore]);
}

/**
 * Statements linking the table's A/K rows that have no finish yet (those up to `lastBefore`,
 * the last recnum before the batch: every finish of the batch is after them) to the batch's
 * first F of their uniqueid. PostgreSQL: one UPDATE ... FROM unnest per 5000 finishes, whose
 * recnum bound keeps the batch's own rows (linked already) out of the index scan; other
 * DBMSes: the general re-link, limited to rows without a finish.
 */
export function linkOlderStatements(p: SqlProfile, finishes: readonly BatchFinish[], lastBefore: number): SqlStatement[] {
  if (p.arrayParams) {
    return chunks(finishes, 5000).map((c) =>
      statement(p, (b) => {
        const arrays = `unnest(${b.bind(c.map((f) => f.uniqueid))}::text[], ${b.bind(c.map((f) => f.recnum))}::bigint[], ${b.bind(c.map((f) => f.exitstatus))}::text[], ${b.bind(c.map((f) => f.time))}::float8[])`;
        return `UPDATE ${p.events} AS e SET fin_recnum = f.recnum, merged_exitstatus = f.exitstatus, merged_exittime = f.time
FROM ${arrays} AS f(uniqueid, recnum, exitstatus, time)
WHERE e.uniqueid = f.uniqueid AND e.etype IN ('A', 'K') AND COALESCE(e.fin_recnum, 0) = 0 AND e.recnum <= ${b.bind(lastBefore)}::bigint`;
      }),
    );
  }
  return chunks(finishes, Math.min(p.maxParams, 500)).map((c) =>
    statement(p, (b) => recomputeFinishesSql(p, `COALESCE(fin_recnum, 0) = 0 AND ${inList(p, 'uniqueid', c.map((f) => f.uniqueid), b, 'text')}`)),
  );
}

/** Multi-row INSERTs of prepared column values (insertStatements' fallback form). */
export function insertValueStatements(p: SqlProfile, values: readonly (readonly unknown[])[], maxRows = 500): SqlStatement[] {
  const size = Math.max(1, Math.min(maxRows, Math.floor(p.maxParams / EVENT_COLUMNS.length)));
  return chunks(values, size).map((c) =>
    statement(p, (b) => `INSERT INTO ${p.events} (${EVENT_COLUMNS.join(', ')}) VALUES ${c.map((v) => `(${v.map((x) => b.bind(x)).join(', ')})`).join(', ')}`),
  );
}

/** The single-row INSERT a prepared-statement loop runs (runMany). */
export function insertRowSql(p: SqlProfile): string {
  return `INSERT INTO ${p.events} (${EVENT_COLUMNS.join(', ')}) VALUES (${EVENT_COLUMNS.map(() => '?').join(', ')})`;
}
