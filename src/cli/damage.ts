// Damaged sessions on the command line, as sudoreplay reports them: what could be read goes to
// standard output as always, each warning (a corrupt stream, a cut timing file, an unreadable
// log.json; it starts with its code) is one line on standard error, and the exit status is 1
// (IOLOG_DAMAGED) unless --allow-damaged was given.
import { printable } from './printable.js';
import { ERRORS } from '../errors.js';
import type { CliIo } from './io.js';

/** Takes `--allow-damaged` out of an iolog command's arguments (anywhere before `--`). */
export function takeAllowDamaged(argv: readonly string[]): { argv: string[]; allow: boolean } {
  const end = argv.indexOf('--');
  const head = end < 0 ? [...argv] : argv.slice(0, end);
  const allow = head.includes('--allow-damaged');
  return { argv: [...head.filter((a) => a !== '--allow-damaged'), ...(end < 0 ? [] : argv.slice(end))], allow };
}

/** Writes the warnings to stderr; the exit status: 0 without any (or with allow), else 1. */
export function reportDamage(io: CliIo, command: string, warnings: readonly string[], allow: boolean): number {
  if (warnings.length === 0) return 0;
  // A warning can quote the damaged file (a timing line, JSON.parse's excerpt of log.json).
  for (const w of warnings) io.err.write(`evio: warning: ${printable(w)}\n`);
  if (allow) return 0;
  io.err.write(`evio: ${ERRORS.IOLOG_DAMAGED.code} evio iolog ${command} read a damaged session (${warnings.length} warning${warnings.length === 1 ? '' : 's'} above); what could be read was printed. --allow-damaged exits 0\n`);
  return 1;
}
