// The log server's use cases (docs/logserver.md): what happens to each message a sudo client
// sends, whatever door it came through. An Accept, Reject, Alert or Exit becomes an event record
// in the flat-file event log — appended and synced before anything is acknowledged, several
// connections' records in one append (group commit) — from which the other destinations are fed;
// an Accept with I/O opens an I/O-log session written as sudo_logsrvd writes it, under an
// opaque log id that only this server can open back into its directory (log-ids.ts: a restart
// names the id, never a path).
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Engine } from '../engine.js';
import { realOrNull } from '../paths.js';
import { evioError } from '../errors.js';
import { SudoJsonMapper } from '../eventlog/import/map-json.js';
import { defaultMapContext, type AcceptInfo, type ImportRecord } from '../eventlog/import/types.js';
import { openStore, parseStoreName } from '../eventlog/stores.js';
import type { EventStore } from '../eventlog/types.js';
import { SessionMasker, type MaskOptions, type MaskSink } from '../iolog/redact/masker.js';
import { refuseAuditLogWrite } from './audit.js';
import { LogIds } from './log-ids.js';
import { createIologSession, reopenIologSession, type InfoValue, type IologSession, type IologWriterOptions, type TimeSpec } from '../iolog/writer/index.js';

export type { InfoValue, TimeSpec } from '../iolog/writer/index.js';

/** What the log server of this process has done since it started (for /metrics). */
export const logServerFigures = {
  /** Client connections open now (the door counts them). */
  connections: 0,
  /** Sessions being received now. */
  sessionsOpen: 0,
  /** Sessions opened (an Accept with I/O, or a restart). */
  sessionsReceived: 0,
  /** Event records appended. */
  eventsRecorded: 0,
  /** Connections ended by a refusal, per error code. */
  refusals: new Map<number, number>(),
  /** Matches masked before writing, per redaction rule. */
  redactions: new Map<string, number>(),
};

function countRedactions(rule: string, n: number): void {
  logServerFigures.redactions.set(rule, (logServerFigures.redactions.get(rule) ?? 0) + n);
}

/** The door reports a refusal that ended a connection. */
export function countRefusal(code: number): void {
  logServerFigures.refusals.set(code, (logServerFigures.refusals.get(code) ?? 0) + 1);
}

/** Run-time information keys every Accept and Reject must carry (sudo_logsrv.proto(5)). */
const REQUIRED_INFO = ['command', 'runuser', 'submithost', 'submituser'] as const;

export interface ExitInfo {
  runTime: TimeSpec | null;
  exitValue: number;
  dumpedCore: boolean;
  signal: string;
  error: string;
}

/** A session being received: the I/O-log writer behind its opaque log id. */
export interface ReceivedSession {
  readonly logId: string;
  /** The uniqueid of the session's accept event (also `uuid` in its log.json). */
  readonly acceptId: string;
  readonly dir: string;
  readonly elapsed: TimeSpec;
  writeIo(stream: 0 | 1 | 2 | 3 | 4, delay: TimeSpec, data: Uint8Array): void;
  writeWinsize(delay: TimeSpec, rows: number, cols: number): void;
  writeSuspend(delay: TimeSpec, signal: string): void;
  /** Hands what was written to the files without syncing: readers of the live session see it. */
  writeOut(): Promise<void>;
  /** Syncs what was written; resolves to the commit point it makes durable. */
  flush(): Promise<TimeSpec>;
  /** Completes the session (log.json's exit, timing read-only); resolves to the final commit point. */
  finish(exit: ExitInfo): Promise<TimeSpec>;
  /** Closes the files without completing: the session stays resumable. */
  close(): Promise<void>;
}

export interface AcceptInput {
  submitTime: TimeSpec;
  info: ReadonlyMap<string, InfoValue>;
  peer: string;
  expectIobufs: boolean;
  /** A sub-command's accept: the uniqueid of the command it runs under. */
  parent: string | null;
  /** A sub-command's position in the parent's session (its elapsed time). */
  offset: TimeSpec | null;
}

export interface LogReceiver {
  accept(a: AcceptInput): Promise<{ acceptId: string; session: ReceivedSession | null }>;
  reject(r: { submitTime: TimeSpec; reason: string; info: ReadonlyMap<string, InfoValue>; peer: string; parent: string | null }): Promise<void>;
  alert(a: { alertTime: TimeSpec; reason: string; info: ReadonlyMap<string, InfoValue>; peer: string; acceptId: string | null }): Promise<void>;
  exit(e: ExitInfo & { peer: string; acceptId: string | null; session: ReceivedSession | null }): Promise<void>;
  restart(r: { logId: string; resumePoint: TimeSpec; peer: string }): Promise<ReceivedSession>;
  /** Sessions open now (being received). */
  readonly openSessions: number;
  close(): Promise<void>;
}

export interface LogReceiverOptions {
  /**
   * Called after records were appended to the flat-file log (destinations feed from it), with the
   * last recnum of the append: every record up to it is acknowledged (event-destinations.ts wake).
   */
  onAppended?: (lastRecnum: number | undefined) => void;
  log?: (entry: Record<string, unknown>) => void;
}

const timeObject = (t: TimeSpec) => ({ seconds: t.sec, nanoseconds: t.nsec });

function nowSpec(): TimeSpec {
  const ms = Date.now();
  return { sec: Math.floor(ms / 1000), nsec: (ms % 1000) * 1e6 };
}

/** The info messages as the members of a sudo JSON event (what sudo_logsrvd logs for them). */
function infoObject(info: ReadonlyMap<string, InfoValue>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of info) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  return out;
}

function checkInfo(info: ReadonlyMap<string, InfoValue>, what: string): void {
  for (const k of REQUIRED_INFO) {
    const v = info.get(k);
    if (typeof v !== 'string' || v === '') throw evioError('LOGSRV_INVALID_MESSAGE', `${what} lacks the info message "${k}" (a non-empty string)`);
    // eslint-disable-next-line no-control-regex
    if (/[\x00-\x1f\x7f]/.test(v)) throw evioError('LOGSRV_INVALID_MESSAGE', `${what}: info "${k}" holds a control character`);
  }
}

/** Appends records to the flat-file log; concurrent calls share one append (one write and one sync). */
class EventJournal {
  private pending: { rec: ImportRecord; done: (err?: unknown) => void }[] = [];
  private writing = false;
  constructor(
    private readonly store: EventStore,
    private readonly onAppended: (lastRecnum: number | undefined) => void,
  ) {}

  append(rec: ImportRecord): Promise<void> {
    return new Promise((resolveP, rejectP) => {
      this.pending.push({ rec, done: (err) => (err === undefined ? resolveP() : rejectP(err)) });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    while (this.pending.length > 0) {
      const batch = this.pending;
      this.pending = [];
      try {
        const res = await this.store.append(batch.map((p) => p.rec));
        for (const p of batch) p.done();
        logServerFigures.eventsRecorded += batch.length;
        this.onAppended(res.last ?? undefined);
      } catch (err) {
        const e = evioError('LOGSRV_STORAGE', `appending ${batch.length} event(s) to the event log failed: ${(err as Error).message}`, err);
        for (const p of batch) p.done(e);
      }
    }
    this.writing = false;
  }
}

/** The I/O-log writer's options from the settings. */
export function iologWriterOptions(engine: Engine): IologWriterOptions {
  const s = engine.settings;
  const roots = s.iologdirs.map((d) => resolve(d));
  return {
    dir: s.logsrvd.iologDir === '' ? roots[0]! : resolve(s.logsrvd.iologDir),
    file: s.logsrvd.iologFile,
    roots,
    compress: s.logsrvd.compress,
    fileMode: 0o600,
    // IDs taken 16 at a time: a lock and an fsync of seq per session were most of an accept's time.
    seqReserve: 15,
  };
}

export async function openLogReceiver(engine: Engine, opts: LogReceiverOptions = {}): Promise<LogReceiver> {
  const s = engine.settings;
  const log = opts.log ?? (() => {});
  const store = await openStore(engine, parseStoreName(engine, `ff:${s.eventlog}`));
  refuseAuditLogWrite(engine, store); // an eventlog set to the audit log would let any sudo client add to it
  const journal = new EventJournal(store, opts.onAppended ?? (() => {}));
  const writer = iologWriterOptions(engine);
  const logIds = new LogIds(LogIds.keyFileIn(s.home), writer.roots.map((r) => realOrNull(r) ?? r));
  const storeAccepts = new Map<string, AcceptInfo>();
  const mapper = new SudoJsonMapper(defaultMapContext({ alerts: 'reject', storeAccepts, maxOpenAccepts: s.maxOpenAccepts }));
  let openSessions = 0;

  const record = async (kind: string, body: Record<string, unknown>): Promise<void> => {
    const mapped = mapper.map({ kind, body, start: 0, end: 0, line: 0 } as Parameters<SudoJsonMapper['map']>[0]);
    if (mapped.record) await journal.append({ ...mapped.record, received_by: 'logsrvd' });
  };

  const serverTime = () => timeObject(nowSpec());

  const maskOptions: MaskOptions = { rules: s.redact, maskPasswords: !s.logsrvd.logPasswords, passprompt: s.logsrvd.passprompt };

  function wrap(session: IologSession, logId: string, acceptId: string): ReceivedSession {
    openSessions++;
    logServerFigures.sessionsOpen++;
    logServerFigures.sessionsReceived++;
    let open = true;
    const done = () => {
      if (open) {
        openSessions--;
        logServerFigures.sessionsOpen--;
      }
      open = false;
    };
    // Records reach the writer through the masker: secrets become `*` before anything is written.
    const masker = SessionMasker.idle(maskOptions) ? null : new SessionMasker(session, maskOptions);
    const sink: MaskSink = session;
    const storageError = (what: string, err: unknown) => evioError('LOGSRV_STORAGE', `${what} the session ${session.relPath} failed: ${(err as Error).message}`, err);
    return {
      logId,
      acceptId,
      dir: session.dir,
      get elapsed() {
        return session.elapsed;
      },
      writeIo: masker ? (stream, delay, data) => masker.push({ kind: 'io', stream, delay, data: data as Buffer }) : (stream, delay, data) => sink.writeIo(stream, delay, data),
      writeWinsize: masker ? (delay, rows, cols) => masker.push({ kind: 'winsize', delay, rows, cols }) : (delay, rows, cols) => sink.writeWinsize(delay, rows, cols),
      writeSuspend: masker ? (delay, signal) => masker.push({ kind: 'suspend', delay, signal }) : (delay, signal) => sink.writeSuspend(delay, signal),
      writeOut: async () => {
        try {
          await session.writeOut();
        } catch (err) {
          throw storageError('writing', err);
        }
      },
      flush: async () => {
        masker?.flush();
        try {
          return await session.flush();
        } catch (err) {
          throw storageError('syncing', err);
        }
      },
      finish: async (exit) => {
        masker?.flush();
        const redactions = masker && masker.hits.size > 0 ? Object.fromEntries(masker.hits) : undefined;
        if (redactions) for (const [rule, n] of Object.entries(redactions)) countRedactions(rule, n);
        try {
          await session.finish({
            ...(exit.runTime ? { runTime: exit.runTime } : {}),
            exitValue: exit.exitValue,
            ...(exit.signal ? { signal: exit.signal, dumpedCore: exit.dumpedCore } : {}),
            ...(exit.error ? { error: exit.error } : {}),
            ...(redactions ? { redactions } : {}),
          });
        } catch (err) {
          throw storageError('completing', err);
        } finally {
          done();
        }
        return session.elapsed;
      },
      close: async () => {
        done();
        // What was held back is written too (masked as far as it is known): nothing received is dropped.
        masker?.flush();
        if (masker) for (const [rule, n] of masker.hits) countRedactions(rule, n);
        await session.close();
      },
    };
  }

  return {
    get openSessions() {
      return openSessions;
    },

    async accept(a) {
      checkInfo(a.info, 'accept');
      const acceptId = randomUUID();
      const body: Record<string, unknown> = {
        uuid: acceptId,
        server_time: serverTime(),
        submit_time: timeObject(a.submitTime),
        peeraddr: a.peer,
        ...infoObject(a.info),
      };
      if (a.parent) body.parent_uuid = a.parent;
      if (a.offset) body.iolog_offset = timeObject(a.offset);
      if (!a.expectIobufs) {
        await record('accept', body);
        return { acceptId, session: null };
      }
      let session: IologSession;
      try {
        session = await createIologSession(writer, a.submitTime, a.info, { uuid: acceptId, peeraddr: a.peer });
      } catch (err) {
        throw evioError('LOGSRV_STORAGE', `creating the I/O log session failed: ${(err as Error).message}`, err);
      }
      try {
        await record('accept', { ...body, iolog_path: session.dir, iolog_file: session.relPath });
        const logId = logIds.seal({ dir: session.dir, acceptId });
        // The operator's way back to a session a client must resume (sudo_sendlog -r ... -i LOGID).
        log({ level: 'info', msg: 'logsrvd session', peer: a.peer, dir: session.dir, logId });
        return { acceptId, session: wrap(session, logId, acceptId) };
      } catch (err) {
        await session.close();
        throw err;
      }
    },

    async reject(r) {
      checkInfo(r.info, 'reject');
      const body: Record<string, unknown> = { uuid: randomUUID(), server_time: serverTime(), submit_time: timeObject(r.submitTime), peeraddr: r.peer, reason: r.reason, ...infoObject(r.info) };
      if (r.parent) body.parent_uuid = r.parent;
      await record('reject', body);
    },

    async alert(a) {
      await record('alert', { uuid: a.acceptId ?? randomUUID(), server_time: serverTime(), alert_time: timeObject(a.alertTime), peeraddr: a.peer, reason: a.reason, ...infoObject(a.info) });
    },

    async exit(e) {
      if (!e.acceptId) return;
      const body: Record<string, unknown> = { uuid: e.acceptId, server_time: serverTime(), exit_time: serverTime(), peeraddr: e.peer, exit_value: e.exitValue };
      if (e.runTime) body.run_time = timeObject(e.runTime);
      else body.run_time_unknown = true;
      if (e.signal) {
        body.signal = e.signal;
        body.dumped_core = e.dumpedCore;
      }
      if (e.error) body.error = e.error;
      if (e.session) body.iolog_path = e.session.dir;
      await record('exit', body);
      storeAccepts.delete(e.acceptId);
    },

    async restart(r) {
      const entry = logIds.open(r.logId);
      if (!entry) throw evioError('LOGSRV_BAD_LOG_ID', 'the restart names a log id this server did not give out, or whose session is complete');
      let session: IologSession;
      try {
        session = await reopenIologSession(writer, entry.dir, r.resumePoint);
      } catch (err) {
        throw evioError('LOGSRV_RESTART_REFUSED', `the session cannot be resumed at ${r.resumePoint.sec}.${String(r.resumePoint.nsec).padStart(9, '0')}: ${(err as Error).message}`, err);
      }
      // The finish record repeats its accept's user and command: read them back from log.json.
      try {
        const info = JSON.parse(await readFile(join(entry.dir, 'log.json'), 'utf8')) as Record<string, unknown>;
        const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
        storeAccepts.set(entry.acceptId, {
          uniqueid: entry.acceptId,
          submituser: str(info.submituser),
          submithost: str(info.submithost),
          runuser: str(info.runuser),
          runhost: str(info.submithost),
          runcommand: str(info.command),
        });
      } catch {
        // The finish record then names no user; the session itself is intact.
      }
      log({ level: 'info', msg: 'logsrvd restart', peer: r.peer, dir: session.dir, resumePoint: r.resumePoint });
      return wrap(session, r.logId, entry.acceptId);
    },

    async close() {
      // Nothing is held here: each connection closes its own session, and every append has
      // been awaited by the message that made it.
    },
  };
}
