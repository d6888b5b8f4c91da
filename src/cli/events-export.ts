// `evio events export`: every record a query matches, as NDJSON, CSV or JSON, to a file or stdout.
import { exportEvents } from '../app/events-export.js';
import { EVENT_QUERY_PARAM_NAMES } from '../app/routes/events.js';
import { formatBytes } from '../common/units.js';
import { restFlags } from './rest-flags.js';
import { parseFlags, wantsHelp } from './flags.js';
import { progress, progressDone, usageError, type CliIo } from './io.js';
import { cutNotice, nextPageCommand } from './next-page.js';

export const EXPORT_HELP = `Usage: evio events export [STORE] [--PARAM VALUE ...] [--format ndjson|csv|json|ecs|ocsf|cef] [--out FILE]

Without STORE the configured event log (eventlog) is read; a relative ff:PATH or db:PATH is
taken from the first event-log folder (eventlogdirs).
Writes every record the filters match (the parameters of the REST query: --from, --to,
--submituser, --etype, --dump 1, --verbose 1, ...). No limit applies unless --limit is given;
when --limit N cuts the export, stderr says that more records match and gives the command
that exports the rest (--offset N, --start N or --end N). Exit status 0 then too (the cap was
asked for); 1 on an error, 2 on a usage error.

  --format ndjson   one JSON record per line (default)
  --format csv      RFC 4180 with a header row; verbose=0 columns are the query fields,
                    --verbose 1 adds the stored fields and an "extra" JSON column
  --format json     one JSON array
  --out FILE        write FILE, created 0600 (through a temporary file renamed at the end);
                    default stdout

Examples:
  evio events export ff:evio-data/events.ndjson --from 2026/01/01 --to 2026/01/31 --format csv --out jan.csv
  evio events export db:evio-data/events.sqlite --etype R --verbose 1 --format json > rejects.json`;

export async function runEventsExport(argv: string[], io: CliIo): Promise<number> {
  if (wantsHelp(argv, EXPORT_HELP, io.out)) return 0;
  const f = parseFlags(argv, restFlags('events export', EVENT_QUERY_PARAM_NAMES, { values: ['out', 'format'], short: { o: 'out' } }));
  // No STORE: the configured event log.
  const name = f.positionals[0] ?? `ff:${io.settings().eventlog}`;
  const { format, out, ...filters } = f.flags;
  if (Array.isArray(format) || Array.isArray(out)) throw usageError('--format and --out are given once');
  const started = Date.now();
  const res = await exportEvents(io.engine(), { store: name, params: filters, format, out, stream: io.out, signal: io.signal, onProgress: (n) => progress(io, `exported ${n} records`) });
  progressDone(io);
  const malformed = res.malformed ? `; ${res.malformed} malformed lines skipped` : '';
  io.err.write(`exported ${res.records} records (${formatBytes(res.bytes)}, ${res.format}) from ${res.store}${out ? ` to ${out}` : ''} in ${((Date.now() - started) / 1000).toFixed(1)} s${malformed}\n`);
  // The rest goes elsewhere: the next command leaves --out out rather than overwrite this export.
  if (res.more) io.err.write(cutNotice(String(filters.limit), res.next!, nextPageCommand(io, 'export', name, { ...filters, ...(format !== undefined ? { format } : {}) }, res.next!)));
  return 0;
}
