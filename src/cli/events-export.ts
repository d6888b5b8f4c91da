// `evio events export`: every record a query matches, as NDJSON, CSV or JSON, to a file or stdout.
import { exportText, exportToFile, exportToStream, type ExportCount } from '../eventlog/export/exporter.js';
import { parseExportFormat } from '../eventlog/export/formats.js';
import { parseEventQuery, type Params } from '../eventlog/query.js';
import { openStore, parseStoreName, type StoreSpec } from '../eventlog/stores.js';
import { formatBytes } from '../jobs/units.js';
import { parseFlags, strFlag, wantsHelp } from './flags.js';
import { progress, progressDone, usageError, type CliIo } from './io.js';

export const EXPORT_HELP = `Usage: evio events export STORE [--PARAM VALUE ...] [--format ndjson|csv|json] [--out FILE]

Writes every record the filters match (the parameters of the REST query: --from, --to,
--submituser, --etype, --dump 1, --verbose 1, ...). No limit applies unless --limit is given.

  --format ndjson   one JSON record per line (default)
  --format csv      RFC 4180 with a header row; verbose=0 columns are the query fields,
                    --verbose 1 adds the stored fields and an "extra" JSON column
  --format json     one JSON array
  --out FILE        write FILE (through a temporary file renamed at the end); default stdout

Examples:
  evio events export ff:evio-data/events.ndjson --from 2026/01/01 --to 2026/01/31 --format csv --out jan.csv
  evio events export db:evio-data/events.sqlite --etype R --verbose 1 --format json > rejects.json`;

function storeParams(spec: StoreSpec): Params {
  return spec.kind === 'ff' ? { format: 'ff', file: spec.path } : spec.kind === 'odbc' ? { format: 'odbc', dsn: spec.dsn } : { format: 'db' };
}

export async function runEventsExport(argv: string[], io: CliIo): Promise<number> {
  if (wantsHelp(argv, EXPORT_HELP, io.out)) return 0;
  const f = parseFlags(argv);
  const name = f.positionals[0];
  if (!name) throw usageError(`events export needs a STORE\n\n${EXPORT_HELP}`);
  const format = parseExportFormat(strFlag(f, 'format'));
  const out = strFlag(f, 'out');
  const engine = io.engine();
  const tz = engine.settings.timezone;
  const spec = parseStoreName(engine, name);
  const { format: _f, out: _o, ...filters } = f.flags;
  const { query } = parseEventQuery({ ...filters, ...storeParams(spec) }, tz);
  // Export is for everything: the query's default page size does not apply.
  if (filters.limit === undefined) query.limit = Number.MAX_SAFE_INTEGER;
  const store = await openStore(engine, spec);
  const count: ExportCount = { records: 0 };
  const started = Date.now();
  const pieces = exportText(store, query, { format, timezone: tz, signal: io.signal, onProgress: (n) => progress(io, `exported ${n} records`) }, count);
  const bytes = out ? await exportToFile(out, pieces) : await exportToStream(io.out, pieces);
  progressDone(io);
  const malformed = store.kind === 'ff' && store.stats.malformed ? `; ${store.stats.malformed} malformed lines skipped` : '';
  io.err.write(`exported ${count.records} records (${formatBytes(bytes)}, ${format}) from ${store.name}${out ? ` to ${out}` : ''} in ${((Date.now() - started) / 1000).toFixed(1)} s${malformed}\n`);
  return 0;
}
