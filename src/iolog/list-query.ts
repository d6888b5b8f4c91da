// The cached list query (GET /REST/iolog/list): every filter goes to SQL as bound parameters —
// from/to on createtime (the one time grammar of src/common/time-parse.ts), the user, host,
// command line, cwd and tty shell wildcards through the shared wildcard compiler (GLOB; a
// repeated parameter's values are OR-ed), the path glob through a registered minimatch
// function — and so does the paging. match=any ORs the filters instead of AND-ing them. Order: sort= (createtime by default; end is
// createtime + duration), then logpath, ascending unless order=desc. Parameters are parsed in the main thread
// (parseListParams) and the query runs in a worker (queryIndex).
import { relative } from 'node:path';
import { minimatch } from 'minimatch';
import { evioError } from '../errors.js';
import { anyWildcardSql, SqlParams } from '../common/sql-wildcard.js';
import { compileWildcard } from '../common/wildcard.js';
import { parseTimeBoundMs } from '../common/time-parse.js';
import { openIndex, RECORD_COLUMNS, type CachedRecord } from './index-db.js';
import { LIST_DEFAULT_LEN, LIST_MAX_LEN } from './limits.js';
import { nonNegativeInt, single, values, type Params } from './params.js';
import { checkGlob } from './walk.js';

/** Wildcard filters, each on the index column of the same name (runcmd and runargv: the command line). */
export const LIST_PATTERN_FIELDS = ['runhost', 'submithost', 'submituser', 'runuser', 'runcmd', 'runargv', 'cwd', 'tty'] as const;
export type ListPatternField = (typeof LIST_PATTERN_FIELDS)[number];

/** The fields the list sorts by (sort=), each an SQL expression on the index; end = start + duration. */
export const LIST_SORT_FIELDS = ['createtime', 'end', 'duration', 'submituser', 'submithost', 'runuser', 'runhost', 'runcmd', 'exitstatus', 'logpath'] as const;
export type ListSortField = (typeof LIST_SORT_FIELDS)[number];
const SORT_SQL: Record<ListSortField, string> = {
  createtime: 'createtime',
  end: 'createtime + MAX(duration, 0)',
  duration: 'duration',
  submituser: 'submituser',
  submithost: 'submithost',
  runuser: 'runuser',
  runhost: 'runhost',
  runcmd: 'runcmd',
  exitstatus: 'exitstatus',
  logpath: 'logpath',
};

/** Alternatives one field may list (each is a bound SQL parameter). */
const MAX_ALTERNATIVES = 256;

/** A validated list query; plain data, so it can travel to a worker. */
export interface ListQuery {
  path: string | null;
  /** Unix ms, inclusive. */
  from: number | null;
  to: number | null;
  /** Per field, its alternatives (a repeated parameter): any of them matches. */
  patterns: Partial<Record<ListPatternField, string[]>>;
  /** all: every filter must match (the default); any: one of them is enough. */
  match: 'all' | 'any';
  /** Sorted by this field (createtime by default), then by the path, in `order`. */
  sort: ListSortField;
  order: 'asc' | 'desc';
  start: number;
  len: number;
}

/** Reads the list parameters; `now` (Unix seconds) is the request's one clock reading. */
export function parseListParams(params: Params, timezone: string, now = Date.now() / 1000): ListQuery {
  const path = single(params, 'path');
  if (path !== undefined && path !== '') checkGlob(path, 'path');
  const fromText = single(params, 'from');
  const toText = single(params, 'to');
  const from = fromText ? parseTimeBoundMs(fromText, timezone, 'from', false, now) : null;
  const to = toText ? parseTimeBoundMs(toText, timezone, 'to', true, now) : null;
  if (from !== null && to !== null && from > to) throw evioError('QUERY_RANGE_INVERTED', `from (${fromText}) is after to (${toText})`);
  const patterns: Partial<Record<ListPatternField, string[]>> = {};
  for (const f of LIST_PATTERN_FIELDS) {
    const given = [...new Set(values(params, f).filter((v) => v !== ''))];
    if (given.length > MAX_ALTERNATIVES) throw evioError('QUERY_BAD_PATTERN', `${f} is given ${given.length} times; at most ${MAX_ALTERNATIVES} alternatives`);
    if (!given.length) continue;
    for (const v of given) compileWildcard(v, f); // validates now, in the caller's thread
    patterns[f] = given;
  }
  const matchText = (single(params, 'match') ?? '').toLowerCase();
  if (matchText !== '' && matchText !== 'all' && matchText !== 'any') {
    throw evioError('IOLOG_BAD_MATCH', `match="${matchText.slice(0, 20)}" is neither all nor any`);
  }
  const sortText = single(params, 'sort') ?? '';
  if (sortText !== '' && !(LIST_SORT_FIELDS as readonly string[]).includes(sortText)) throw evioError('IOLOG_BAD_SORT', `sort="${sortText.slice(0, 20)}" is none of ${LIST_SORT_FIELDS.join(', ')}`);
  const orderText = (single(params, 'order') ?? '').toLowerCase();
  if (orderText !== '' && orderText !== 'asc' && orderText !== 'desc') throw evioError('IOLOG_BAD_SORT', `order="${orderText.slice(0, 20)}" is neither asc nor desc`);
  const start = nonNegativeInt(params, 'start', 0);
  const len = nonNegativeInt(params, 'len', LIST_DEFAULT_LEN, LIST_MAX_LEN);
  return { path: path || null, from, to, patterns, match: matchText === 'any' ? 'any' : 'all', sort: (sortText || 'createtime') as ListSortField, order: orderText === 'desc' ? 'desc' : 'asc', start, len };
}

/** Runs the query against the index file; [] when the index does not exist. */
export function queryIndex(indexFile: string, q: ListQuery): CachedRecord[] {
  const db = openIndex(indexFile, 'read');
  if (!db) return [];
  try {
    const params = new SqlParams('question');
    // One predicate per filter (the from-to range is one); match=any ORs them, else AND.
    const where: string[] = [];
    const range: string[] = [];
    if (q.from !== null) range.push(`createtime >= ${params.bind(q.from)}`);
    if (q.to !== null) range.push(`createtime <= ${params.bind(q.to)}`);
    if (range.length) where.push(range.length === 1 ? range[0]! : `(${range.join(' AND ')})`);
    for (const f of LIST_PATTERN_FIELDS) {
      const p = q.patterns[f];
      if (p === undefined) continue;
      // SQLite's GLOB expresses every wildcard, so the answer is never null here.
      where.push(anyWildcardSql(p.map((v) => compileWildcard(v, f)), f, 'sqlite', params)!);
    }
    if (q.path !== null) {
      const pattern = q.path;
      const absolute = pattern.startsWith('/');
      const opts = { dot: true, nocomment: true, nonegate: true };
      db.function('evio_path_match', { deterministic: true }, (logpath: unknown, root: unknown) =>
        minimatch(absolute ? String(logpath) : relative(String(root), String(logpath)), pattern, opts) ? 1 : 0,
      );
      where.push('evio_path_match(logpath, root) = 1');
    }
    const sql = `SELECT ${RECORD_COLUMNS.join(', ')} FROM sessions${where.length ? ` WHERE ${where.join(q.match === 'any' ? ' OR ' : ' AND ')}` : ''} ORDER BY ${SORT_SQL[q.sort ?? 'createtime']} ${q.order === 'desc' ? 'DESC' : 'ASC'}, logpath ${q.order === 'desc' ? 'DESC' : 'ASC'} LIMIT ${params.bind(q.len)} OFFSET ${params.bind(q.start)}`;
    return db.prepare(sql).all(...params.values) as CachedRecord[];
  } catch (err) {
    if ((err as { name?: string }).name === 'EvioError') throw err;
    throw evioError('IOLOG_INDEX', `${indexFile}: ${(err as Error).message}`, err);
  } finally {
    db.close();
  }
}
