// `evio generate sessions --count N --seed S --out DIR`: deterministic synthetic sudo I/O log
// sessions (src/iolog/generate-sessions.ts).
import { resolve } from 'node:path';
import { generateSessions } from '../iolog/generate-sessions.js';
import { progress, progressDone, usageError, type CliIo } from './io.js';

const HELP = `Usage: evio generate sessions --count N [--seed S] --out DIR

Writes N synthetic sudo I/O log sessions (seq names 00/00/01 ..., gzip and plain,
shell prompts, coloured listings, full-screen redraws, resizes, long outputs)
under DIR. The same seed always gives the same bytes. Default seed: 1.

Example:
  evio generate sessions --count 1000 --seed 7 --out evio-data/iolog
`;

function readArgs(argv: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const m = /^--(count|seed|out)(?:=(.*))?$/.exec(a);
    if (!m) throw usageError(`unknown argument "${a}" (see evio generate sessions --help)`);
    const v = m[2] ?? argv[++i];
    if (v === undefined) throw usageError(`--${m[1]} needs a value`);
    out[m[1]!] = v;
  }
  return out;
}

export async function runGenerateSessions(argv: string[], io: CliIo): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.out.write(HELP);
    return 0;
  }
  const a = readArgs(argv);
  if (!a.out) throw usageError('--out DIR is required');
  if (!a.count || !/^\d+$/.test(a.count)) throw usageError('--count N (a whole number) is required');
  const seed = a.seed ?? '1';
  if (!/^\d+$/.test(seed)) throw usageError('--seed must be a whole number');
  const count = Number(a.count);
  if (count >= 36 ** 6) throw usageError('--count must be below 36^6 (the sudo seq space)');
  const out = resolve(a.out);
  const res = generateSessions({ count, seed: Number(seed), out, onProgress: (n) => progress(io, `sessions: ${n}/${count}`) });
  progressDone(io);
  io.out.write(`${JSON.stringify({ sessions: res.sessions, bytes: res.bytes, out })}\n`);
  return 0;
}
