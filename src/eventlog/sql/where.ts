// An EventFilter as one parameterised SQL predicate over `events`, with the same meaning as
// filter.ts: dump=0 reads the merged exit columns, dump=1 the stored ones; a NULL never matches
// (SQL comparisons with NULL are never true); patterns a dialect cannot express are left to be
// finished in memory (`residual`).
import { admittedTypes } from '../filter.js';
import { anyWildcardSql, SqlParams } from '../../common/sql-wildcard.js';
import { ETYPES, PATTERN_FIELDS, type EventFilter, type OrderField, type PatternField } from '../types.js';
import type { Wildcard } from '../../common/wildcard.js';
import type { SqlProfile } from './profile.js';

/** The exit columns a query reads: merged (dump=0) or as stored (dump=1). */
export function exitColumns(dump: boolean): { exitstatus: string; exittime: string } {
  return dump ? { exitstatus: 'exitstatus', exittime: 'exittime' } : { exitstatus: 'merged_exitstatus', exittime: 'merged_exittime' };
}

/** The column an `order` field sorts by (ORDER_FIELDS is the whitelist; nothing else reaches SQL). */
export function orderColumn(order: OrderField, dump: boolean): string {
  switch (order) {
    case 'epoch':
    case 'time':
      return 'time';
    case 'exitstatus':
      return exitColumns(dump).exitstatus;
    case 'exittime':
      return exitColumns(dump).exittime;
    case 'recnum':
    case 'uniqueid':
    case 'etype':
    case 'submituser':
    case 'submithost':
    case 'runuser':
    case 'runhost':
    case 'runcommand':
      return order;
  }
}

export interface CompiledFilter {
  /** The predicate ('1 = 1' when the filter keeps everything). */
  where: string;
  /** Pattern filters the SQL could not express: the store applies them to each row. */
  residual: PatternField[];
}

/** True when a SQL Server-style LIKE would read a literal `[` of the pattern as a class. */
function hasLiteralBracket(w: Wildcard): boolean {
  return w.tokens.some((t) => t.t === 'lit' && t.s.includes('['));
}

/**
 * Compiles `f` into `params` (placeholders appear in the text in binding order). `alias`
 * prefixes every column, for use inside subqueries.
 */
export function compileFilter(f: EventFilter, p: SqlProfile, params: SqlParams, alias?: string): CompiledFilter {
  const col = (c: string) => (alias ? `${alias}.${c}` : c);
  const parts: string[] = [];
  const types = admittedTypes(f);
  if (types.size === 0) parts.push('1 = 0');
  else if (types.size < ETYPES.length) {
    const list = ETYPES.filter((t) => types.has(t)); // fixed order: one SQL text per type set
    parts.push(`${col('etype')} IN (${list.map((t) => params.bind(t)).join(', ')})`);
  }
  if (f.recnumMin !== null) parts.push(`${col('recnum')} >= ${params.bind(f.recnumMin)}`);
  if (f.recnumMax !== null) parts.push(`${col('recnum')} <= ${params.bind(f.recnumMax)}`);
  if (f.from !== null) parts.push(`${col('time')} >= ${params.bind(f.from)}`);
  if (f.to !== null) parts.push(`${col('time')} <= ${params.bind(f.to)}`);
  const exit = exitColumns(f.dump);
  if (f.exitFrom !== null) parts.push(`${col(exit.exittime)} >= ${params.bind(f.exitFrom)}`);
  if (f.exitTo !== null) parts.push(`${col(exit.exittime)} <= ${params.bind(f.exitTo)}`);
  const residual: PatternField[] = [];
  for (const field of PATTERN_FIELDS) {
    const alternatives = f.patterns[field];
    if (alternatives === undefined) continue;
    const column = col(field === 'exitstatus' ? exit.exitstatus : field);
    // Several alternatives (a repeated parameter) are OR-ed: `col IN (...)` or `(a OR b)`.
    const unsafe = p.likeBrackets && alternatives.some((w) => w.exact === null && hasLiteralBracket(w));
    const sql = unsafe ? null : anyWildcardSql(alternatives, column, p.wildcard, params);
    if (sql === null) residual.push(field);
    else parts.push(sql);
  }
  return { where: parts.length ? parts.join(' AND ') : '1 = 1', residual };
}

/** A filter is fully pushed down when nothing is left for memory. */
export function isFullyPushedDown(f: EventFilter, p: SqlProfile): boolean {
  return compileFilter(f, p, new SqlParams(p.placeholders)).residual.length === 0;
}
