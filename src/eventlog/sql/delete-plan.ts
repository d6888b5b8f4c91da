// Deletes on a database, set-based and in one transaction, with the reference store's meaning:
// dump=0 deletes what the (merged) filter matches plus the finish records of the accepts it
// deletes; dump=1 deletes exactly the matching rows. Either way, accepts that survive but lose
// their finish record look for the next F after them (or become unfinished).
//
// The statements, in order (W = the filter as a predicate, evaluated before anything changes it):
//   mark      survivors-to-be whose finish is doomed get fin_recnum negated (a transaction-local
//             mark: recnums are >= 1), so step `relink` finds them by index afterwards;
//   fins      (dump=0) delete the finishes of matched accepts: the negated links of W's rows;
//   rows      delete W;
//   relink    re-derive the finish of every marked row.
// W reads merged_exitstatus/merged_exittime, never fin_recnum, so marking does not change it.
import { SqlParams } from '../../common/sql-wildcard.js';
import type { EventFilter } from '../types.js';
import { relinkMarkedSql } from './append-plan.js';
import type { SqlProfile } from './profile.js';
import { statement, type SqlStatement } from './statement.js';
import { compileFilter } from './where.js';

/** A delete predicate over `events` (alias = a subquery's name for it). */
export type Predicate = (params: SqlParams, alias?: string) => string;

export interface DeleteStatement extends SqlStatement {
  /** Its affected-row count adds to DeleteResult.deleted. */
  counts: boolean;
}

/** The filter as a predicate; null when part of it must be finished in memory. */
export function filterPredicate(f: EventFilter, p: SqlProfile): Predicate | null {
  if (compileFilter(f, p, new SqlParams(p.placeholders)).residual.length > 0) return null;
  return (params, alias) => compileFilter(f, p, params, alias).where;
}

/** A list of recnums as a predicate (deletes whose filter is finished in memory). */
export function recnumPredicate(recnums: readonly number[]): Predicate {
  return (params, alias) => `${alias ? `${alias}.` : ''}recnum IN (${recnums.map((r) => params.bind(r)).join(', ')})`;
}

/** mark, fins, rows: run once per predicate (recnum chunks may run them several times). */
export function deleteStatements(p: SqlProfile, where: Predicate, dump: boolean): DeleteStatement[] {
  const E = p.events;
  const out: DeleteStatement[] = [];
  out.push({
    counts: false,
    ...statement(p, (b) => {
      // Doomed finishes: F rows W matches, and (dump=0) the finishes of W's accepts. ABS: a row
      // W matches may already be marked by an earlier chunk of the same delete.
      const finsOfMatches = dump ? null : `fin_recnum IN (SELECT ABS(w.fin_recnum) FROM ${E} w WHERE ${where(b, 'w')} AND w.fin_recnum IS NOT NULL)`;
      const matchedFinishes = `fin_recnum IN (SELECT w.recnum FROM ${E} w WHERE ${where(b, 'w')} AND w.etype = 'F')`;
      const doomed = finsOfMatches ? `(${finsOfMatches} OR ${matchedFinishes})` : matchedFinishes;
      return `UPDATE ${E} SET fin_recnum = -fin_recnum WHERE etype IN ('A', 'K') AND fin_recnum > 0 AND ${doomed}`;
    }),
  });
  if (!dump) {
    out.push({
      counts: true,
      ...statement(p, (b) => `DELETE FROM ${E} WHERE etype = 'F' AND recnum IN (SELECT -w.fin_recnum FROM ${E} w WHERE ${where(b, 'w')} AND w.fin_recnum < 0)`),
    });
  }
  out.push({ counts: true, ...statement(p, (b) => `DELETE FROM ${E} WHERE ${where(b)}`) });
  return out;
}

/** Run once after every deleteStatements batch of one delete. */
export function relinkMarkedStatement(p: SqlProfile): SqlStatement {
  return { sql: relinkMarkedSql(p), params: [] };
}
