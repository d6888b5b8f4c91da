// DELETE /REST/v2.0/events/iologs (spec document 1, "Event logs"): delete the records the filters
// match and the I/O logs they reference; on a flat-file event log only the I/O logs are deleted
// and the records stay (the spec's rule). The work is the purge job of src/jobs/purge.ts.
import { flag } from '../../common/params.js';
import { parseEventDelete, type Params } from '../../eventlog/query.js';
import { openRequestStore } from '../../eventlog/stores.js';
import { purgeEvents } from '../events-purge.js';
import { jsonOk } from '../json-answer.js';
import { flagParam } from '../param-schema.js';
import type { ParamSpec, Route } from '../types.js';
import { EVENT_FILTERS } from './events.js';
import { publicPath } from '../../paths.js';

const PARAMS: Record<string, ParamSpec> = {
  ...EVENT_FILTERS,
  format: { ...EVENT_FILTERS.format!, description: 'ff, flatfile or file = flat file (only the I/O logs are deleted); db = database (default); odbc' },
  all: flagParam('1 allows a purge with no filter', 'QUERY_BAD_FLAG'),
  dryrun: flagParam('evio extension: 1 reports what would be deleted and changes nothing', 'QUERY_BAD_FLAG'),
};

export const purgeRoutes: Route[] = [
  {
    method: 'DELETE',
    path: '/events/iologs',
    versions: ['v2', 'v2.0'],
    writes: true,
    summary: 'Delete the matching records and the I/O logs they reference (flat files: only the I/O logs)',
    params: PARAMS,
    async handler(req, engine) {
      const dryRun = flag(req.query, 'dryrun', false, 'QUERY_BAD_FLAG');
      const { dryrun: _dryrun, ...rest } = req.query;
      const params: Params = rest;
      const { store: ref } = parseEventDelete(params, engine.settings.timezone);
      const store = await openRequestStore(engine, ref);
      const report = await purgeEvents(engine, { store, params, iologs: true, keepRecords: store.kind === 'ff', dryRun, signal: req.signal });
      const { store: _name, interrupted, ...counts } = report;
      // Paths relative to the I/O log roots, never the server's absolute ones.
      const refusedPaths = counts.refusedPaths.map((r) => ({ ...r, path: publicPath(engine.settings.iologdirs, r.path) }));
      return jsonOk({ deleted: report.recordsKept ? 0 : report.records, ...counts, refusedPaths, interrupted: interrupted ? { startedAt: interrupted.startedAt } : null });
    },
  },
];
