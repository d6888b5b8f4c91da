// From a recorded session back to its events (GET /REST/iolog/events, `evio iolog events`): the
// accept (or keystroke), reject and finish records of the command the session recorded. sudo
// 1.9.13 writes no uuid into log.json, so the uniqueid alone often cannot link them; what real
// logs do carry is tried in turn:
//   1. the session's uuid (log.json of newer sudo, of evio's log server) = the records' uniqueid;
//   2. the accept's iolog path (sudo's JSON logs: iolog_path; text logs: TSID) naming this
//      session — the same real path, the same path under a root, or sudo 1.9.13's unexpanded
//      `…-XXXXXX` template whose expansion is this directory;
//   3. submit time (within TIME_SLACK_S) + submitting user + host + run-as user + command.
// The chosen record's uniqueid then gives its finish record. Each step is one bounded query on
// the store (a time window of the session's start): no scan of the whole log per session.
import { basename, dirname, isAbsolute, join } from 'node:path';
import type { Engine } from '../engine.js';
import { realOrNull } from '../paths.js';
import { required, type Params } from '../iolog/params.js';
import { queryEvents, type CallOptions, type ReturnedEvent } from './events.js';

/** How far (seconds) an accept's submit time may lie from the session's start to be its own. */
export const TIME_SLACK_S = 2;
/** The window (seconds each side of the start) the candidate query reads. */
const WINDOW_S = 300;
/** At most this many records of one uniqueid are returned (an accept, its finish, a few more). */
const MAX_RECORDS = 50;
const MAX_CANDIDATES = 2000;

export type SessionEventsMatch = 'uniqueid' | 'iolog' | 'time' | 'none';

export interface SessionEvents {
  /** The session, relative to its I/O log root (usable as file=). */
  file: string;
  /** Which of the steps above linked the records; none = no record of the store is the session's. */
  match: SessionEventsMatch;
  /** The linked records' uniqueid (null when none). */
  uniqueid: string | null;
  /** The records (verbose, every record as stored: accept/keystroke, finish), recnum order. */
  events: ReturnedEvent[];
}

/** A shell-wildcard filter matching exactly `v` (the event filters are wildcards). */
function exactly(v: string): string {
  return v.replace(/[\\*?[\]]/g, (c) => `\\${c}`);
}

/** The store parameters of a session-events call: log= stands for file= (file names the session). */
export function storeParams(engine: Engine, params: Params): { params: Params; opts: CallOptions } {
  const format = typeof params.format === 'string' ? params.format : undefined;
  const log = typeof params.log === 'string' && params.log !== '' ? params.log : undefined;
  const dsn = typeof params.dsn === 'string' && params.dsn !== '' ? params.dsn : undefined;
  if (format === undefined && log === undefined && dsn === undefined) return { params: {}, opts: { store: `ff:${engine.settings.eventlog}` } };
  const p: Params = {};
  if (format !== undefined) p.format = format;
  if (log !== undefined) p.file = log;
  if (dsn !== undefined) p.dsn = dsn;
  return { params: p, opts: {} };
}

async function collect(engine: Engine, params: Params, opts: CallOptions): Promise<ReturnedEvent[]> {
  const answer = await queryEvents(engine, params, opts);
  const out: ReturnedEvent[] = [];
  for await (const e of answer.events) out.push(e);
  return out;
}

/** Whether an event's iolog field names the session at `real` (see step 2 above). */
export function iologNames(iolog: string, real: string, roots: readonly string[]): boolean {
  const candidates = isAbsolute(iolog) ? [iolog] : roots.map((r) => join(r, iolog));
  for (const c of candidates) {
    if (c === real || realOrNull(c) === real) return true;
    // sudo 1.9.13 logs iolog_file's template unexpanded: `…/root/nobody-20261122-XXXXXX`
    // for the directory it created as `…-FLddxr` (the X's replaced one for one).
    const xs = /X{6,}$/.exec(basename(c));
    if (xs && basename(c).length === basename(real).length && basename(real).startsWith(basename(c).slice(0, xs.index))) {
      const dir = realOrNull(dirname(c)) ?? dirname(c);
      if (dir === dirname(real)) return true;
    }
  }
  return false;
}

function timeOf(e: ReturnedEvent): number {
  return typeof e.time === 'number' ? e.time : Number.NaN;
}

/** GET /REST/iolog/events?file=SESSION[&format=ff&log=PATH | format=db[&log=NAME] | format=odbc&dsn=DSN] */
export async function iologEvents(engine: Engine, params: Params, opts: { signal?: AbortSignal; store?: string } = {}): Promise<SessionEvents> {
  const file = required(params, 'file');
  const roots = [...engine.settings.iologdirs].map((r) => realOrNull(r) ?? r);
  // openSession first: its errors name `file` (a missing session, not a session an event names).
  const { openSession } = await import('../iolog/locate.js');
  const { resolveEventSession } = await import('../iolog/event-session.js');
  const session = await resolveEventSession(roots, (await openSession(roots, file)).path);
  const chosen = opts.store !== undefined ? { params: {}, opts: { store: opts.store } } : storeParams(engine, params);
  const base = { ...chosen.params, dump: '1', verbose: '1' };
  const call = { ...chosen.opts, signal: opts.signal };
  const byUniqueid = (u: string) => collect(engine, { ...base, uniqueid: exactly(u), limit: String(MAX_RECORDS) }, call);

  if (session.uniqueid) {
    const found = await byUniqueid(session.uniqueid);
    if (found.length) return { file: session.file, match: 'uniqueid', uniqueid: session.uniqueid, events: found };
  }
  if (!session.submituser) return { file: session.file, match: 'none', uniqueid: null, events: [] };
  const start = session.start;
  const candidates = (
    await collect(engine, { ...base, submituser: exactly(session.submituser), from: String(Math.floor(start - WINDOW_S)), to: String(Math.ceil(start + WINDOW_S)), limit: String(MAX_CANDIDATES) }, call)
  ).filter((e) => e.etype === 'K' || e.etype === 'A');
  const nearest = (list: ReturnedEvent[]) => list.sort((a, b) => Math.abs(timeOf(a) - start) - Math.abs(timeOf(b) - start))[0];

  let match: SessionEventsMatch = 'iolog';
  let pick = nearest(candidates.filter((e) => typeof e.iolog === 'string' && iologNames(e.iolog, session.path, roots)));
  if (!pick) {
    match = 'time';
    const command = session.runcmd.split(' ')[0] ?? '';
    pick = nearest(
      candidates.filter(
        (e) =>
          Math.abs(timeOf(e) - start) <= TIME_SLACK_S &&
          (!session.submithost || e.submithost === session.submithost) &&
          (!session.runuser || e.runuser === session.runuser) &&
          (!command || e.runcommand === command || basename(String(e.runcommand ?? '')) === basename(command)),
      ),
    );
  }
  if (!pick) return { file: session.file, match: 'none', uniqueid: null, events: [] };
  if (!pick.uniqueid) return { file: session.file, match, uniqueid: null, events: [pick] };
  const linked = await byUniqueid(pick.uniqueid);
  return { file: session.file, match, uniqueid: pick.uniqueid, events: linked.length ? linked : [pick] };
}
