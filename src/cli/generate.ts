// `evio generate events|sessions`: deterministic synthetic data of any size.
import { generateEventLog, KEY_ORDERS, type KeyOrder } from '../app/generate.js';
import { refuseAuditOutput } from '../app/audit.js';
import { runGenerateSessions } from './generate-sessions.js';
import { intFlag, parseFlags, strFlag, wantsHelp } from './flags.js';
import { progress, progressDone, usageError, type CliCommand } from './io.js';

const HELP = `Usage: evio generate events --count N [--seed S] [--start UNIX] --out PATH [--iolog-root DIR [--max-sessions N]]
                            [--key-order evio|recnum-last|no-recnum] [--users N] [--hosts N]
       evio generate sessions --count N [--seed S] --out DIR

events:   a realistic NDJSON event log (users, hosts, commands with argv, ~5 % rejects,
          ~20 % I/O-logged sessions, finishes after their accepts, a few still running).
          --iolog-root DIR also writes the session of every keystroke (K) record under DIR
          (DIR/HOST/USER/UNIQUEID, the record's iolog field): its users, hosts, command and
          cwd; bash and sh sessions show a prompt and commands typed and run. --max-sessions N
          keeps about N of them (the other would-be K records become plain accepts).
          --key-order: evio's own (recnum first, the default), recnum-last (the same fields in
          another program's order, recnum last) or no-recnum (lines numbered by the reader).
          --users N, --hosts N: distinct submitting users (default 200, so one user is on
          about 0.5 % of the records) and hosts (default 300).
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
    const f = parseFlags(rest, { command: 'generate events', values: ['count', 'seed', 'start', 'out', 'iolog-root', 'max-sessions', 'key-order', 'users', 'hosts'], short: { o: 'out', n: 'count' } });
    const count = intFlag(f, 'count', -1);
    const out = strFlag(f, 'out');
    if (count < 0 || !out) throw usageError(`generate events needs --count N and --out PATH\n\n${HELP}`);
    refuseAuditOutput(io.engine(), out);
    const start = strFlag(f, 'start');
    const iologRoot = strFlag(f, 'iolog-root');
    const maxSessions = f.flags['max-sessions'] !== undefined ? intFlag(f, 'max-sessions', 0) : undefined;
    if (maxSessions !== undefined && iologRoot === undefined) throw usageError('--max-sessions goes with --iolog-root DIR');
    const keyOrder = strFlag(f, 'key-order') ?? 'evio';
    if (!(KEY_ORDERS as readonly string[]).includes(keyOrder)) throw usageError(`--key-order takes ${KEY_ORDERS.join(', ')}, not "${keyOrder.slice(0, 40)}"`);
    const users = f.flags.users !== undefined ? intFlag(f, 'users', 0) : undefined;
    const hosts = f.flags.hosts !== undefined ? intFlag(f, 'hosts', 0) : undefined;
    if (users === 0 || hosts === 0) throw usageError('--users and --hosts take a count of at least 1');
    const res = await generateEventLog({ count, seed: intFlag(f, 'seed', 1), start: start === undefined ? undefined : intFlag(f, 'start', 0), out, iologRoot, maxSessions, keyOrder: keyOrder as KeyOrder, users, hosts, signal: io.signal, onProgress: (n) => progress(io, `generated ${n} of ${count} events`) });
    progressDone(io);
    io.err.write(`wrote ${res.events} events to ${res.path}${res.sessions !== undefined ? ` and ${res.sessions} sessions under ${res.iologRoot}` : ''}\n`);
    return 0;
  },
};
