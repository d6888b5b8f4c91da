// `evio events export`: every record a query matches, as NDJSON, CSV or JSON, to a file (written
// under a temporary name and renamed) or to a stream, with backpressure and bounded memory.
import type { Writable } from 'node:stream';
import type { Engine } from '../engine.js';
import { evioError } from '../errors.js';
import { exportText, exportToFile, exportToStream, type ExportCount } from '../eventlog/export/exporter.js';
import { parseExportFormat, type ExportFormat } from '../eventlog/export/formats.js';
import { NO_LIMIT, newPageEnd, type NextPage } from '../eventlog/paging.js';
import { parseEventQuery, type Params } from '../eventlog/query.js';
import { formatParamsOf, openStore, parseStoreName } from '../eventlog/stores.js';
import { refuseAuditOutput } from './audit.js';

export interface ExportRequest {
  /** Store name (ff:PATH, db:PATH, pg:NAME|URL, odbc:DSN). */
  store: string;
  /** The query's REST parameters (filters, verbose, dump, limit ...). */
  params: Params;
  format?: string | undefined;
  /** A file to write; without it, `stream`. */
  out?: string | undefined;
  stream?: Writable;
  signal?: AbortSignal;
  onProgress?: (records: number) => void;
}

export interface ExportResult {
  records: number;
  bytes: number;
  format: ExportFormat;
  store: string;
  /** Flat files: lines skipped as malformed. */
  malformed: number;
  /** `--limit` cut the export: more records match, and `next` holds the parameters that continue it. */
  more: boolean;
  next: NextPage | null;
}

export async function exportEvents(engine: Engine, r: ExportRequest): Promise<ExportResult> {
  const format = parseExportFormat(r.format);
  const tz = engine.settings.timezone;
  if (r.out) refuseAuditOutput(engine, r.out);
  const spec = parseStoreName(engine, r.store, undefined, { existing: true });
  const { query } = parseEventQuery({ ...r.params, ...formatParamsOf(spec) }, tz);
  // Export is for everything: the query's default page size does not apply.
  if (r.params.limit === undefined) query.limit = NO_LIMIT;
  const store = await openStore(engine, spec);
  const count: ExportCount = { records: 0, page: newPageEnd() };
  const pieces = exportText(store, query, { format, timezone: tz, ...(r.signal ? { signal: r.signal } : {}), ...(r.onProgress ? { onProgress: r.onProgress } : {}) }, count);
  let bytes: number;
  if (r.out) bytes = await exportToFile(r.out, pieces);
  else if (r.stream) bytes = await exportToStream(r.stream, pieces);
  else throw evioError('CLI_USAGE', 'an export needs a file (--out) or a stream to write');
  return { records: count.records, bytes, format, store: store.name, malformed: store.kind === 'ff' ? store.stats.malformed : 0, more: count.page!.more, next: count.page!.next };
}
