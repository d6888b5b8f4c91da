// `evio events import`: a sudo event log (JSON or text) into an event store, idempotently.
import { evioError } from '../errors.js';
import { importEvents, type ImportReport } from '../app/events-import.js';
import { formatBytes } from '../common/units.js';
import { intFlag, parseFlags, strFlag, wantsHelp } from './flags.js';
import { progress, progressDone, usageError, type CliIo } from './io.js';
import { noteOutcome } from './audit.js';
import { loadProgress } from './load-rate.js';

export const IMPORT_HELP = `Usage: evio events import --from sudo-json|sudo-text FILE [--to STORE] [options]

Reads a sudo event log and appends its events to STORE (default: the configured flat-file
event log). Importing the same file again adds only what is missing: every record carries the
identity of its source event (import_key), and events the store already has are skipped. A
truncated file imports every whole event and says where it stopped.

  --from sudo-json   sudo's JSON log: the pretty framing (log_format=json, one object with
                     repeated "accept"/"exit"/... keys), the compact one-object-per-line
                     framing, or syslog lines with @cee: (detected from the first line)
  --from sudo-text   the classic text log (logfile=, wrapped lines) or its syslog lines
  --to STORE         ff:PATH, db:PATH, pg:NAME|URL or odbc:DSN
  --alerts skip|reject  alerts are skipped and counted (default), or stored as rejects
  --timezone TZ      zone of text-log dates (default: the configured timezone)
  --year YYYY        year of text-log dates logged without one (default: the file's mtime)
  --host NAME        host of text-log records whose line names none (syslog without host)
  --iolog-dir DIR    sudo's iolog_dir: text-log TSIDs become I/O log paths under it
                     (default: kept relative, resolved against the first I/O log root)
  --batch N          records per append (default 2000 into a flat file, 20000 into a database)

Prints a JSON summary on stdout and where reading stopped, if before the end, on stderr.
Exit status:
  0  the import finished, including a file that ends inside its last event (stop.truncated:
     a live log sudo is still writing, or a copy cut short): every whole event was imported
     and the next run picks up the rest — a cron job does not fail on a busy log
  1  damaged data (1703, stop.truncated false) stopped the import before the end of the file,
     or another error (its code is in the message)
  2  a usage error

Examples:
  evio events import --from sudo-json /var/log/sudo.json
  evio events import --from sudo-text /var/log/sudo.log --to db:evio-data/events.sqlite --year 2026`;

function summary(r: ImportReport): string {
  const kinds = (Object.entries(r.imported) as Array<[string, number]>).filter(([, n]) => n).map(([k, n]) => `${k} ${n}`).join(', ');
  let s = `imported ${r.importedTotal} records${kinds ? ` (${kinds})` : ''} from ${r.source} (${r.format}${r.framing ? `, ${r.framing}` : ''}, ${formatBytes(r.bytes)}) into ${r.store}`;
  if (r.alreadyPresent) s += `; ${r.alreadyPresent} already present`;
  if (r.skipped.alerts) s += `; ${r.skipped.alerts} alerts skipped`;
  if (r.skipped.badLines) s += `; ${r.skipped.badLines} bad lines skipped`;
  if (r.skipped.badEvents) s += `; ${r.skipped.badEvents} bad events skipped`;
  if (r.unjoinedExits) s += `; ${r.unjoinedExits} exits without their accept`;
  if (r.firstBadEvent) s += `\n${r.firstBadEvent.reason}`;
  if (r.stop) s += `\nstopped at byte ${r.stop.offset} (line ${r.stop.line}): ${r.stop.reason}`;
  return s;
}

export async function runEventsImport(argv: string[], io: CliIo): Promise<number> {
  if (wantsHelp(argv, IMPORT_HELP, io.out)) return 0;
  const f = parseFlags(argv, { command: 'events import', values: ['from', 'to', 'alerts', 'timezone', 'year', 'host', 'iolog-dir', 'batch'], positionals: 1 });
  const format = strFlag(f, 'from');
  const file = f.positionals[0];
  if (!format || !file) throw usageError(`events import needs --from FORMAT and a FILE\n\n${IMPORT_HELP}`);
  const yearFlag = strFlag(f, 'year');
  if (yearFlag !== undefined && !/^\d{4}$/.test(yearFlag)) throw usageError('--year takes a four-digit year');
  let showImport: ReturnType<typeof loadProgress> | null = null; // from the import pass's start
  const report = await importEvents(io.engine(), {
    format,
    file,
    to: strFlag(f, 'to'),
    alerts: strFlag(f, 'alerts'),
    timezone: strFlag(f, 'timezone'),
    host: strFlag(f, 'host'),
    year: yearFlag === undefined ? undefined : Number(yearFlag),
    iologDir: strFlag(f, 'iolog-dir'),
    batchSize: f.flags.batch === undefined ? undefined : intFlag(f, 'batch', 2000),
    signal: io.signal,
    onProgress: (p) => {
      if (p.phase === 'scan') progress(io, `scanning ${formatBytes(p.bytes)} of ${formatBytes(p.totalBytes)}: ${p.events} events`);
      else (showImport ??= loadProgress(io))(`importing: ${p.imported} added, ${p.present} already present (${formatBytes(p.bytes)} of ${formatBytes(p.totalBytes)})`, p.imported + p.present, p.totalBytes ? p.bytes / p.totalBytes : null);
    },
  });
  progressDone(io);
  const damaged = report.stop && !report.stop.truncated ? evioError('IMPORT_STOPPED', `stopped at byte ${report.stop.offset} (line ${report.stop.line}) of ${report.source}: ${report.stop.reason}`) : null;
  noteOutcome(io, `imported ${report.importedTotal} records from ${report.source} into ${report.store}`, { store: report.store, imported: report.importedTotal });
  io.out.write(`${JSON.stringify({ status: damaged?.code ?? 0, ...report })}\n`);
  io.err.write(`${summary(report)}\n`);
  if (damaged) throw damaged;
  return 0;
}
