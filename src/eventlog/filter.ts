// The query semantics in memory: which rows a filter keeps, how rows sort, and which event types
// a query sees. The flat-file adapter runs these directly; the SQL adapters must agree with them
// (the conformance and property tests compare every adapter with memory-store.ts, which is built
// on these functions).
import type { Wildcard } from '../common/wildcard.js';
import type { EType, EventFilter, EventRow, OrderField, PatternField, StoredEvent } from './types.js';

/** Event types a filter admits: the explicit list, or A/R/K (plus F with dump=1). */
export function admittedTypes(f: EventFilter): ReadonlySet<EType> {
  if (f.etypes) return new Set(f.etypes);
  return new Set<EType>(f.dump ? ['A', 'R', 'K', 'F'] : ['A', 'R', 'K']);
}

/** True when `value` matches one of the field's alternatives. */
export function matchesAny(alternatives: readonly Wildcard[], value: string): boolean {
  for (const w of alternatives) if (w.test(value)) return true;
  return false;
}

/** The value a pattern filter sees: stored string fields, or the row's (merged) exitstatus. */
export function patternValue(row: EventRow, field: PatternField): string | null {
  if (field === 'exitstatus') return row.exitstatus;
  const v = row.rec[field];
  return typeof v === 'string' ? v : null;
}

/** True when the filter depends on the finish merge (exit status or exit time). */
export function usesExitFilters(f: EventFilter): boolean {
  return f.exitFrom !== null || f.exitTo !== null || f.patterns.exitstatus !== undefined;
}

/** Filters that can be decided from the stored record alone (everything but exit filters). */
export function matchesRecord(rec: StoredEvent, f: EventFilter, types: ReadonlySet<EType>): boolean {
  if (!types.has(rec.etype)) return false;
  if (f.recnumMin !== null && rec.recnum < f.recnumMin) return false;
  if (f.recnumMax !== null && rec.recnum > f.recnumMax) return false;
  if (f.from !== null && !(rec.time >= f.from)) return false;
  if (f.to !== null && !(rec.time <= f.to)) return false;
  for (const key in f.patterns) {
    const field = key as PatternField;
    if (field === 'exitstatus') continue;
    const v = rec[field];
    if (typeof v !== 'string' || !matchesAny(f.patterns[field]!, v)) return false;
  }
  return true;
}

/** The exit filters, on a row whose merged values are known. A null value never matches. */
export function matchesExit(row: EventRow, f: EventFilter): boolean {
  if (f.exitFrom !== null || f.exitTo !== null) {
    if (row.exittime === null) return false;
    if (f.exitFrom !== null && !(row.exittime >= f.exitFrom)) return false;
    if (f.exitTo !== null && !(row.exittime <= f.exitTo)) return false;
  }
  const p = f.patterns.exitstatus;
  if (p !== undefined && (row.exitstatus === null || !matchesAny(p, row.exitstatus))) return false;
  return true;
}

export function matchesRow(row: EventRow, f: EventFilter, types: ReadonlySet<EType>): boolean {
  return matchesRecord(row.rec, f, types) && matchesExit(row, f);
}

/** A row as stored (dump=1): exitstatus as stored, an F record's own time as its exit time. */
export function storedRow(rec: StoredEvent): EventRow {
  return {
    rec,
    exitstatus: typeof rec.exitstatus === 'string' ? rec.exitstatus : null,
    exittime: rec.etype === 'F' ? rec.time : null,
  };
}

/**
 * A row with the finish merge (dump=0) given the record's finish, if any. The finish of an A/K
 * record is the first F record after it with the same uniqueid; an R record keeps its own
 * exitstatus; F records are not returned with dump=0.
 */
export function mergedRow(rec: StoredEvent, finish: StoredEvent | null): EventRow {
  if (rec.etype === 'A' || rec.etype === 'K') {
    return {
      rec,
      exitstatus: finish && typeof finish.exitstatus === 'string' ? finish.exitstatus : null,
      exittime: finish ? finish.time : null,
    };
  }
  return { rec, exitstatus: typeof rec.exitstatus === 'string' ? rec.exitstatus : null, exittime: null };
}

/** Code-point order (what SQLite's BINARY and PostgreSQL's "C" collation give), not UTF-16 order. */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) {
      // Surrogates (0xD800-0xDFFF) encode code points above every BMP character.
      const xs = x >= 0xd800 && x <= 0xdfff;
      const ys = y >= 0xd800 && y <= 0xdfff;
      if (xs !== ys) return xs ? 1 : -1;
      return x - y;
    }
  }
  return a.length - b.length;
}

/** The sort key of a row for `order` (null sorts as the smallest value). */
export function orderValue(row: EventRow, order: OrderField): string | number | null {
  switch (order) {
    case 'recnum':
      return row.rec.recnum;
    case 'epoch':
    case 'time':
      return row.rec.time;
    case 'exittime':
      return row.exittime;
    case 'exitstatus':
      return row.exitstatus;
    default: {
      const v = row.rec[order];
      return typeof v === 'string' ? v : null;
    }
  }
}

/** Comparator for `order`/`direction`; ties always by recnum ascending. */
export function rowComparator(order: OrderField, direction: 'asc' | 'desc'): (a: EventRow, b: EventRow) => number {
  const sign = direction === 'desc' ? -1 : 1;
  return (a, b) => {
    const x = orderValue(a, order);
    const y = orderValue(b, order);
    let c = 0;
    if (x === null || y === null) c = x === y ? 0 : x === null ? -1 : 1;
    else if (typeof x === 'number' && typeof y === 'number') c = x - y;
    else c = compareCodePoints(String(x), String(y));
    return c !== 0 ? sign * c : a.rec.recnum - b.rec.recnum;
  };
}
