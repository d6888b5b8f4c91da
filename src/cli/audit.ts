// The CLI half of the audit trail: the commands that change data (event deletes, purges,
// imports, appends, copies, rotations and retirements of rotated files; key changes) are appended to the audit log with the OS user, this
// host, the arguments and the outcome. A command tells the outcome in words with noteOutcome;
// a failure is recorded with its error. Usage errors and --help change nothing and are not
// recorded, nor are dry runs.
import { toEvioError } from '../errors.js';
import type { CliIo } from './io.js';

const AUDITED: Readonly<Record<string, readonly string[]>> = {
  events: ['delete', 'purge', 'import', 'append', 'copy', 'rotate'],
  keys: ['add', 'remove', 'rotate'],
};

const outcomes = new WeakMap<CliIo, { text: string; extra: Record<string, unknown> }>();

/** What a data-changing command did, for its audit record (`deleted 12 records`). */
export function noteOutcome(io: CliIo, text: string, extra: Record<string, unknown> = {}): void {
  outcomes.set(io, { text, extra });
}

function audited(command: string, args: readonly string[]): boolean {
  const sub = args[0];
  if (sub === undefined || !(AUDITED[command] ?? []).includes(sub)) return false;
  // --list only reads (evio events rotate --list).
  return !args.some((a) => a === '--help' || a === '-h' || a === '--dry-run' || a === '--list');
}

/** Runs a command; when it changes data, appends what it did (or how it failed) to the audit log. */
export async function runAudited(command: string, args: string[], io: CliIo, run: () => Promise<number>): Promise<number> {
  if (!audited(command, args)) return run();
  const started = Date.now() / 1000;
  let code: number;
  try {
    code = await run();
  } catch (err) {
    const e = toEvioError(err);
    if (e.errorName !== 'CLI_USAGE') await record(io, command, args, started, e.message, e.code);
    throw err;
  }
  await record(io, command, args, started, outcomes.get(io)?.text ?? (code === 0 ? 'done' : `exit code ${code}`), code === 0 ? 0 : code);
  return code;
}

async function record(io: CliIo, command: string, args: string[], started: number, outcome: string, status: number): Promise<void> {
  try {
    // Loaded here: most commands change nothing and never open the audit log.
    const { cliActor, recordAudit } = await import('../app/audit.js');
    await recordAudit(io.engine(), {
      accepted: true,
      ...cliActor(),
      command: `evio ${command} ${args[0]}`,
      argv: args.slice(1),
      outcome,
      status,
      started,
      extra: { pid: process.pid, cwd: process.cwd(), ...outcomes.get(io)?.extra },
    });
  } catch (err) {
    // The change happened; say loudly that it went unrecorded, without hiding the command's own result.
    io.err.write(`evio: ${toEvioError(err).message}\n`);
  }
}
