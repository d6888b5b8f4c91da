// `evio events purge`: delete matching records and, with --iologs, the I/O logs they reference.
import { createInterface } from 'node:readline/promises';
import { evioError } from '../errors.js';
import { purgeEvents, purgeTarget, type PurgeOptions, type PurgeReport, type SessionOutcome } from '../app/events-purge.js';
import { EVENT_DELETE_PARAM_NAMES } from '../app/routes/events.js';
import { formatBytes } from '../common/units.js';
import { restFlags } from './rest-flags.js';
import { intFlag, parseFlags, strFlag, wantsHelp } from './flags.js';
import { progress, progressDone, usageError, type CliIo } from './io.js';
import { noteOutcome } from './audit.js';

export const PURGE_HELP = `Usage: evio events purge [STORE] [--PARAM VALUE ...] [--older-than AGE] [--iologs] [--dry-run] [--yes]

Deletes the records the filters match (the parameters of DELETE /REST/v2.0/events: --to,
--submituser, --etype, ..., --all 1 for everything) and, with --iologs, the I/O log sessions
their K records reference — only inside the configured I/O log roots (a path outside them, or
a symlink, is reported and left), and removes them from the cached I/O log index. I/O logs go
first, then records; an interrupted purge is finished by the next purge of the same store.
A record whose I/O log is refused is kept (with the I/O log): it is reported, never deleted.
Without STORE the configured event log (eventlog) is purged; a relative ff:PATH or db:PATH is
taken from the first event-log folder (eventlogdirs). Standard output holds only the JSON report;
the lines for people (sessions listed, the summary) go to standard error.

  --older-than AGE  records created before now minus AGE (90d, 12h, 2w; s m h d w)
  --iologs          also remove the referenced I/O logs
  --dry-run         report exactly what would go (records, sessions, files, bytes); change nothing
  --list            print every I/O log handled (a dry run prints them anyway)
  --batch N         records per delete transaction on a database (default 5000)
  --yes             do not ask; without it a terminal is asked, and without a terminal it refuses

Examples:
  evio events purge ff:evio-data/events.ndjson --older-than 90d --iologs --dry-run
  evio events purge db:evio-data/events.sqlite --older-than 365d --iologs --yes`;

export function purgeSummary(r: PurgeReport): string {
  const verb = r.dryRun ? 'would delete' : 'deleted';
  let s = r.recordsKept ? `records kept (flat file)` : `${verb} ${r.records} records`;
  s += `; ${r.dryRun ? 'would remove' : 'removed'} ${r.sessions} I/O logs (${r.files} files, ${formatBytes(Number(r.bytes))}${r.dryRun ? '' : ' freed'})`;
  if (r.missing) s += `; ${r.missing} referenced I/O logs were already gone`;
  if (r.refused) s += `; ${r.refused} refused (outside the roots, symlinks or not sessions)${r.kept ? `, ${r.kept} records referencing them ${r.dryRun ? 'would be' : 'were'} kept` : ''}`;
  if (r.interrupted) s = `${r.dryRun ? 'an interrupted purge started' : 'finished an interrupted purge started'} ${r.interrupted.startedAt}${r.interrupted.report ? ` (${r.interrupted.report.records} records, ${r.interrupted.report.sessions} I/O logs)` : ' would be finished first'}\n${s}`;
  return `${s} in ${r.store}`;
}

function sessionLine(s: SessionOutcome): string {
  switch (s.action) {
    case 'removed':
    case 'would-remove':
      return `${s.action === 'removed' ? 'removed' : 'would remove'} ${s.path} (${s.files} files, ${s.bytes} bytes)`;
    case 'missing':
      return `missing ${s.path}`;
    default:
      return `${s.action} ${s.path}: ${s.reason}`;
  }
}

async function confirm(io: CliIo, question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: io.err });
  try {
    const answer = await rl.question(question);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

export async function runEventsPurge(argv: string[], io: CliIo): Promise<number> {
  if (wantsHelp(argv, PURGE_HELP, io.out)) return 0;
  const f = parseFlags(argv, restFlags('events purge', EVENT_DELETE_PARAM_NAMES, { values: ['older-than', 'batch'], switches: ['iologs', 'dry-run', 'yes', 'list'] }));
  // No STORE: the configured event log.
  const name = f.positionals[0] ?? `ff:${io.settings().eventlog}`;
  const engine = io.engine();
  const { 'older-than': _age, batch: _batch, ...filters } = f.flags;
  const { store, params } = await purgeTarget(engine, name, filters, strFlag(f, 'older-than'));
  const dryRun = f.bools.has('dry-run');
  const list = dryRun || f.bools.has('list');
  const base: PurgeOptions = {
    store,
    params,
    iologs: f.bools.has('iologs'),
    keepRecords: false,
    dryRun,
    batchSize: Math.max(1, intFlag(f, 'batch', 5000)),
    signal: io.signal,
    onProgress: (p) => progress(io, p.phase === 'plan' ? `read ${p.rows} matching records, ${p.sessions} I/O logs` : `deleted ${p.deleted} records`),
    // Human lines on stderr: stdout is the JSON report alone, for a cron job to keep or parse.
    onSession: list ? (s) => io.err.write(`${sessionLine(s)}\n`) : undefined,
  };
  if (!dryRun && !f.bools.has('yes')) {
    if (!process.stdin.isTTY || !io.err.isTTY) {
      throw evioError('PURGE_NOT_CONFIRMED', 'a purge without a terminal needs --yes (run it with --dry-run first to see what would go)');
    }
    const plan = await purgeEvents(engine, { ...base, dryRun: true, onSession: undefined });
    progressDone(io);
    io.err.write(`${purgeSummary(plan)}\n`);
    if (!(await confirm(io, 'Proceed? [y/N] '))) {
      io.err.write('nothing was deleted\n');
      noteOutcome(io, 'not confirmed: nothing was deleted');
      return 1;
    }
  }
  const report = await purgeEvents(engine, base);
  progressDone(io);
  noteOutcome(io, purgeSummary(report), { store: report.store, deleted: report.recordsKept ? 0 : report.records, sessions: report.sessions });
  io.out.write(`${JSON.stringify({ status: 0, ...report })}\n`);
  io.err.write(`${purgeSummary(report)}\n`);
  return 0;
}
