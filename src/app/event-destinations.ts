// The event destinations of a log server (docs/events.md, "Event destinations"): the receiver
// acknowledges an event once it is appended (fsynced) to the flat-file event log, which is the
// spool; one forwarder per configured destination (settings `destinations`) feeds it from there,
// with its cursor in <home>/spool/<destination>.cursor. The receiver calls wake() after each
// append and close() at shutdown.
import { join } from 'node:path';
import { parseSyslogTarget, type DestinationName } from '../destination-settings.js';
import type { Engine } from '../engine.js';
import { evioError } from '../errors.js';
import { cursorFile, cursorPath } from '../eventlog/destinations/cursor.js';
import { Forwarder, type DestinationStatus } from '../eventlog/destinations/forwarder.js';
import type { BackoffOptions } from '../eventlog/destinations/backoff.js';
import { ProgSink } from '../eventlog/destinations/prog-sink.js';
import type { Sink } from '../eventlog/destinations/sink.js';
import { openSpool, type BatchLimits } from '../eventlog/destinations/spool.js';
import { storeSink } from '../eventlog/destinations/store-sink.js';
import { SyslogSink } from '../eventlog/destinations/syslog-sink.js';
import { flatfileIndexSettings, openStore, parseStoreName } from '../eventlog/stores.js';
import type { Settings } from '../settings.js';
import { destinationTargets } from './destination-targets.js';

export type { DestinationStatus } from '../eventlog/destinations/forwarder.js';

export interface DestinationLag extends DestinationStatus {
  /** The last recnum of the spool (the live flat file). */
  spoolRecnum: number;
  /** Records in the spool after the last one delivered. */
  lagRecords: number;
}

export interface DestinationSet {
  /** Records were appended (up to recnum `ackedUpTo`, acknowledged): deliver them now. */
  wake(ackedUpTo?: number): void;
  /** Stops every forwarder (a delivery in progress is aborted; its batch is delivered again later). */
  close(): Promise<void>;
  status(): DestinationStatus[];
  /** status() with the spool's last recnum and how far behind each destination is (metrics). */
  lag(): Promise<DestinationLag[]>;
}

/** Knobs for tests; the service uses the defaults (0.5 s to 30 s retries, 10 s idle checks). */
export interface DestinationOptions {
  log?: (line: string) => void;
  backoff?: BackoffOptions;
  idleCheckMs?: number;
  batch?: BatchLimits;
  /** prog: a program that ran this long before exiting is restarted at once, ms. */
  healthyAfterMs?: number;
}

/** The folder of the cursors. */
export function spoolFolder(s: Settings): string {
  return join(s.home, 'spool');
}

const running = new WeakMap<Engine, DestinationSet>();

/** The destinations started for this engine, if any (metrics). */
export function runningDestinations(engine: Engine): DestinationSet | null {
  return running.get(engine) ?? null;
}

function defaultLog(line: string): void {
  process.stderr.write(`${new Date().toISOString()} ${line}\n`);
}

/**
 * Starts one forwarder per configured destination. A target that cannot be used as written (an
 * ODBC name that is not a DSN, say) throws here, at start; a destination that is down is retried
 * by its forwarder, forever, without losing a record.
 */
export function startDestinations(engine: Engine, opts: DestinationOptions = {}): DestinationSet {
  if (running.has(engine)) throw evioError('INTERNAL', 'the event destinations of this engine are already started');
  const s = engine.settings;
  const d = s.destinations;
  const log = opts.log ?? defaultLog;
  const targets = destinationTargets(s);
  const sinks: Array<[DestinationName, Sink]> = [];
  if (d.db !== undefined) {
    const spec = parseStoreName(engine, `db:${d.db}`);
    sinks.push(['db', storeSink(() => openStore(engine, spec))]);
  }
  if (d.odbc !== undefined) {
    const spec = parseStoreName(engine, `odbc:${d.odbc}`);
    sinks.push(['odbc', storeSink(() => openStore(engine, spec))]);
  }
  if (d.prog !== undefined) {
    sinks.push(['prog', new ProgSink({ argv: d.prog, log, ...(opts.backoff ? { backoff: opts.backoff } : {}), ...(opts.healthyAfterMs !== undefined ? { healthyAfterMs: opts.healthyAfterMs } : {}) })]);
  }
  if (d.syslog !== undefined) {
    sinks.push(['syslog', new SyslogSink({ target: parseSyslogTarget(d.syslog, s.source ?? 'settings'), log })]);
  }
  const index = flatfileIndexSettings(engine);
  const spool = openSpool({ path: s.eventlog, lockTimeoutMs: s.lockTimeoutMs, maxOpenAccepts: s.maxOpenAccepts, index: { enabled: index.enabled, cacheDir: index.cacheDir } });
  const forwarders = sinks.map(([name, sink]) => {
    const target = targets[name]!;
    return new Forwarder({
      name,
      target,
      sink,
      spool,
      cursor: cursorFile(cursorPath(spoolFolder(s), name), target),
      log,
      ...(opts.backoff ? { backoff: opts.backoff } : {}),
      ...(opts.idleCheckMs !== undefined ? { idleCheckMs: opts.idleCheckMs } : {}),
      ...(opts.batch ? { batch: opts.batch } : {}),
    }).start();
  });
  const set: DestinationSet = {
    wake(ackedUpTo) {
      for (const f of forwarders) f.wake(ackedUpTo);
    },
    async close() {
      if (running.get(engine) === set) running.delete(engine);
      await Promise.allSettled(forwarders.map((f) => f.close()));
      await spool.close();
    },
    status: () => forwarders.map((f) => f.status()),
    async lag() {
      const last = await spool.lastRecnum().catch(() => 0);
      return forwarders.map((f) => {
        const st = f.status();
        return { ...st, spoolRecnum: last, lagRecords: Math.max(0, last - (st.deliveredRecnum ?? 0)) };
      });
    },
  };
  running.set(engine, set);
  return set;
}
