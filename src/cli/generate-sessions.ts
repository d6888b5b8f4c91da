// `evio generate sessions --count N --seed S --out DIR`: deterministic synthetic sudo I/O log
// sessions (src/iolog/generate-sessions.ts).
import { generateSessionTree } from '../app/generate.js';
import { refuseAuditOutput } from '../app/audit.js';
import { intFlag, parseFlags, strFlag, wantsHelp } from './flags.js';
import { progress, progressDone, usageError, type CliIo } from './io.js';

const HELP = `Usage: evio generate sessions --count N [--seed S] --out DIR

Writes N synthetic sudo I/O log sessions (seq names 00/00/01 ..., gzip and plain,
shell prompts, coloured listings, full-screen redraws, resizes, long outputs)
under DIR. The same seed always gives the same bytes. Default seed: 1.

Example:
  evio generate sessions --count 1000 --seed 7 --out evio-data/iolog
`;

export async function runGenerateSessions(argv: string[], io: CliIo): Promise<number> {
  if (wantsHelp(argv, HELP, io.out)) return 0;
  const f = parseFlags(argv, { command: 'generate sessions', values: ['count', 'seed', 'out'], short: { o: 'out', n: 'count' } });
  const out = strFlag(f, 'out');
  if (!out) throw usageError('--out DIR is required');
  refuseAuditOutput(io.engine(), out);
  const count = intFlag(f, 'count', -1);
  if (count < 0) throw usageError('--count N (a whole number) is required');
  if (count >= 36 ** 6) throw usageError('--count must be below 36^6 (the sudo seq space)');
  const res = generateSessionTree({ count, seed: intFlag(f, 'seed', 1), out, onProgress: (n) => progress(io, `sessions: ${n}/${count}`) });
  progressDone(io);
  io.out.write(`${JSON.stringify(res)}\n`);
  return 0;
}
