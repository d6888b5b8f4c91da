// `evio events rotate`: close a flat-file event log under its lock and start a new one; list or
// retire (remove whole) its rotated files. A rotation and a retirement are recorded in the audit
// log (src/cli/audit.ts), a dry run and --list are not.
import { listRotatedEvents, retireRotatedEvents, rotateEvents } from '../app/events-rotate.js';
import { noteOutcome } from './audit.js';
import { formatBytes } from '../common/units.js';
import { parseFlags, strFlag, wantsHelp } from './flags.js';
import { usageError, type CliIo } from './io.js';

export const ROTATE_HELP = `Usage: evio events rotate [FILE] [--max-size SIZE] [--compress]
       evio events rotate [FILE] --list
       evio events rotate [FILE] --remove-older-than AGE [--dry-run]

Renames the flat-file event log FILE (default: the configured event log) to
FILE.<yyyymmddThhmmssZ> under its writer lock and starts a new FILE. Recnums continue: the
newest record moves into the new file, so the rotated file holds the records before it. Rotated
files are ordinary flat files: query them with file=FILE.<stamp>.

  --max-size SIZE  rotate only when FILE has at least SIZE bytes (1G, 500M, ...), for cron
  --compress       then compress the rotated file to FILE.<stamp>.gz (independent gzip members,
                   one per index block, with its skip index): family queries (--family) read it
  --list           list the rotated files of FILE instead
  --remove-older-than AGE
                   instead of rotating, remove the rotated files of FILE (FILE.<stamp>, plain
                   or .gz) rotated more than AGE ago (90d, 52w), each whole, with its skip
                   index; recorded in the audit log. The one way evio retires audit records:
                   no delete or purge changes the audit log or its rotated files
  --dry-run        with --remove-older-than: list what would be removed, remove nothing

Examples:
  evio events rotate --max-size 1G
  evio events rotate evio-data/events.ndjson --list
  evio events rotate evio-data/audit.ndjson --remove-older-than 400d --dry-run`;

export async function runEventsRotate(argv: string[], io: CliIo): Promise<number> {
  if (wantsHelp(argv, ROTATE_HELP, io.out)) return 0;
  const f = parseFlags(argv, { command: 'events rotate', values: ['max-size', 'remove-older-than'], switches: ['list', 'compress', 'dry-run'], positionals: 1 });
  const named = f.positionals[0];
  const engine = io.engine();
  if (f.bools.has('list')) {
    for (const r of await listRotatedEvents(engine, named)) io.out.write(`${r.path}\t${r.size}\n`);
    return 0;
  }
  const olderThan = strFlag(f, 'remove-older-than');
  if (olderThan !== undefined) {
    if (strFlag(f, 'max-size') !== undefined || f.bools.has('compress')) throw usageError('--remove-older-than removes rotated files and rotates nothing: it takes no --max-size or --compress');
    const dryRun = f.bools.has('dry-run');
    const r = await retireRotatedEvents(engine, { file: named, olderThan, dryRun, signal: io.signal });
    const bytes = r.removed.reduce((n, x) => n + x.size, 0);
    const files = r.removed.map((x) => `${x.path} (${x.size} bytes, rotated ${x.rotatedAt})`);
    noteOutcome(io, `removed ${r.removed.length} rotated files of ${r.path} rotated more than ${olderThan} ago${files.length ? `: ${files.join(', ')}` : ''}`, { store: `ff:${r.path}`, removed: r.removed.map((x) => x.path), bytes });
    io.out.write(`${JSON.stringify({ status: 0, path: r.path, dryRun, removed: r.removed })}\n`);
    io.err.write(`${dryRun ? 'would remove' : 'removed'} ${r.removed.length} rotated files (${formatBytes(bytes)})\n`);
    return 0;
  }
  if (f.bools.has('dry-run')) throw usageError('--dry-run goes with --remove-older-than');
  const res = await rotateEvents(engine, { file: named, maxSize: strFlag(f, 'max-size'), compress: f.bools.has('compress'), signal: io.signal });
  const path = res.path;
  io.out.write(`${JSON.stringify({ status: 0, ...res })}\n`);
  if (res.recovered) io.err.write(`${res.recovered}\n`);
  noteOutcome(io, res.rotated ? `rotated ${path} to ${res.compressedTo ?? res.rotatedTo}` : `not rotated: ${res.reason}`, { store: `ff:${path}`, ...(res.rotated ? { rotatedTo: res.compressedTo ?? res.rotatedTo } : {}) });
  io.err.write(res.rotated ? `rotated ${path} (${formatBytes(res.size)}) to ${res.compressedTo ?? res.rotatedTo}; numbering continues after recnum ${res.carriedRecnum}\n` : `not rotated: ${res.reason}\n`);
  return 0;
}
