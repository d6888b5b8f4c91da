// Event-log routes (spec document 1, "Event logs"): parse, call the engine, stream the answer.
import { knownEventStores } from '../event-stores.js';
import { deleteEvents, eventDestinations, queryEvents, queryLegacyEvents, type PageEnd } from '../events.js';
import { jsonBatchesResponse, jsonOk } from '../json-answer.js';
import { ORDER_FIELDS } from '../../eventlog/types.js';
import { enumParam, flagParam, numberParam, repeatableParams, textParam, wildcardParam } from '../param-schema.js';
import type { ParamSpec, Route } from '../types.js';

const EVENT_FORMATS = ['ff', 'flatfile', 'file', 'db', 'odbc'] as const;
const EVENT_TYPES = ['A', 'R', 'K', 'F', 'Accept', 'Reject', 'Keystroke', 'Finish'] as const;

/** A page cut by `limit` says so after its records: `"more":true,"next":{...}`; a complete one adds nothing. */
const pageFields = (page: PageEnd): Record<string, unknown> => (page.more ? { more: true, next: page.next } : {});

const paging = (description: string) => numberParam(description, 'QUERY_BAD_INTEGER');
const eventFlag = (description: string) => flagParam(description, 'QUERY_BAD_FLAG');

/** The filter parameters of the event routes (the purge route shares them). */
export const EVENT_FILTERS: Record<string, ParamSpec> = {
  format: enumParam('ff, flatfile or file = flat file; db = database (default); odbc', EVENT_FORMATS, 'QUERY_UNKNOWN_FORMAT', { anyCase: true, default: 'db' }),
  file: textParam('flat file: the event log (required); db: a database named in the settings or an SQLite file'),
  dsn: textParam('ODBC data source name (format=odbc)'),
  etype: enumParam('event types, comma-separated or repeated (F only with dump=1)', EVENT_TYPES, 'QUERY_BAD_ETYPE', { anyCase: true, list: true }),
  exitstatus: wildcardParam('wildcard on the exit status (the merged one unless dump=1)'),
  from: textParam('creation time, inclusive (Unix seconds, YYYY/MM/DD[ HH:MM[:SS]], YYYY-MM-DD[ HH:MM[:SS]], ISO 8601, now, today, yesterday, -7d, -2h, -30m)'),
  to: textParam('creation time, inclusive; a date alone means the whole day, today and yesterday the whole day'),
  exittime_from: textParam('exit time, inclusive'),
  exittime_to: textParam('exit time, inclusive'),
  ...Object.fromEntries(['uniqueid', 'submituser', 'submithost', 'runuser', 'runhost', 'runcommand'].map((f) => [f, wildcardParam('wildcard')])),
  start: paging('flat file: matching records to skip; database: lowest recnum'),
  end: paging('highest recnum'),
  dump: eventFlag('1 returns accept and finish records separately'),
};

const QUERY_PARAMS: Record<string, ParamSpec> = {
  ...EVENT_FILTERS,
  offset: paging('database: matching records to skip; flat file: resume at a returned record\'s offset'),
  limit: paging('maximum records (default 32768, 512 with verbose=1); a page it cuts ends with more=true and next={the parameters of the next page}'),
  verbose: eventFlag('1 returns complete records'),
  family: eventFlag('flat file: 1 reads the file with its rotated (and gzipped) files as one log, oldest first; offsets then resume across files'),
  order: enumParam('the field to sort on (database only)', ORDER_FIELDS, 'QUERY_UNKNOWN_ORDER', { allowEmpty: true, default: 'recnum' }),
  orderdirection: enumParam('sort direction (database only)', ['asc', 'desc'], 'QUERY_BAD_DIRECTION', { anyCase: true, allowEmpty: true, default: 'asc' }),
};

const DELETE_PARAMS: Record<string, ParamSpec> = {
  ...EVENT_FILTERS,
  offset: paging('flat file only (a database delete refuses it)'),
  all: eventFlag('1 allows a delete with no filter'),
  verbose: eventFlag('accepted for symmetry with the query; the answer is the count either way'),
};

const LEGACY_PARAMS: Record<string, ParamSpec> = {
  file: textParam('the flat-file event log'),
  accept: eventFlag('accept records (default 1)'),
  reject: eventFlag('reject records (default 1)'),
  keystroke: eventFlag('keystroke records (default 1)'),
  limit: paging('maximum records'),
  start: paging('records to skip'),
  offset: paging('resume at a byte offset'),
};

/** The REST parameters that are 0|1 flags: on the command line they are switches (`--verbose`). */
export const EVENT_FLAG_PARAMS: readonly string[] = [...new Set([...Object.keys(QUERY_PARAMS), ...Object.keys(DELETE_PARAMS)])].filter(
  (n) => (QUERY_PARAMS[n] ?? DELETE_PARAMS[n])!.type === 'flag',
);
/** The parameters that may be repeated (etype, the wildcards): the CLI's repeatable flags. */
export const EVENT_REPEATABLE_PARAMS: readonly string[] = repeatableParams({ ...QUERY_PARAMS, ...DELETE_PARAMS });
/** The parameters of GET and DELETE /events, for the CLI's `events query|delete|export|purge`. */
export const EVENT_QUERY_PARAM_NAMES: readonly string[] = Object.keys(QUERY_PARAMS);
/** The CLI's delete resumes nowhere, so it offers no --offset. */
export const EVENT_DELETE_PARAM_NAMES: readonly string[] = Object.keys(DELETE_PARAMS).filter((n) => n !== 'offset');

export const eventRoutes: Route[] = [
  {
    method: 'GET',
    path: '/events',
    versions: ['v2', 'v2.0'],
    writes: false,
    summary: 'Query event log records',
    params: QUERY_PARAMS,
    async handler(req, engine) {
      const { store, batches, stats, page } = await queryEvents(engine, req.query, { signal: req.signal });
      return jsonBatchesResponse('events', batches, {}, () => ({ ...(store.kind === 'ff' ? { malformed: stats.malformed } : {}), ...pageFields(page) }));
    },
  },
  {
    method: 'DELETE',
    path: '/events',
    versions: ['v2', 'v2.0'],
    writes: true,
    summary: 'Delete the records the filters match (permanent; all=1 is needed when there is no filter)',
    params: DELETE_PARAMS,
    async handler(req, engine) {
      const res = await deleteEvents(engine, req.query, { signal: req.signal });
      return jsonOk({ deleted: res.deleted });
    },
  },
  {
    method: 'GET',
    path: '/events/stores',
    versions: ['v2', 'v2.0'],
    writes: false,
    summary: 'The event logs the settings name (the flat-file event log, the default database, the named databases, the ODBC destination), each with whether it exists and has records',
    params: {},
    async handler(req, engine) {
      return jsonOk({ stores: await knownEventStores(engine, req.signal) });
    },
  },
  {
    method: 'GET',
    path: '/events/destinations',
    versions: ['v2', 'v2.0'],
    writes: false,
    summary: 'Where event records go: the flat-file spool (ff) and what its forwarders deliver to (db, odbc, prog, syslog; null = not configured)',
    params: {},
    async handler(_req, engine) {
      return jsonOk({ destinations: eventDestinations(engine) });
    },
  },
  {
    method: 'GET',
    path: '/events',
    versions: [''],
    writes: false,
    summary: 'Legacy flat-file listing',
    params: LEGACY_PARAMS,
    async handler(req, engine) {
      const { batches, page } = await queryLegacyEvents(engine, req.query, { signal: req.signal });
      return jsonBatchesResponse('events', batches, { time: Math.floor(Date.now() / 1000) }, () => pageFields(page));
    },
  },
];
