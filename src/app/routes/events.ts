// Event-log routes (spec document 1, "Event logs"): parse, call the engine, stream the answer.
import { deleteEvents, eventDestinations, queryEvents, queryLegacyEvents } from '../events.js';
import { jsonArrayResponse, jsonOk } from '../json-answer.js';
import type { Route } from '../types.js';

/** The filter parameters of the event routes, as OpenAPI describes them (the purge route shares them). */
export const EVENT_FILTERS: Record<string, string> = {
  format: 'ff, flatfile or file = flat file; db = database (default); odbc',
  file: 'flat file: the event log (required); db: a database named in the settings or an SQLite file',
  dsn: 'ODBC data source name (format=odbc)',
  etype: 'A, R, K, F (F only with dump=1) or Accept, Reject, Keystroke, Finish; comma lists',
  exitstatus: 'wildcard on the exit status (the merged one unless dump=1)',
  from: 'creation time, inclusive (Unix seconds, YYYY/MM/DD[ HH:MM[:SS]], YYYY-MM-DD[ HH:MM[:SS]], ISO 8601)',
  to: 'creation time, inclusive; a date alone means the whole day',
  exittime_from: 'exit time, inclusive',
  exittime_to: 'exit time, inclusive',
  uniqueid: 'wildcard', submituser: 'wildcard', submithost: 'wildcard', runuser: 'wildcard', runhost: 'wildcard', runcommand: 'wildcard',
  start: 'flat file: matching records to skip; database: lowest recnum',
  end: 'highest recnum',
  dump: '1 returns accept and finish records separately',
};

const QUERY_PARAMS: Record<string, string> = {
  ...EVENT_FILTERS,
  offset: 'database: matching records to skip; flat file: resume at a returned record\'s offset',
  limit: 'maximum records (default 32768, 512 with verbose=1)',
  verbose: '1 returns complete records',
  order: 'database only: recnum, epoch, uniqueid, etype, submituser, submithost, runuser, runhost, runcommand, exitstatus, exittime',
  orderdirection: 'asc or desc (database only)',
};

/** The REST parameters that are 0|1 flags: on the command line they are switches (`--verbose`). */
export const EVENT_FLAG_PARAMS: readonly string[] = ['verbose', 'dump', 'all'];
/** The parameters of GET and DELETE /events, for the CLI's `events query|delete|export|purge`. */
export const EVENT_QUERY_PARAM_NAMES: readonly string[] = Object.keys(QUERY_PARAMS);
export const EVENT_DELETE_PARAM_NAMES: readonly string[] = [...Object.keys(EVENT_FILTERS), 'all', 'verbose'];

export const eventRoutes: Route[] = [
  {
    method: 'GET',
    path: '/events',
    versions: ['v2', 'v2.0'],
    writes: false,
    summary: 'Query event log records',
    params: QUERY_PARAMS,
    async handler(req, engine) {
      const { store, events, stats } = await queryEvents(engine, req.query, { signal: req.signal });
      return jsonArrayResponse('events', events, {}, () => (store.kind === 'ff' ? { malformed: stats.malformed } : {}));
    },
  },
  {
    method: 'DELETE',
    path: '/events',
    versions: ['v2', 'v2.0'],
    writes: true,
    summary: 'Delete the records the filters match (permanent; all=1 is needed when there is no filter)',
    params: { ...EVENT_FILTERS, offset: 'flat file only: not accepted', all: '1 allows a delete with no filter' },
    async handler(req, engine) {
      const res = await deleteEvents(engine, req.query, { signal: req.signal });
      return jsonOk({ deleted: res.deleted });
    },
  },
  {
    method: 'GET',
    path: '/events/destinations',
    versions: ['v2', 'v2.0'],
    writes: false,
    summary: 'Where event records are configured to go',
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
    params: { file: 'the flat-file event log', accept: '0|1 (default 1)', reject: '0|1 (default 1)', keystroke: '0|1 (default 1)', limit: 'maximum records', start: 'records to skip', offset: 'resume at a byte offset' },
    async handler(req, engine) {
      const { events } = await queryLegacyEvents(engine, req.query, { signal: req.signal });
      return jsonArrayResponse('events', events, { time: Math.floor(Date.now() / 1000) });
    },
  },
];
