// The cached list query (GET /REST/iolog/list): every filter goes to SQL as bound parameters —
// from/to on createtime, the user/host/command shell wildcards through the shared wildcard
// compiler (GLOB), the path glob through a registered minimatch function — and so does the
// paging. Order: createtime, then logpath. Parameters are parsed in the main thread
// (parseListParams) and the query runs in a worker (queryIndex).
import { relative } from 'node:path';
import { minimatch } from 'minimatch';
import { evioError } from '../errors.js';
import { SqlParams, wildcardSql } from '../common/sql-wildcard.js';
import { compileWildcard } from '../common/wildcard.js';
import { parseListDate } from './dates.js';
import { openIndex, RECORD_COLUMNS, type CachedRecord } from './index-db.js';
import { LIST_DEFAULT_LEN, LIST_MAX_LEN } from './limits.js';
import { nonNegativeInt, single, type Params } from './params.js';
import { checkGlob } from './walk.js';

export const LIST_PATTERN_FIELDS = ['runhost', 'submithost', 'submituser', 'runuser', 'runcmd'] as const;
export type ListPatternField = (typeof LIST_PATTERN_FIELDS)[number];

/** A validated list query; plain data, so it can travel to a worker. */
export interface ListQuery {
  path: string | null;
  from: number | null;
  to: number | null;
  patterns: Partial<Record<ListPatternField, string>>;
  start: number;
  len: number;
}

export function parseListParams(params: Params, timezone: string): ListQuery {
  const path = single(params, 'path');
  if (path !== undefined && path !== '') checkGlob(path, 'path');
  const fromText = single(params, 'from');
  const toText = single(params, 'to');
  const from = fromText ? parseListDate(fromText, timezone, 'from', 'from') : null;
  const to = toText ? parseListDate(toText, timezone, 'to', 'to') : null;
  if (from !== null && to !== null && from > to) throw evioError('IOLOG_BAD_DATE', `from (${fromText}) is after to (${toText})`);
  const patterns: Partial<Record<ListPatternField, string>> = {};
  for (const f of LIST_PATTERN_FIELDS) {
    const v = single(params, f);
    if (v === undefined || v === '') continue;
    compileWildcard(v, f); // validates now, in the caller's thread
    patterns[f] = v;
  }
  const start = nonNegativeInt(params, 'start', 0);
  const len = nonNegativeInt(params, 'len', LIST_DEFAULT_LEN, LIST_MAX_LEN);
  return { path: path || null, from, to, patterns, start, len };
}

/** Runs the query against the index file; [] when the index does not exist. */
export function queryIndex(indexFile: string, q: ListQuery): CachedRecord[] {
  const db = openIndex(indexFile, 'read');
  if (!db) return [];
  try {
    const params = new SqlParams('question');
    const where: string[] = [];
    if (q.from !== null) where.push(`createtime >= ${params.bind(q.from)}`);
    if (q.to !== null) where.push(`createtime <= ${params.bind(q.to)}`);
    for (const f of LIST_PATTERN_FIELDS) {
      const p = q.patterns[f];
      if (p === undefined) continue;
      const sql = wildcardSql(compileWildcard(p, f), f, 'sqlite', params);
      if (sql !== null) where.push(sql);
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
    const sql = `SELECT ${RECORD_COLUMNS.join(', ')} FROM sessions${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY createtime, logpath LIMIT ${params.bind(q.len)} OFFSET ${params.bind(q.start)}`;
    return db.prepare(sql).all(...params.values) as CachedRecord[];
  } catch (err) {
    if ((err as { name?: string }).name === 'EvioError') throw err;
    throw evioError('IOLOG_INDEX', `${indexFile}: ${(err as Error).message}`, err);
  } finally {
    db.close();
  }
}
