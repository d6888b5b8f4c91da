// The `evio` command: global options, then a command group. Each group lives in its own file
// and drives the same engine functions as the HTTP handlers. What a command needs beyond this
// file (settings, engine, audit log) is imported once the command is known: `evio --version`
// and `--help` load four modules (BENCHMARKS.md, "Start-up steps").
import { printable } from './printable.js';
import { evioError, toEvioError } from '../errors.js';
import type { CliCommand } from './io.js';
import { commands } from './commands.js';

const HELP = `evio - audit-trail engine: sudo event logs and I/O logs

Usage: evio [--config FILE] COMMAND [ARGS...]

Commands:
${'{commands}'}

Settings come from --config FILE or EVIO_CONFIG; with neither, a data folder
($EVIO_HOME, else ./evio-data) is used. Every command has --help with an example.

Example:
  evio generate events --count 100000 --seed 1 --out evio-data/events.ndjson
  evio call GET '/REST/v2.0/events?format=ff&file=events.ndjson&submituser=alice&limit=5'
`;

function helpText(list: readonly CliCommand[]): string {
  const width = Math.max(...list.map((c) => c.name.length));
  return HELP.replace('{commands}', list.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n'));
}

export async function main(argv: string[]): Promise<number> {
  let config: string | undefined;
  const args = [...argv];
  while (args[0]?.startsWith('--config')) {
    const a = args.shift()!;
    config = a.includes('=') ? a.slice(a.indexOf('=') + 1) : args.shift();
  }
  const name = args.shift();
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(helpText(commands));
    return name ? 0 : 2;
  }
  if (name === '--version') {
    process.stdout.write('evio 0.1.0\n');
    return 0;
  }
  const cmd = commands.find((c) => c.name === name);
  if (!cmd) {
    process.stderr.write(`evio: 1003 unknown command "${name}"\n\n${helpText(commands)}`);
    return 2;
  }
  const ac = new AbortController();
  const stop = () => ac.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const [{ makeIo }, { runAudited }] = await Promise.all([import('./io.js'), import('./audit.js')]);
  const io = makeIo(config, ac.signal);
  try {
    return await runAudited(name, args, io, () => cmd.run(args, io));
  } catch (err) {
    const e = toEvioError(err);
    // A message can quote a file's content or a client's value: its control characters are shown.
    process.stderr.write(`evio: ${printable(e.message, { keepLines: true })}\n`);
    return e.errorName === 'CLI_USAGE' ? 2 : 1;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    await io.dispose();
  }
}

/**
 * A command that can never finish is an error, not a silent success. When the event loop has
 * nothing left to wait for while `run` is still pending (it awaits a promise nobody can settle
 * any more — a bug, such as a stream callback that never comes), Node exits with status 0 and
 * no output: a query would look like an empty answer. This reports INTERNAL (1000) instead and
 * sets exit status 1.
 */
export function failIfUnsettled(run: Promise<unknown>): void {
  let settled = false;
  const onEmpty = () => {
    if (settled) return;
    settled = true;
    const e = evioError('INTERNAL', 'the command stopped before it finished: it waited for work that can never end (a bug in evio: please report the command)');
    process.stderr.write(`evio: ${e.message}\n`);
    process.exitCode = 1;
  };
  process.once('beforeExit', onEmpty);
  run.then(
    () => undefined,
    () => undefined,
  ).finally(() => {
    settled = true;
    process.off('beforeExit', onEmpty);
  });
}
