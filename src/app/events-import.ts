// `evio events import`: a sudo event log (JSON or text) into an event store, idempotently. The
// store is created when missing (an import is one of the calls that create stores).
import type { Engine } from '../engine.js';
import { evioError } from '../errors.js';
import { jobsDir } from '../common/job-files.js';
import { importSudoLog, type ImportProgress, type ImportReport } from '../eventlog/import/importer.js';
import { IMPORT_FORMATS, type AlertPolicy, type ImportFormat } from '../eventlog/import/types.js';
import { openStore, parseStoreName } from '../eventlog/stores.js';
import { refuseAuditLogWrite } from './audit.js';

export type { ImportReport, ImportProgress } from '../eventlog/import/importer.js';
export { IMPORT_FORMATS } from '../eventlog/import/types.js';

export interface ImportRequest {
  format: string;
  file: string;
  /** Store name; default the configured flat-file event log. */
  to?: string | undefined;
  alerts?: string | undefined;
  timezone?: string | undefined;
  host?: string | undefined;
  year?: number | undefined;
  iologDir?: string | undefined;
  batchSize?: number | undefined;
  signal?: AbortSignal;
  onProgress?: (p: ImportProgress) => void;
}

export async function importEvents(engine: Engine, r: ImportRequest): Promise<ImportReport> {
  if (!(IMPORT_FORMATS as readonly string[]).includes(r.format)) throw evioError('IMPORT_UNKNOWN_FORMAT', `--from ${r.format} is not one of ${IMPORT_FORMATS.join(', ')}`);
  const alerts = r.alerts ?? 'skip';
  if (alerts !== 'skip' && alerts !== 'reject') throw evioError('CLI_USAGE', '--alerts takes skip or reject');
  const s = engine.settings;
  const spec = parseStoreName(engine, r.to ?? `ff:${s.eventlog}`);
  refuseAuditLogWrite(engine, spec);
  const store = await openStore(engine, spec);
  return importSudoLog({
    format: r.format as ImportFormat,
    file: r.file,
    store,
    timezone: r.timezone ?? s.timezone,
    host: r.host ?? null,
    year: r.year ?? null,
    iologDir: r.iologDir ?? null,
    alerts: alerts as AlertPolicy,
    // A database takes larger transactions (one per batch); a flat file fsyncs each batch.
    batchSize: Math.max(1, r.batchSize ?? (store.bulkLoad ? 20_000 : 2000)),
    lockDir: jobsDir(s.home),
    lockTimeoutMs: s.lockTimeoutMs,
    ...(r.signal ? { signal: r.signal } : {}),
    ...(r.onProgress ? { onProgress: r.onProgress } : {}),
  });
}
