// Settings: one JSON file (--config or EVIO_CONFIG), every key with a default that works with no
// file at all: a data folder ($EVIO_HOME, else ./evio-data) holding a flat-file event log, an
// SQLite event database, an I/O log root, the I/O log index and the keystore.
// Relative paths in the file are relative to the file's folder. docs/settings.md lists every key.
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { checkDestinations, type DestinationSettings } from './destination-settings.js';
import { evioError } from './errors.js';
import { ownRecord, ownValue } from './own-property.js';
import { parseLogsrvdSettings, type LogsrvdSettings } from './settings-logsrvd.js';
import { parseRedactRules, type RedactRule } from './settings-redact.js';

export interface TlsSettings {
  cert: string;
  key: string;
}

export type MetricsAccess = 'loopback' | 'token' | 'signed' | 'off';
export const METRICS_ACCESS: readonly MetricsAccess[] = ['loopback', 'token', 'signed', 'off'];

export interface Settings {
  /** The data folder that defaults are placed in. */
  home: string;
  /** Default flat-file event log (format=ff without file is still an error; this is for the CLI and appends). */
  eventlog: string;
  /** Default event database for format=db: an SQLite path or a key of `databases`. */
  eventdb: string;
  /** Named databases: name -> postgres:// URL, or an SQLite path. */
  databases: Record<string, string>;
  /** Where a request's flat-file or SQLite `file` may point (resolved, symlinks included). */
  eventlogdirs: string[];
  /** I/O log roots. */
  iologdirs: string[];
  /** SQLite index of the I/O log sessions. */
  iologcache: string;
  /** appid -> key file (mode 0600). */
  keystore: string;
  /** IANA zone used to read and render dates. */
  timezone: string;
  host: string;
  port: number;
  tls: TlsSettings | null;
  /** Optional path segment before /REST (e.g. "/pm"). */
  prefix: string;
  /** Bound on every database statement, milliseconds. */
  statementTimeoutMs: number;
  /** How long a flat-file writer waits for the lock, milliseconds. */
  lockTimeoutMs: number;
  /** Flat-file finish merge: accepts that may wait for their finish at once before a query is refused. */
  maxOpenAccepts: number;
  /** Flat files: use and build sidecar skip indexes (docs/flatfile.md). */
  flatfileIndex: boolean;
  /** Flat files: folder for skip indexes; '' = beside each file (`FILE.evidx`). */
  flatfileIndexDir: string;
  /** Flat files: time one query may spend building or extending skip indexes before it scans, ms. */
  flatfileIndexBuildMs: number;
  /** Worker threads for searches, glob walks, index updates and filtered listings; 0 = one per core. */
  workers: number;
  /** Worker threads of their own for chunk, variables, replay, unfiltered listing and list calls; 0 = one per core. */
  interactiveWorkers: number;
  /** Regex time one search may spend in total over all its sessions and threads (plus 5 ms a session), or one listing filter over all names, ms. */
  searchBudgetMs: number;
  /** Lines typed at a no-echo prompt (passwords) are searchable and shown in command timelines (off: left out / blanked). */
  searchHiddenInput: boolean;
  /** Allowed clock skew for signed requests, seconds. */
  authSkewSeconds: number;
  /** Signatures remembered per app for replay protection; a full cache refuses calls (1620). */
  replayCapacityPerApp: number;
  /** Listen on a non-loopback address without TLS (off unless set). */
  allowInsecure: boolean;
  /** The request line and headers must arrive within this time, ms (also the TLS handshake). */
  headersTimeoutMs: number;
  /** The whole request, body included, must arrive within this time, ms. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this time, ms. */
  keepAliveTimeoutMs: number;
  /** A streamed answer whose client reads nothing for this long is cut, ms. */
  stalledResponseTimeoutMs: number;
  /** Open connections at once; more are refused with 1615 (an eighth is kept for signed connections). */
  maxConnections: number;
  /** Open connections from one client address (an IPv6 /64) at once; more are refused with 1615. */
  maxConnectionsPerAddress: number;
  /** Largest request body; every body is read before its signature can be checked. */
  maxBodyBytes: number;
  /** Answers one event store streams at once; more are refused with 1618 (0 = no bound). */
  maxReadersPerStore: number;
  /** Answers all event stores together stream at once; more are refused with 1637 (0 = no bound). */
  maxReaders: number;
  /** Bytes the read buffers of all streamed flat-file answers hold at once; past it new readers get smaller buffers, then wait (0 = no bound). */
  maxReaderBufferBytes: number;
  /** Who may read GET /metrics: direct loopback callers, bearers of the token, signed calls of an allowed app, or nobody. */
  metrics: MetricsAccess;
  /** The bearer token of `metrics: "token"` (a file, 0600, made on first start when missing). */
  metricsTokenFile: string;
  /** On SIGTERM, how long calls in flight may take to finish before their connections are closed, ms. */
  shutdownTimeoutMs: number;
  /** The service's request log: "stderr" (default), "off", or a file to append JSON lines to. */
  requestLog: string;
  /** evio's own append-only audit event log (flat file), or "off". */
  auditlog: string;
  /** Writing calls refused before their signature was verified, recorded one by one per minute; the rest are counted in one summary record (0 = only summaries). */
  auditRefusedPerMinute: number;
  /** The log server sudo clients send to (settings-logsrvd.ts, docs/logserver.md). */
  logsrvd: LogsrvdSettings;
  /** Redaction rules applied to terminal data before it is written (settings-redact.ts). */
  redact: RedactRule[];
  /** Where the records spooled in `eventlog` are forwarded (docs/events.md, "Event destinations"); {} = nowhere. */
  destinations: DestinationSettings;
  /** Where the settings came from, for messages; null = defaults only. */
  source: string | null;
}

const KEYS: Record<string, 'string' | 'number' | 'boolean' | 'string[]' | 'record' | 'tls' | 'object' | 'destinations'> = {
  home: 'string',
  eventlog: 'string',
  eventdb: 'string',
  databases: 'record',
  eventlogdirs: 'string[]',
  iologdirs: 'string[]',
  iologcache: 'string',
  keystore: 'string',
  timezone: 'string',
  host: 'string',
  port: 'number',
  tls: 'tls',
  prefix: 'string',
  statementTimeoutMs: 'number',
  lockTimeoutMs: 'number',
  maxOpenAccepts: 'number',
  flatfileIndex: 'boolean',
  flatfileIndexDir: 'string',
  flatfileIndexBuildMs: 'number',
  workers: 'number',
  interactiveWorkers: 'number',
  searchBudgetMs: 'number',
  searchHiddenInput: 'boolean',
  authSkewSeconds: 'number',
  replayCapacityPerApp: 'number',
  allowInsecure: 'boolean',
  headersTimeoutMs: 'number',
  requestTimeoutMs: 'number',
  keepAliveTimeoutMs: 'number',
  stalledResponseTimeoutMs: 'number',
  maxConnections: 'number',
  maxConnectionsPerAddress: 'number',
  maxBodyBytes: 'number',
  maxReadersPerStore: 'number',
  maxReaders: 'number',
  maxReaderBufferBytes: 'number',
  metrics: 'string',
  metricsTokenFile: 'string',
  shutdownTimeoutMs: 'number',
  requestLog: 'string',
  auditlog: 'string',
  auditRefusedPerMinute: 'number',
  logsrvd: 'object',
  redact: 'object',
  destinations: 'destinations',
};

function checkType(key: string, v: unknown, source: string): void {
  const want = ownValue(KEYS, key);
  const bad = (what: string) => evioError('SETTINGS_INVALID', `${source}: "${key}" must be ${what}`);
  switch (want) {
    case undefined:
      throw evioError('SETTINGS_INVALID', `${source}: unknown key "${key}" (known: ${Object.keys(KEYS).join(', ')})`);
    case 'string':
      if (typeof v !== 'string') throw bad('a string');
      break;
    case 'number':
      if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw bad('a number of 0 or more');
      break;
    case 'boolean':
      if (typeof v !== 'boolean') throw bad('true or false');
      break;
    case 'string[]':
      if (!Array.isArray(v) || v.some((x) => typeof x !== 'string') || v.length === 0) throw bad('a non-empty array of strings');
      break;
    case 'record':
      if (!v || typeof v !== 'object' || Array.isArray(v) || Object.values(v).some((x) => typeof x !== 'string')) throw bad('an object of strings');
      break;
    case 'object':
      // Checked member by member by its own parser.
      break;
    case 'tls':
      if (v !== null && (!v || typeof v !== 'object' || typeof (v as TlsSettings).cert !== 'string' || typeof (v as TlsSettings).key !== 'string')) {
        throw bad('null or {"cert": PATH, "key": PATH}');
      }
      break;
    case 'destinations':
      checkDestinations(v, source);
      break;
  }
}

function validZone(tz: string): boolean {
  if (tz === 'UTC' || tz === 'Etc/UTC') return true; // no ICU start-up cost for the default
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/**
 * The service's transport bounds: timeouts are whole milliseconds of at least 1 (none can be
 * turned off: each one is what closes a connection an attacker holds open), and the headers must
 * be due no later than the whole request (Node refuses the server otherwise).
 */
function checkServiceBounds(s: Settings): void {
  const positive = ['headersTimeoutMs', 'requestTimeoutMs', 'keepAliveTimeoutMs', 'stalledResponseTimeoutMs', 'maxConnections', 'maxConnectionsPerAddress', 'maxBodyBytes'] as const;
  for (const k of positive) {
    if (!Number.isInteger(s[k]) || s[k] < 1) throw evioError('SETTINGS_INVALID', `"${k}": ${s[k]} must be a whole number of 1 or more`);
  }
  if (!Number.isInteger(s.auditRefusedPerMinute) || s.auditRefusedPerMinute < 0) throw evioError('SETTINGS_INVALID', `"auditRefusedPerMinute": ${s.auditRefusedPerMinute} must be a whole number of 0 or more`);
  if (!Number.isInteger(s.maxReadersPerStore)) throw evioError('SETTINGS_INVALID', `"maxReadersPerStore": ${s.maxReadersPerStore} must be a whole number (0 = no bound)`);
  for (const k of ['maxReaders', 'maxReaderBufferBytes'] as const) {
    if (!Number.isInteger(s[k]) || s[k] < 0) throw evioError('SETTINGS_INVALID', `"${k}": ${s[k]} must be a whole number of 0 or more (0 = no bound)`);
  }
  // Every answer maxReaders admits must be able to get the smallest read buffer (64 KiB).
  const leastBuffers = Math.max(1, s.maxReaders) * 64 * 1024;
  if (s.maxReaderBufferBytes > 0 && s.maxReaderBufferBytes < leastBuffers) {
    throw evioError('SETTINGS_INVALID', `"maxReaderBufferBytes": ${s.maxReaderBufferBytes} must be 0 (no bound) or at least ${leastBuffers}: 64 KiB for each of the maxReaders (${s.maxReaders}) answers`);
  }
  if (!METRICS_ACCESS.includes(s.metrics)) throw evioError('SETTINGS_INVALID', `"metrics": "${s.metrics}" must be one of ${METRICS_ACCESS.join(', ')}`);
  if (!Number.isInteger(s.shutdownTimeoutMs) || s.shutdownTimeoutMs < 1) throw evioError('SETTINGS_INVALID', `"shutdownTimeoutMs": ${s.shutdownTimeoutMs} must be a whole number of 1 or more`);
  if (s.headersTimeoutMs > s.requestTimeoutMs) {
    throw evioError('SETTINGS_INVALID', `"headersTimeoutMs" (${s.headersTimeoutMs}) must not exceed "requestTimeoutMs" (${s.requestTimeoutMs}): the headers are part of the request`);
  }
}

/** A setting that is a path or one of a few words ("stderr", "off"): only the path is resolved. */
function keyword(v: string, words: readonly string[], p: (v: string) => string): string {
  return words.includes(v) ? v : p(v);
}

export interface LoadOptions {
  /** Settings file; default: env EVIO_CONFIG; none = defaults only. */
  config?: string | undefined;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Values that win over the file (tests, CLI flags). */
  overrides?: Partial<Settings>;
}

export function loadSettings(opts: LoadOptions = {}): Settings {
  const env = opts.env ?? process.env;
  const cwd = opts.cwd ?? process.cwd();
  const file = opts.config ?? env.EVIO_CONFIG ?? null;
  let raw: Record<string, unknown> = {};
  let base = cwd;
  if (file) {
    const path = resolve(cwd, file);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      throw evioError('SETTINGS_UNREADABLE', `cannot read settings file ${path}: ${(err as Error).message}`);
    }
    try {
      raw = JSON.parse(text) as Record<string, unknown>;
    } catch (err) {
      throw evioError('SETTINGS_UNREADABLE', `settings file ${path} is not valid JSON: ${(err as Error).message}`);
    }
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
      throw evioError('SETTINGS_UNREADABLE', `settings file ${path} must hold one JSON object`);
    }
    for (const [k, v] of Object.entries(raw)) checkType(k, v, path);
    base = dirname(path);
  }
  const p = (v: string) => (isAbsolute(v) ? v : resolve(base, v));
  const home = p((raw.home as string | undefined) ?? env.EVIO_HOME ?? resolve(cwd, 'evio-data'));
  const s: Settings = {
    home,
    eventlog: p((raw.eventlog as string | undefined) ?? resolve(home, 'events.ndjson')),
    eventdb: (raw.eventdb as string | undefined) ?? resolve(home, 'events.sqlite'),
    databases: (raw.databases as Record<string, string> | undefined) ?? {},
    eventlogdirs: ((raw.eventlogdirs as string[] | undefined) ?? [home]).map(p),
    iologdirs: ((raw.iologdirs as string[] | undefined) ?? [resolve(home, 'iolog')]).map(p),
    iologcache: p((raw.iologcache as string | undefined) ?? resolve(home, 'iolog-index.sqlite')),
    keystore: p((raw.keystore as string | undefined) ?? resolve(home, 'keystore.json')),
    timezone: (raw.timezone as string | undefined) ?? 'UTC',
    host: (raw.host as string | undefined) ?? '127.0.0.1',
    port: (raw.port as number | undefined) ?? 24351,
    tls: (raw.tls as TlsSettings | null | undefined) ?? null,
    prefix: (raw.prefix as string | undefined) ?? '',
    statementTimeoutMs: (raw.statementTimeoutMs as number | undefined) ?? 30_000,
    lockTimeoutMs: (raw.lockTimeoutMs as number | undefined) ?? 10_000,
    maxOpenAccepts: (raw.maxOpenAccepts as number | undefined) ?? 1_000_000,
    flatfileIndex: (raw.flatfileIndex as boolean | undefined) ?? true,
    flatfileIndexDir: raw.flatfileIndexDir ? p(raw.flatfileIndexDir as string) : '',
    flatfileIndexBuildMs: (raw.flatfileIndexBuildMs as number | undefined) ?? 1000,
    workers: (raw.workers as number | undefined) ?? 0,
    interactiveWorkers: (raw.interactiveWorkers as number | undefined) ?? 0,
    searchBudgetMs: (raw.searchBudgetMs as number | undefined) ?? 60_000,
    searchHiddenInput: (raw.searchHiddenInput as boolean | undefined) ?? false,
    authSkewSeconds: (raw.authSkewSeconds as number | undefined) ?? 300,
    replayCapacityPerApp: (raw.replayCapacityPerApp as number | undefined) ?? 100_000,
    allowInsecure: (raw.allowInsecure as boolean | undefined) ?? false,
    headersTimeoutMs: (raw.headersTimeoutMs as number | undefined) ?? 10_000,
    requestTimeoutMs: (raw.requestTimeoutMs as number | undefined) ?? 30_000,
    keepAliveTimeoutMs: (raw.keepAliveTimeoutMs as number | undefined) ?? 5_000,
    stalledResponseTimeoutMs: (raw.stalledResponseTimeoutMs as number | undefined) ?? 30_000,
    maxConnections: (raw.maxConnections as number | undefined) ?? 512,
    maxConnectionsPerAddress: (raw.maxConnectionsPerAddress as number | undefined) ?? 128,
    maxBodyBytes: (raw.maxBodyBytes as number | undefined) ?? 64 * 1024,
    maxReadersPerStore: (raw.maxReadersPerStore as number | undefined) ?? 32,
    maxReaders: (raw.maxReaders as number | undefined) ?? 64,
    maxReaderBufferBytes: (raw.maxReaderBufferBytes as number | undefined) ?? 256 * 1024 * 1024,
    metrics: (raw.metrics as MetricsAccess | undefined) ?? 'loopback',
    metricsTokenFile: p((raw.metricsTokenFile as string | undefined) ?? resolve(home, 'metrics.token')),
    shutdownTimeoutMs: (raw.shutdownTimeoutMs as number | undefined) ?? 10_000,
    requestLog: keyword((raw.requestLog as string | undefined) ?? 'stderr', ['stderr', 'off'], p),
    auditlog: keyword((raw.auditlog as string | undefined) ?? resolve(home, 'audit.ndjson'), ['off'], p),
    auditRefusedPerMinute: (raw.auditRefusedPerMinute as number | undefined) ?? 60,
    logsrvd: parseLogsrvdSettings(raw.logsrvd, file ? resolve(cwd, file) : 'settings', p),
    redact: parseRedactRules(raw.redact, file ? resolve(cwd, file) : 'settings'),
    destinations: (raw.destinations as DestinationSettings | undefined) ?? {},
    source: file ? resolve(cwd, file) : null,
    ...opts.overrides,
  };
  // An eventdb that is not a configured name is an SQLite path, relative to the settings file.
  // Names in "databases" come from requests (format=db&file=NAME): a table without a prototype.
  s.databases = ownRecord(Object.entries(s.databases));
  if (!Object.hasOwn(s.databases, s.eventdb) && !/^[a-z]+:\/\//.test(s.eventdb)) s.eventdb = p(s.eventdb);
  // Overrides are checked too; a db destination that is not a configured name is an SQLite path.
  s.destinations = checkDestinations(s.destinations, s.source ?? 'settings');
  if (s.destinations.db !== undefined && !Object.hasOwn(s.databases, s.destinations.db)) s.destinations.db = p(s.destinations.db);
  if (s.tls) s.tls = { cert: p(s.tls.cert), key: p(s.tls.key) };
  if (!(s.searchBudgetMs >= 1)) throw evioError('SETTINGS_INVALID', `"searchBudgetMs": ${s.searchBudgetMs} must be 1 or more`);
  if (!validZone(s.timezone)) throw evioError('SETTINGS_INVALID', `"timezone": "${s.timezone}" is not an IANA time zone`);
  checkServiceBounds(s);
  if (s.prefix && !/^(\/[A-Za-z0-9._-]+)+$/.test(s.prefix)) {
    throw evioError('SETTINGS_INVALID', `"prefix": "${s.prefix}" must look like /segment[/segment]`);
  }
  return s;
}
