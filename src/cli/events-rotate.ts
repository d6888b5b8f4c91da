// `evio events rotate`: close a flat-file event log under its lock and start a new one.
import { listRotatedEvents, rotateEvents } from '../app/events-rotate.js';
import { formatBytes } from '../common/units.js';
import { parseFlags, strFlag, wantsHelp } from './flags.js';
import type { CliIo } from './io.js';

export const ROTATE_HELP = `Usage: evio events rotate [FILE] [--max-size SIZE] [--compress] [--list]

Renames the flat-file event log FILE (default: the configured event log) to
FILE.<yyyymmddThhmmssZ> under its writer lock and starts a new FILE. Recnums continue: the
newest record moves into the new file, so the rotated file holds the records before it. Rotated
files are ordinary flat files: query them with file=FILE.<stamp>.

  --max-size SIZE  rotate only when FILE has at least SIZE bytes (1G, 500M, ...), for cron
  --compress       then compress the rotated file to FILE.<stamp>.gz (independent gzip members,
                   one per index block, with its skip index): family queries (--family) read it
  --list           list the rotated files of FILE instead

Examples:
  evio events rotate --max-size 1G
  evio events rotate evio-data/events.ndjson --list`;

export async function runEventsRotate(argv: string[], io: CliIo): Promise<number> {
  if (wantsHelp(argv, ROTATE_HELP, io.out)) return 0;
  const f = parseFlags(argv, { command: 'events rotate', values: ['max-size'], switches: ['list', 'compress'], positionals: 1 });
  const named = f.positionals[0];
  const engine = io.engine();
  if (f.bools.has('list')) {
    for (const r of await listRotatedEvents(engine, named)) io.out.write(`${r.path}\t${r.size}\n`);
    return 0;
  }
  const res = await rotateEvents(engine, { file: named, maxSize: strFlag(f, 'max-size'), compress: f.bools.has('compress'), signal: io.signal });
  const path = res.path;
  io.out.write(`${JSON.stringify({ status: 0, ...res })}\n`);
  if (res.recovered) io.err.write(`${res.recovered}\n`);
  io.err.write(res.rotated ? `rotated ${path} (${formatBytes(res.size)}) to ${res.compressedTo ?? res.rotatedTo}; numbering continues after recnum ${res.carriedRecnum}\n` : `not rotated: ${res.reason}\n`);
  return 0;
}
