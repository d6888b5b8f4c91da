// parseEventQuery: the REST parameters of the event-log calls (spec document 1, "Event logs";
// DESIGN §3) turned into one validated, adapter-independent EventQuery. Every bad input gets its
// own error code; nothing reaches an adapter unchecked.
import { evioError } from '../errors.js';
import { flag as readFlag, single, values, wholeNumber, type Params } from '../common/params.js';
import { checkDsnName } from './odbc/dsn-name.js';
import { parseQueryDate } from './time.js';
import { compileWildcard, type Wildcard } from '../common/wildcard.js';
import { ORDER_FIELDS, PATTERN_FIELDS, type EType, type EventFilter, type EventQuery, type OrderField, type PatternField } from './types.js';

export type StoreRef =
  | { format: 'ff'; file: string; family?: boolean }
  | { format: 'db'; file: string | null }
  | { format: 'odbc'; dsn: string };

export interface ParsedQuery {
  store: StoreRef;
  query: EventQuery;
}

export interface ParsedDelete {
  store: StoreRef;
  filter: EventFilter;
}

export type { Params } from '../common/params.js';

export const DEFAULT_LIMIT = 32768;
export const DEFAULT_VERBOSE_LIMIT = 512;


const FILTER_PARAMS = ['etype', 'from', 'to', 'exittime_from', 'exittime_to', ...PATTERN_FIELDS] as const;
const QUERY_PARAMS = new Set<string>(['format', 'file', 'dsn', ...FILTER_PARAMS, 'start', 'end', 'offset', 'limit', 'verbose', 'order', 'orderdirection', 'dump', 'family']);
const DELETE_PARAMS = new Set<string>(['format', 'file', 'dsn', ...FILTER_PARAMS, 'start', 'end', 'offset', 'dump', 'all', 'verbose']);

const ETYPE_NAMES: Record<string, EType> = { a: 'A', accept: 'A', r: 'R', reject: 'R', k: 'K', keystroke: 'K', f: 'F', finish: 'F' };

const NUMBER_CODES = { bad: 'QUERY_BAD_INTEGER', tooLarge: 'QUERY_NUMBER_TOO_LARGE' } as const;

function nonNegInt(params: Params, key: string): number | null {
  return wholeNumber(params, key, NUMBER_CODES);
}

function flag(params: Params, key: string, dflt: boolean): boolean {
  return readFlag(params, key, dflt, 'QUERY_BAD_FLAG');
}

function parseStore(params: Params): StoreRef {
  const format = (single(params, 'format') ?? 'db').toLowerCase();
  const file = single(params, 'file');
  // A store is named one way only: a dsn with another format would be silently ignored.
  if (format !== 'odbc' && single(params, 'dsn') !== undefined) throw evioError('QUERY_UNKNOWN_PARAMETER', `dsn names an ODBC data source and goes with format=odbc, not format=${format}`);
  if (format === 'odbc' && file !== undefined) throw evioError('QUERY_UNKNOWN_PARAMETER', 'format=odbc takes dsn=NAME, not file');
  switch (format) {
    case 'ff':
    case 'flatfile':
    case 'file':
      if (!file) throw evioError('QUERY_FILE_REQUIRED', 'format=ff needs file=PATH (a flat-file event log)');
      return { format: 'ff', file };
    case 'db':
      return { format: 'db', file: file || null };
    case 'odbc': {
      const dsn = single(params, 'dsn');
      if (!dsn) throw evioError('QUERY_DSN_REQUIRED', 'format=odbc needs dsn=NAME (an ODBC data source)');
      return { format: 'odbc', dsn: checkDsnName(dsn) };
    }
    default:
      throw evioError('QUERY_UNKNOWN_FORMAT', `format="${format}" is not one of ff, flatfile, file, db, odbc`);
  }
}

function parseEtypes(params: Params): EType[] | null {
  const given = values(params, 'etype');
  if (!given.length) return null;
  const parts = given.flatMap((v) => v.split(','));
  const out = new Set<EType>();
  for (const p of parts) {
    const t = ETYPE_NAMES[p.trim().toLowerCase()];
    if (!t) throw evioError('QUERY_BAD_ETYPE', `etype "${p}" is not A, R, K, F, Accept, Reject, Keystroke or Finish`);
    out.add(t);
  }
  return out.size ? [...out].sort() : null;
}

function checkKnown(params: Params, allowed: Set<string>, call: string): void {
  for (const key of Object.keys(params)) {
    if (params[key] === undefined || allowed.has(key)) continue;
    throw evioError('QUERY_UNKNOWN_PARAMETER', `${call} takes no parameter "${key}"; it takes ${[...allowed].join(', ')}`);
  }
}

/** Alternatives one field may list (each is a bound SQL parameter). */
export const MAX_ALTERNATIVES = 256;

/** A wildcard field's values: repeating the parameter means any of them (OR). */
function parsePatterns(params: Params): Partial<Record<PatternField, readonly Wildcard[]>> {
  const patterns: Partial<Record<PatternField, readonly Wildcard[]>> = {};
  for (const field of PATTERN_FIELDS) {
    const given = [...new Set(values(params, field).filter((v) => v !== ''))];
    if (given.length > MAX_ALTERNATIVES) throw evioError('QUERY_BAD_PATTERN', `${field} is given ${given.length} times; at most ${MAX_ALTERNATIVES} alternatives`);
    if (given.length) patterns[field] = given.map((v) => compileWildcard(v, field));
  }
  return patterns;
}

function parseFilter(params: Params, store: StoreRef, tz: string, dump: boolean, now: number): EventFilter {
  const etypes = parseEtypes(params);
  if (etypes?.includes('F') && !dump) {
    throw evioError('QUERY_FINISH_NEEDS_DUMP', 'etype=F needs dump=1: without it finish records are merged into their accepts');
  }
  const date = (key: string, end: boolean) => {
    const v = single(params, key);
    return v === undefined || v === '' ? null : parseQueryDate(v, tz, key, end, now);
  };
  const from = date('from', false);
  const to = date('to', true);
  const exitFrom = date('exittime_from', false);
  const exitTo = date('exittime_to', true);
  if (from !== null && to !== null && from > to) throw evioError('QUERY_RANGE_INVERTED', 'from is after to');
  if (exitFrom !== null && exitTo !== null && exitFrom > exitTo) throw evioError('QUERY_RANGE_INVERTED', 'exittime_from is after exittime_to');
  const patterns = parsePatterns(params);
  // Recnum bounds: databases take start..end, flat files only end (their start is a skip count).
  const recnumMin = store.format === 'ff' ? null : nonNegInt(params, 'start');
  const recnumMax = nonNegInt(params, 'end');
  if (recnumMin !== null && recnumMax !== null && recnumMin > recnumMax) throw evioError('QUERY_RANGE_INVERTED', 'start is after end');
  return { etypes, from, to, exitFrom, exitTo, patterns, recnumMin, recnumMax, dump };
}

/**
 * GET /REST/v2.0/events (and /REST/v2/events). `now` (Unix seconds) is the request's one clock
 * reading: every relative time of the query (`-7d`, `today`) is computed from it.
 */
export function parseEventQuery(params: Params, tz = 'UTC', now = Date.now() / 1000): ParsedQuery {
  checkKnown(params, QUERY_PARAMS, 'an event query');
  const store = parseStore(params);
  if (flag(params, 'family', false)) {
    if (store.format !== 'ff') throw evioError('QUERY_UNKNOWN_PARAMETER', 'family=1 reads a flat file with its rotated files; it goes with format=ff');
    store.family = true;
  }
  const dump = flag(params, 'dump', false);
  const verbose = flag(params, 'verbose', false);
  const filter = parseFilter(params, store, tz, dump, now);
  const ff = store.format === 'ff';
  const orderRaw = single(params, 'order');
  const dirRaw = single(params, 'orderdirection');
  if (ff && (orderRaw !== undefined || dirRaw !== undefined)) {
    throw evioError('QUERY_ORDER_ON_FLATFILE', 'order and orderdirection apply to databases; flat files are read in recnum order');
  }
  let order: OrderField = 'recnum';
  if (orderRaw !== undefined && orderRaw !== '') {
    if (!(ORDER_FIELDS as readonly string[]).includes(orderRaw)) {
      throw evioError('QUERY_UNKNOWN_ORDER', `order="${orderRaw}" is not one of ${ORDER_FIELDS.join(', ')}`);
    }
    order = orderRaw as OrderField;
  }
  let direction: 'asc' | 'desc' = 'asc';
  if (dirRaw !== undefined && dirRaw !== '') {
    const d = dirRaw.toLowerCase();
    if (d !== 'asc' && d !== 'desc') throw evioError('QUERY_BAD_DIRECTION', `orderdirection="${dirRaw}" is neither asc nor desc`);
    direction = d;
  }
  const limit = nonNegInt(params, 'limit') ?? (verbose ? DEFAULT_VERBOSE_LIMIT : DEFAULT_LIMIT);
  const skip = (ff ? nonNegInt(params, 'start') : nonNegInt(params, 'offset')) ?? 0;
  const byteOffset = ff ? nonNegInt(params, 'offset') ?? 0 : 0;
  return { store, query: { ...filter, skip, byteOffset, limit, verbose, order, direction } };
}

/** DELETE /REST/v2.0/events: the same filters; no filter at all is refused unless all=1. */
export function parseEventDelete(params: Params, tz = 'UTC', now = Date.now() / 1000): ParsedDelete {
  checkKnown(params, DELETE_PARAMS, 'an event delete');
  const store = parseStore(params);
  if (store.format === 'ff' && single(params, 'start') !== undefined) {
    throw evioError('QUERY_UNKNOWN_PARAMETER', 'a flat-file delete takes no start (a skip count); bound it with end= or the time filters');
  }
  if (store.format !== 'ff' && single(params, 'offset') !== undefined) {
    throw evioError('QUERY_UNKNOWN_PARAMETER', 'a database delete takes no offset (a skip count); bound it with start=/end= or the time filters');
  }
  const all = flag(params, 'all', false);
  const dump = flag(params, 'dump', false);
  const filter = parseFilter(params, store, tz, dump, now);
  const hasFilter =
    filter.etypes !== null || filter.from !== null || filter.to !== null || filter.exitFrom !== null || filter.exitTo !== null ||
    filter.recnumMin !== null || filter.recnumMax !== null || Object.keys(filter.patterns).length > 0;
  if (!hasFilter) {
    if (!all) throw evioError('QUERY_DELETE_NEEDS_FILTER', 'a delete with no filter would remove every record; add a filter, or all=1');
    // all=1 with no filter: every record, finishes included.
    return { store, filter: { ...filter, dump: true } };
  }
  return { store, filter };
}

/** GET /REST/events: the legacy flat-file listing (accept, reject, keystroke flags OR-ed). */
export function parseLegacyQuery(params: Params, tz = 'UTC'): ParsedQuery {
  checkKnown(params, new Set(['file', 'accept', 'reject', 'keystroke', 'limit', 'start', 'offset']), 'the legacy event listing');
  const file = single(params, 'file');
  if (!file) throw evioError('QUERY_FILE_REQUIRED', 'the legacy listing needs file=PATH (a flat-file event log)');
  const etypes: EType[] = [];
  if (flag(params, 'accept', true)) etypes.push('A');
  if (flag(params, 'keystroke', true)) etypes.push('K');
  if (flag(params, 'reject', true)) etypes.push('R');
  const base = parseEventQuery({ format: 'ff', file, limit: single(params, 'limit'), start: single(params, 'start'), offset: single(params, 'offset') }, tz);
  return { store: base.store, query: { ...base.query, etypes: etypes.length ? etypes.sort() : ['A'], ...(etypes.length ? {} : { limit: 0 }) } };
}

/** Every record as stored (dump=1), in recnum order: what copy, export and import read. */
export function dumpQuery(filter: Partial<EventFilter> = {}): EventQuery {
  return {
    etypes: null, from: null, to: null, exitFrom: null, exitTo: null, patterns: {}, recnumMin: null, recnumMax: null,
    ...filter,
    dump: true, skip: 0, byteOffset: 0, limit: Number.MAX_SAFE_INTEGER, verbose: true, order: 'recnum', direction: 'asc',
  };
}
