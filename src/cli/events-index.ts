// `evio events index`: build or bring up to date the skip indexes of a flat-file event log.
import { indexEventLog } from '../app/events-index.js';
import { formatBytes } from '../common/units.js';
import { parseFlags, wantsHelp } from './flags.js';
import { progress, progressDone, type CliIo } from './io.js';

export const INDEX_HELP = `Usage: evio events index [FILE] [--family]

Builds the sidecar skip index of the flat-file event log FILE (default: the configured event
log), or extends it over what was appended since. Queries build missing indexes themselves within
flatfileIndexBuildMs (settings); this builds them whole, with progress. An index is only an
accelerator: a missing, stale or damaged one makes queries scan, with the same answer.

  --family   the rotated files of FILE too (FILE.1, FILE.2.gz, FILE-20261124.gz, ...)

Prints one JSON line per file: path, index, outcome, bytes, indexBytes, blocks, ms.

Examples:
  evio events index evio-data/events.ndjson --family`;

export async function runEventsIndex(argv: string[], io: CliIo): Promise<number> {
  if (wantsHelp(argv, INDEX_HELP, io.out)) return 0;
  const f = parseFlags(argv, { command: 'events index', values: [], switches: ['family'], positionals: 1 });
  const engine = io.engine();
  const reports = await indexEventLog(engine, {
    file: f.positionals[0],
    family: f.bools.has('family'),
    signal: io.signal,
    onProgress: (path, done, total) => progress(io, `indexing ${path}: ${formatBytes(done)} of ${formatBytes(total)}`),
  });
  progressDone(io);
  for (const r of reports) {
    io.out.write(`${JSON.stringify({ status: 0, ...r })}\n`);
    io.err.write(`${r.path}: ${r.outcome}${r.index ? ` (${formatBytes(r.indexBytes)} index, ${r.blocks} blocks, ${r.ms} ms)` : ''}\n`);
  }
  return 0;
}
