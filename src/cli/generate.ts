// `evio generate events|sessions`: deterministic synthetic data of any size.
import { generateEventLog } from '../app/generate.js';
import { refuseAuditOutput } from '../app/audit.js';
import { runGenerateSessions } from './generate-sessions.js';
import { intFlag, parseFlags, strFlag, wantsHelp } from './flags.js';
import { progress, progressDone, usageError, type CliCommand } from './io.js';

const HELP = `Usage: evio generate events --count N [--seed S] [--start UNIX] --out PATH [--iolog-root DIR [--max-sessions N]]
       evio generate sessions --count N [--seed S] --out DIR

events:   a realistic NDJSON event log (users, hosts, commands with argv, ~5 % rejects,
          ~20 % I/O-logged sessions, finishes after their accepts, a few still running).
          --iolog-root DIR also writes the session of every keystroke (K) record under DIR
          (DIR/HOST/USER/UNIQUEID, the record's iolog field): its users, hosts, command and
          cwd; bash and sh sessions show a prompt and commands typed and run. --max-sessions N
          keeps about N of them (the other would-be K records become plain accepts).
sessions: sudo I/O log session directories.
The same seed and count give the same bytes.

Example:
  evio generate events --count 1000000 --seed 7 --out evio-data/events.ndjson`;

export const generateCommand: CliCommand = {
  name: 'generate',
  summary: 'write deterministic synthetic event logs or I/O log sessions',
  async run(argv, io) {
    const [what, ...rest] = argv;
    if (!what || wantsHelp(argv, HELP, io.out)) {
      if (!what) io.err.write(`${HELP}\n`);
      return what ? 0 : 2;
    }
    if (what === 'sessions') {
      return runGenerateSessions(rest, io);
    }
    if (what !== 'events') throw usageError(`generate takes events or sessions, not "${what}"`);
    const f = parseFlags(rest, { command: 'generate events', values: ['count', 'seed', 'start', 'out', 'iolog-root', 'max-sessions'], short: { o: 'out', n: 'count' } });
    const count = intFlag(f, 'count', -1);
    const out = strFlag(f, 'out');
    if (count < 0 || !out) throw usageError(`generate events needs --count N and --out PATH\n\n${HELP}`);
    refuseAuditOutput(io.engine(), out);
    const start = strFlag(f, 'start');
    const iologRoot = strFlag(f, 'iolog-root');
    const maxSessions = f.flags['max-sessions'] !== undefined ? intFlag(f, 'max-sessions', 0) : undefined;
    if (maxSessions !== undefined && iologRoot === undefined) throw usageError('--max-sessions goes with --iolog-root DIR');
    const res = await generateEventLog({ count, seed: intFlag(f, 'seed', 1), start: start === undefined ? undefined : intFlag(f, 'start', 0), out, iologRoot, maxSessions, signal: io.signal, onProgress: (n) => progress(io, `generated ${n} of ${count} events`) });
    progressDone(io);
    io.err.write(`wrote ${res.events} events to ${res.path}${res.sessions !== undefined ? ` and ${res.sessions} sessions under ${res.iologRoot}` : ''}\n`);
    return 0;
  },
};
