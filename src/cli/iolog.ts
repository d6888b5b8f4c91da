// `evio iolog chunk|variables|search|list|index|export`: the I/O-log engine functions from the
// command line. Answers are the JSON bodies the HTTP service gives; export writes asciicast.
import { createHash } from 'node:crypto';
import { createWriteStream, realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import {
  iologChunk,
  iologCommands,
  iologExport,
  iologIndex,
  iologListPage,
  iologListDirectory,
  iologSearch,
  iologVariables,
  matchingPaths,
  SearchAnswer,
  type Params,
} from '../app/iolog.js';
import { IOLOG_LIST_PARAMS, IOLOG_LIST_REPEATABLE } from '../app/routes/iolog.js';
import { refuseAuditOutput } from '../app/audit.js';
import { parseFlags, wantsHelp } from './flags.js';
import { evioError } from '../errors.js';
import { progress, progressDone, usageError, type CliCommand, type CliIo } from './io.js';
import { reportDamage, takeAllowDamaged } from './damage.js';
import { PRIVATE_FILE_MODE } from '../private-files.js';

interface Sub {
  usage: string;
  help: string;
  flags: readonly string[];
  bools?: readonly string[];
  /** Flags that may be given more than once (each an alternative). */
  repeatable?: readonly string[];
  positionals: readonly string[];
  /** `allow`: --allow-damaged was given (a damaged session exits 0; cli/damage.ts). */
  run(args: Params, io: CliIo, allow: boolean): Promise<number>;
}

async function write(out: Writable, text: string): Promise<void> {
  if (!out.write(text)) await once(out, 'drain');
}

function printJson(io: CliIo, body: Record<string, unknown>): number {
  io.out.write(`${JSON.stringify({ ...body, status: 0 })}\n`);
  return 0;
}

/** What the reading subcommands say of redaction (docs/iolog.md, "Redaction"). */
const REDACT_HELP = 'When the redact setting holds rules, what they match is shown as * (and what is typed after a password prompt);\n--unredacted shows the session as recorded (the CLI runs as the operator, who can read the files anyway).';

const SUBS: Record<string, Sub> = {
  chunk: {
    usage: 'evio iolog chunk FILE [--start N | --at SECONDS] [--len N] [--unredacted]',
    help: 'Prints one chunk of a session: {file, bytes, start, len, log:[{time}|{cols,rows,cmd}|{blob,blen,cmd}]}.\nlen defaults to 65536 and is clamped to 1048576. --at starts at the data-stream position of that time (seconds from the start).',
    flags: ['start', 'at', 'len'],
    bools: ['unredacted'],
    positionals: ['file'],
    async run(a, io, allow) {
      const c = await iologChunk(io.engine(), a, io.signal, { unredacted: a.unredacted === '1' });
      printJson(io, { file: c.file, bytes: c.bytes, ...(c.at !== undefined ? { at: c.at } : {}), start: c.start, len: c.len, log: c.items, ...(c.warnings.length ? { warnings: c.warnings } : {}) });
      return reportDamage(io, 'chunk', c.warnings, allow);
    },
  },
  variables: {
    usage: 'evio iolog variables FILE',
    help: 'Prints every variable of a session (log.json, legacy log or asciicast header) as {log}.',
    flags: [],
    positionals: ['file'],
    async run(a, io) {
      return printJson(io, { log: (await iologVariables(io.engine(), a, io.signal)).variables });
    },
  },
  events: {
    usage: 'evio iolog events FILE [--store ff:PATH|db:PATH|pg:NAME|odbc:DSN]',
    help:
      "Prints the session's accept (keystroke), reject and finish records: {file, match, uniqueid, events}.\n" +
      'Linked by the uuid in log.json, else by the iolog path the records carry (sudo\'s iolog_path or TSID),\n' +
      'else by submit time (within 2 s), user, host, run-as user and command; match says which (none: no record).\n' +
      'The records come from the configured event log (eventlog) unless --store names another.',
    flags: ['store'],
    positionals: ['file'],
    async run(a, io) {
      const { store, ...params } = a;
      // Loaded here: only this subcommand reads the event log.
      const { iologEvents } = await import('../app/session-events.js');
      const found = await iologEvents(io.engine(), params, { ...(io.signal ? { signal: io.signal } : {}), ...(typeof store === 'string' ? { store } : {}) });
      return printJson(io, { ...found });
    },
  },
  ls: {
    usage: 'evio iolog ls DIR [--filter REGEX]',
    help: 'Lists a directory under an I/O log root: {dir:[{name,path,size,mtime,type}]}.',
    flags: ['filter'],
    positionals: ['path'],
    async run(a, io) {
      const l = await iologListDirectory(io.engine(), a, io.signal);
      return printJson(io, { dir: l.entries, ...(l.truncated ? { truncated: true } : {}) });
    },
  },
  search: {
    usage: "evio iolog search GLOB 'KEYWORD:REGEX' [--detail] [--unredacted]",
    help:
      'Prints the sessions whose text matches REGEX within one line: {iologs:[path]}; --detail adds the lines\n' +
      'with time (ms since the start) and at (seconds: give it to evio iolog screen --at to see the line).\n' +
      'KEYWORD: stdin, stdout, stderr, ttyin, ttyout, input, output or any (input: the lines typed). (?i) before REGEX:\n' +
      'case-insensitive. GLOB is absolute or relative to each root.',
    flags: [],
    bools: ['detail', 'unredacted'],
    positionals: ['file', 'query'],
    async run(a, io, allow) {
      const run = await iologSearch(io.engine(), a, io.signal, { unredacted: a.unredacted === '1' });
      const answer = new SearchAnswer();
      await write(io.out, '{"iologs":[');
      let n = 0;
      for await (const p of matchingPaths(run, answer)) await write(io.out, `${n++ ? ',' : ''}${JSON.stringify(p)}`);
      let tail = ']';
      for (const [k, v] of Object.entries({ ...answer.tail(run.detail), status: 0 })) tail += `,${JSON.stringify(k)}:${JSON.stringify(v)}`;
      await write(io.out, `${tail}}\n`);
      return reportDamage(io, 'search', answer.warnings, allow);
    },
  },
  commands: {
    usage: 'evio iolog commands FILE [--unredacted]',
    help:
      'Prints the command timeline of a session as NDJSON: one line per command entered\n' +
      '{time, at, offset, line, stream, cwd?, prompt_at?, recalled?, completed?, edited?, inexact?, pasted?, hidden?, program?},\n' +
      'then one last line {file, commands, exit?, truncated?, warnings?, status}. at and prompt_at are seconds (evio iolog screen --at).',
    flags: [],
    bools: ['unredacted'],
    positionals: ['file'],
    async run(a, io, allow) {
      const c = await iologCommands(io.engine(), a, io.signal, { unredacted: a.unredacted === '1' });
      let buf = '';
      for (const e of c.log) {
        buf += `${JSON.stringify(e)}\n`;
        if (buf.length >= 65536) {
          await write(io.out, buf);
          buf = '';
        }
      }
      const last = { file: c.file, commands: c.log.length, ...(c.exit ? { exit: c.exit } : {}), ...(c.truncated ? { truncated: true } : {}), ...(c.warnings.length ? { warnings: c.warnings } : {}), status: 0 };
      await write(io.out, `${buf}${JSON.stringify(last)}\n`);
      return reportDamage(io, 'commands', c.warnings, allow);
    },
  },
  list: {
    usage: 'evio iolog list [--json] [--path GLOB] [--from TIME] [--to TIME] [--submituser W] [--submithost W] [--runuser W] [--runhost W] [--runcmd W] [--runargv W] [--cwd W] [--tty W] [--match all|any] [--sort FIELD] [--order asc|desc] [--start N] [--len N] [--refresh 0|1]',
    help:
      'Prints the cached list of sessions, updating the index first unless it is current (no session directory added or removed since its last update):\n' +
      'on a terminal a table (start, user, run-as user, host, session ID, command) like sudoreplay -l; piped or with --json, {result:[...]}.\n' +
      'A wildcard flag given more than once matches any of its values (--runuser root --runuser admin);\n' +
      '--match any lists sessions matching any one filter instead of all. TIME: a date, Unix seconds, now, today, yesterday, -7d, -2h, -30m.\n' +
      'When --len cuts the list, the answer ends with "more":true,"next":{"start":N}: run again with --start N.',
    flags: Object.keys(IOLOG_LIST_PARAMS),
    bools: ['json'],
    repeatable: IOLOG_LIST_REPEATABLE,
    positionals: [],
    async run(a, io) {
      const { json, ...params } = a;
      const page = await iologListPage(io.engine(), params, io.signal);
      if (json === '1' || !io.out.isTTY) return printJson(io, { result: page.result, ...(page.more ? { more: true, next: page.next } : {}) });
      const { sessionTable } = await import('./session-table.js');
      const roots = io.settings().iologdirs.map((r) => { try { return realpathSync(r); } catch { return r; } });
      const width = (io.out as { columns?: number }).columns ?? 0;
      io.out.write(sessionTable(page.result, roots, width));
      if (page.more) io.out.write(`(more: evio iolog list --start ${page.next!.start} ...)\n`);
      return 0;
    },
  },
  index: {
    usage: 'evio iolog index [--rebuild]',
    help: 'Updates the SQLite index of every session under the I/O log roots (only new or changed sessions are read;\nvanished ones are removed). --rebuild starts from an empty index.',
    flags: [],
    bools: ['rebuild'],
    positionals: [],
    async run(a, io) {
      progress(io, 'indexing I/O log sessions...');
      const stats = await iologIndex(io.engine(), { rebuild: a.rebuild === '1' }, io.signal);
      progressDone(io);
      return printJson(io, { ...stats });
    },
  },
  export: {
    usage: 'evio iolog export --format asciicast|text FILE [--out F] [--raw] [--unredacted]',
    help:
      'Writes a session as asciicast (asciinema) to F or standard output: v2, or v3 for a v3 cast; a cast keeps its header fields.\n' +
      'asciinema play writes the output events to the viewer\'s terminal, so they pass the terminal filter:\n' +
      'what draws the screen is kept (text, colours, cursor, erase, scrolling, charsets, screen modes), what the\n' +
      'recorded user could aim at the viewer\'s terminal is dropped (clipboard OSC 52, titles, hyperlinks, every\n' +
      'other OSC, DCS, APC, queries and reports, window operations, mouse and focus reporting).\n' +
      '--raw exports the output as recorded (the events then can set the viewer\'s clipboard or make its terminal type).\n' +
      REDACT_HELP,
    flags: ['format', 'out'],
    bools: ['raw', 'unredacted'],
    positionals: ['file'],
    async run(a, io, allow) {
      const outPath = typeof a.out === 'string' ? a.out : undefined;
      if (outPath) refuseAuditOutput(io.engine(), outPath);
      const warnings: string[] = [];
      const out = await iologExport(io.engine(), a, (): Writable => (outPath ? createWriteStream(outPath, { mode: PRIVATE_FILE_MODE }) : io.out), io.signal, { unredacted: a.unredacted === '1' }, warnings);
      if (outPath) {
        out.end();
        await once(out, 'finish');
      }
      return reportDamage(io, 'export', warnings, allow);
    },
  },
};

const EXAMPLES: Record<string, string> = {
  chunk: "evio iolog chunk 00/00/01 --start 0 --len 4096",
  variables: 'evio iolog variables /var/log/sudo-io/00/00/01',
  events: 'evio iolog events 000001 --store ff:/var/log/sudo.ndjson',
  ls: "evio iolog ls 00/00 --filter '^0[0-9A-F]$'",
  search: "evio iolog search '**' 'output:permission denied' --detail",
  commands: 'evio iolog commands 00/00/01',
  list: "evio iolog list --submituser 'al*' --from '2026-11-22 00:00' --len 50",
  index: 'evio iolog index',
  export: 'evio iolog export --format asciicast 00/00/01 --out session.cast',
};

function subHelp(name: string): string {
  const s = SUBS[name]!;
  return `Usage: ${s.usage}\n\n${s.help}\nFILE and DIR are absolute or relative to the first I/O log root (iologdirs); a sudo session ID (000001)\nnames 00/00/01. -d ROOT (sudoreplay's form) makes ROOT the only root of this command.\n\nExample:\n  ${EXAMPLES[name]}\n`;
}

const GROUP_HELP = `Usage: evio iolog COMMAND [ARGS...]

Commands:
${Object.entries(SUBS)
  .map(([, s]) => `  ${s.usage}`)
  .join('\n')}
  evio iolog replay FILE [--term T] [--start N] [--len N]
  evio iolog screen FILE [--at SECONDS] [--json] [--cells]
  evio iolog play FILE [--speed X] [--at SECONDS] [--idle-limit SECONDS] [--raw]

-d ROOT (or --dir ROOT), anywhere: ROOT is this command's only I/O log root, as sudoreplay -d.
A damaged session (corrupt stream file, timing cut short, unreadable log.json) is read as far
as it can be: each warning is a line on standard error and the exit status is 1, as
sudoreplay's; --allow-damaged, anywhere, exits 0 then.
Run evio iolog COMMAND --help for details.

Example:
  evio iolog index && evio iolog list --runuser root --len 10
`;

/** Flags and positionals to the parameter record the use case reads (the REST parameters). */
function toParams(name: string, sub: Sub, argv: readonly string[]): Params {
  const f = parseFlags(argv, { command: `iolog ${name}`, values: sub.flags, paramSwitches: sub.bools ?? [], repeatable: sub.repeatable ?? [], short: { o: 'out' }, positionals: sub.positionals.length });
  if (f.positionals.length !== sub.positionals.length) throw usageError(`expected ${sub.positionals.length} argument(s) (usage: ${sub.usage})`);
  const params: Params = { ...f.flags };
  sub.positionals.forEach((p, i) => (params[p] = f.positionals[i]));
  return params;
}

/**
 * sudoreplay's `-d DIR ID` form: `-d DIR` (or `--dir DIR`) anywhere among an iolog command's
 * arguments makes DIR this command's only I/O log root, as sudoreplay's -d sets its iolog_dir,
 * so that `evio iolog play -d /var/log/sudo-io 000001` plays DIR/00/00/01. The cached session
 * list of such a root is kept apart (its own index file beside iologcache), so that listing
 * another root never drops the configured roots' sessions from their index.
 */
export function takeRootFlag(argv: readonly string[]): { argv: string[]; dir: string | undefined } {
  const rest: string[] = [];
  let dir: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    let value: string | undefined;
    if (a === '-d' || a === '--dir') {
      value = argv[++i];
      if (value === undefined || value === '') throw usageError(`${a} needs a directory (the I/O log root, as sudoreplay's -d)`);
    } else if (a.startsWith('--dir=')) value = a.slice(6);
    else {
      rest.push(a);
      continue;
    }
    if (dir !== undefined) throw usageError('give -d DIR once');
    dir = value;
  }
  return { argv: rest, dir };
}

function useRoot(io: CliIo, dir: string): void {
  let real: string;
  try {
    real = realpathSync(resolve(dir));
  } catch {
    throw evioError('NOT_FOUND', `-d ${dir}: no such directory (resolved as ${resolve(dir)})`);
  }
  const settings = io.settings();
  settings.iologdirs = [real];
  settings.iologcache = settings.iologcache.replace(/(\.sqlite)?$/, `.d-${createHash('sha256').update(real).digest('hex').slice(0, 12)}.sqlite`);
}

export const iologCommand: CliCommand = {
  name: 'iolog',
  summary: 'I/O logs: chunk, variables, events, ls, search, commands, list, index, export, replay, screen, play',
  async run(argvIn, io) {
    const damaged = takeAllowDamaged(argvIn);
    const taken = takeRootFlag(damaged.argv);
    if (taken.dir !== undefined) useRoot(io, taken.dir);
    const allow = damaged.allow;
    const [name, ...rest] = taken.argv;
    if (!name || name === '--help' || name === '-h' || name === 'help') {
      io.out.write(GROUP_HELP);
      return name ? 0 : 2;
    }
    // replay and screen compose the session reader with src/replay; they parse their own flags.
    // Loaded when run: the player and the replay printers are not every iolog command's cost.
    if (name === 'replay') return (await import('./replay.js')).runReplay(rest, io, allow);
    if (name === 'screen') return (await import('./replay.js')).runScreen(rest, io, allow);
    if (name === 'play') return (await import('./play.js')).runPlay(rest, io, allow);
    const sub = SUBS[name];
    if (!sub) throw usageError(`unknown iolog command "${name}" (use ${Object.keys(SUBS).join(', ')})`);
    if (wantsHelp(rest, subHelp(name), io.out)) return 0;
    return sub.run(toParams(name, sub, rest), io, allow);
  },
};
