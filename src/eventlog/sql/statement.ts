// A statement with its bound parameters, built for one profile's placeholder style.
import { SqlParams } from '../../common/sql-wildcard.js';
import type { SqlProfile } from './profile.js';

export interface SqlStatement {
  sql: string;
  params: unknown[];
  /** The most rows the statement can answer (its LIMIT), when SQL bounds them. */
  maxRows?: number;
  /** The same answer as statements of bounded batches (select.ts), for drivers that read that way. */
  batches?: KeysetBatches;
}

/**
 * An answer read as a series of short statements, each resuming after the last row of the one
 * before (keyset paging) instead of one statement stepped while the consumer is slow: nothing
 * stays open between batches (SQLite: no read transaction pins the WAL; no connection is held).
 */
export interface KeysetBatches {
  /** The highest recnum now: batches answer only records up to it, as one statement would. */
  readonly ceiling: SqlStatement;
  /** The next at most `rows` rows after `after` (a row of the previous batch; null: the first batch). */
  next(after: Record<string, unknown> | null, rows: number, ceiling: number): SqlStatement;
}

/** Builds SQL text and its parameters together, so placeholders and values cannot drift apart. */
export function statement(p: SqlProfile, build: (params: SqlParams) => string): SqlStatement {
  const params = new SqlParams(p.placeholders);
  const sql = build(params);
  return { sql, params: params.values };
}

/** `column IN (?, ...)`, or `column = ANY($n)` with one array parameter where the driver binds arrays. */
export function inList(p: SqlProfile, column: string, values: readonly unknown[], params: SqlParams, sqlType: 'bigint' | 'text'): string {
  if (values.length === 0) return '1 = 0';
  if (p.arrayParams) return `${column} = ANY(${params.bind(values)}::${sqlType}[])`;
  return `${column} IN (${values.map((v) => params.bind(v)).join(', ')})`;
}

/** Splits a list so that each statement stays under the profile's parameter bound. */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
