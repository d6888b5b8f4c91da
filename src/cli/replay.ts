// `evio iolog replay FILE [--term T] [--start N --len N]` prints the replay answer the HTTP
// service gives; `evio iolog screen FILE [--at SECONDS]` prints the screen as text at that time.
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { iologReplay, iologScreen } from '../app/iolog.js';
import { intFlag, parseFlags, strFlag, wantsHelp } from './flags.js';
import { usageError, type CliIo } from './io.js';
import { reportDamage } from './damage.js';

export const REPLAY_HELP = `Usage: evio iolog replay FILE [--term T] [--start N] [--len N] [--unredacted]

Prints a byte range of a session as replay items: {file, term, start, len, bytes,
log:[{type:"token", name, values?} | {type:"text", time, value}]}. Token names are terminfo
capability names of T (default: the session's TERM, else xterm-256color); docs/replay.md lists
them. len defaults to 65536 and is clamped to 1048576.
When the redact setting holds rules, what they match reads as * (and what was typed after a
password prompt); --unredacted reads the session as recorded.
FILE is absolute or relative to the first I/O log root (iologdirs).

Example:
  evio iolog replay 00/00/01 --term xterm-256color --start 0 --len 4096
`;

export const SCREEN_HELP = `Usage: evio iolog screen FILE [--at SECONDS] [--json] [--cells [--cellrows FIRST-LAST]] [--unredacted]

Prints the terminal screen of a session as text, one line per row (trailing empty rows left
out), after the output up to SECONDS from its start (default: the end of the session).
--json prints the answer of GET /REST/iolog/screen instead (cursor, offset, duration, repaint;
--cells adds every cell; --cellrows only those of rows FIRST to LAST, 0-based, needed when the
screen has more than 250000 cells). The screen comes from the nearest keyframe of the session's seek
index, built the first time the session is seeked in (not for a redacted read: it replays
from the start). When the redact setting holds rules, what they match reads as * (and what was typed after a
password prompt); --unredacted reads the session as recorded.
FILE is absolute or relative to the first I/O log root (iologdirs).

Example:
  evio iolog screen 00/00/04 --at 1.5
`;

async function write(out: Writable, text: string): Promise<void> {
  if (!out.write(text)) await once(out, 'drain');
}

function onePositional(positionals: string[], usage: string): string {
  if (positionals.length !== 1) throw usageError(`give exactly one FILE (${usage})`);
  return positionals[0]!;
}

export async function runReplay(argv: string[], io: CliIo, allow = false): Promise<number> {
  if (wantsHelp(argv, REPLAY_HELP, io.out)) return 0;
  const f = parseFlags(argv, { command: 'iolog replay', values: ['term', 'start', 'len'], switches: ['unredacted'], positionals: 1 });
  const file = onePositional(f.positionals, 'evio iolog replay FILE');
  const params: Record<string, string> = { file };
  const term = strFlag(f, 'term');
  if (term !== undefined) params.term = term;
  if (f.flags.start !== undefined) params.start = String(intFlag(f, 'start', 0));
  if (f.flags.len !== undefined) params.len = String(intFlag(f, 'len', 0));
  const run = await iologReplay(io.engine(), params, io.signal, { unredacted: f.bools.has('unredacted') });
  await write(io.out, `{"file":${JSON.stringify(run.file)},"term":${JSON.stringify(run.term)},"start":${run.start},"len":${run.len},"bytes":${run.bytes},"log":[`);
  let n = 0;
  let buf = '';
  for await (const item of run.items) {
    buf += (n++ ? ',' : '') + JSON.stringify(item);
    if (buf.length >= 65536) {
      await write(io.out, buf);
      buf = '';
    }
  }
  const warnings = run.warnings.length ? `,"warnings":${JSON.stringify(run.warnings)}` : '';
  await write(io.out, `${buf}]${warnings},"status":0}\n`);
  return reportDamage(io, 'replay', run.warnings, allow);
}

export async function runScreen(argv: string[], io: CliIo, allow = false): Promise<number> {
  if (wantsHelp(argv, SCREEN_HELP, io.out)) return 0;
  const f = parseFlags(argv, { command: 'iolog screen', values: ['at', 'cellrows'], switches: ['json', 'cells', 'unredacted'], positionals: 1 });
  const file = onePositional(f.positionals, 'evio iolog screen FILE');
  const at = strFlag(f, 'at');
  const cellrows = strFlag(f, 'cellrows');
  const screen = await iologScreen(io.engine(), { file, ...(at !== undefined ? { at } : {}), ...(f.bools.has('cells') ? { cells: '1' } : {}), ...(cellrows !== undefined ? { cellrows } : {}) }, io.signal, { unredacted: f.bools.has('unredacted') });
  if (f.bools.has('json')) {
    const { warnings, ...body } = screen;
    await write(io.out, `${JSON.stringify({ ...body, ...(warnings.length ? { warnings } : {}), status: 0 })}\n`);
    return reportDamage(io, 'screen', warnings, allow);
  }
  const lines = [...screen.lines];
  while (lines.length && lines[lines.length - 1]!.trim() === '') lines.pop();
  await write(io.out, lines.map((r) => `${r}\n`).join(''));
  return reportDamage(io, 'screen', screen.warnings, allow);
}
