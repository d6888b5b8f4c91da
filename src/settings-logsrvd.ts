// The "logsrvd" settings key: the log server that sudo clients send to (docs/logserver.md).
// Every member has a default; with no key at all `evio serve` starts no listener and
// `evio logsrvd` listens on 127.0.0.1:30343 (and 0.0.0.0:30344 with TLS when a certificate is
// configured).
import { evioError } from './errors.js';
import { ownValue } from './own-property.js';

export interface LogsrvdTls {
  cert: string;
  key: string;
  /** CA bundle client certificates must chain to; with it, clients must present one (logsrvd's tls_checkpeer). */
  ca: string | null;
}

export interface LogsrvdSettings {
  /** Listen entries HOST:PORT or HOST:PORT(tls); [] = `evio serve` starts no log server. */
  listen: string[];
  tls: LogsrvdTls | null;
  /** Directory template of received sessions (sudo's iolog_dir); '' = the first of iologdirs. Must lie under iologdirs. */
  iologDir: string;
  /** File template of received sessions (sudo's iolog_file). */
  iologFile: string;
  /** gzip the stream and timing files (sudo_logsrvd's iolog_compress; off by default, as there). */
  compress: boolean;
  /** Data is synced and acknowledged with a commit point at most this long after it arrived, ms. */
  commitIntervalMs: number;
  /** A message begun and not finished for this long closes its connection, ms. */
  frameTimeoutMs: number;
  /** A connection that sends no first message (or finishes no TLS handshake) in this time is closed, ms. */
  helloTimeoutMs: number;
  maxConnections: number;
  maxConnectionsPerAddress: number;
  /** Bytes one connection may send per second on average; 0 = no bound. */
  maxBytesPerSecond: number;
  /** Keep tty input typed after a password prompt (false: masked with `*`, sudo_logsrvd's log_passwords=false). */
  logPasswords: boolean;
  /** The password prompt, a regular expression matched at the end of the terminal's output. */
  passprompt: string;
}

const DEFAULTS: LogsrvdSettings = {
  listen: [],
  tls: null,
  iologDir: '',
  iologFile: '%{seq}',
  compress: false,
  commitIntervalMs: 10_000,
  frameTimeoutMs: 60_000,
  helloTimeoutMs: 30_000,
  maxConnections: 4096,
  maxConnectionsPerAddress: 512,
  maxBytesPerSecond: 0,
  logPasswords: false,
  passprompt: '[Pp]assword[: ]*',
};

const NUMBERS = ['commitIntervalMs', 'frameTimeoutMs', 'helloTimeoutMs', 'maxConnections', 'maxConnectionsPerAddress', 'maxBytesPerSecond'] as const;

/** Reads the "logsrvd" value of a settings file; `p` resolves a path against the file's folder. */
export function parseLogsrvdSettings(v: unknown, source: string, p: (path: string) => string): LogsrvdSettings {
  const bad = (what: string) => evioError('SETTINGS_INVALID', `${source}: "logsrvd"${what}`);
  if (v === undefined) return { ...DEFAULTS, listen: [] };
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw bad(' must be an object (docs/settings.md)');
  const o = v as Record<string, unknown>;
  const out: LogsrvdSettings = { ...DEFAULTS };
  for (const k of Object.keys(o)) {
    if (ownValue(DEFAULTS as unknown as Record<string, unknown>, k) === undefined && k !== 'tls') throw bad(`: unknown key "${k}" (known: ${Object.keys(DEFAULTS).join(', ')})`);
  }
  if (o.listen !== undefined) {
    if (!Array.isArray(o.listen) || o.listen.some((x) => typeof x !== 'string')) throw bad('.listen must be an array of "HOST:PORT" or "HOST:PORT(tls)"');
    for (const e of o.listen as string[]) parseListen(e);
    out.listen = [...(o.listen as string[])];
  }
  for (const k of ['iologDir', 'iologFile'] as const) {
    if (o[k] === undefined) continue;
    if (typeof o[k] !== 'string') throw bad(`.${k} must be a string`);
    out[k] = o[k] as string;
  }
  if (out.iologDir !== '') out.iologDir = p(out.iologDir);
  if (out.iologFile === '' || out.iologFile.startsWith('/')) throw bad('.iologFile must be a relative template such as "%{seq}"');
  for (const k of ['compress', 'logPasswords'] as const) {
    if (o[k] === undefined) continue;
    if (typeof o[k] !== 'boolean') throw bad(`.${k} must be true or false`);
    out[k] = o[k] as boolean;
  }
  if (o.passprompt !== undefined) {
    if (typeof o.passprompt !== 'string' || o.passprompt === '' || o.passprompt.length > 256) throw bad('.passprompt must be a regular expression of 1-256 characters');
    try {
      new RegExp(o.passprompt);
    } catch (err) {
      throw bad(`.passprompt is not a valid regular expression: ${(err as Error).message}`);
    }
    out.passprompt = o.passprompt;
  }
  for (const k of NUMBERS) {
    if (o[k] === undefined) continue;
    const n = o[k];
    if (typeof n !== 'number' || !Number.isInteger(n) || n < (k === 'maxBytesPerSecond' ? 0 : 1)) throw bad(`.${k} must be a whole number of ${k === 'maxBytesPerSecond' ? 0 : 1} or more`);
    out[k] = n;
  }
  if (o.tls !== undefined && o.tls !== null) {
    const t = o.tls as Record<string, unknown>;
    if (typeof t !== 'object' || typeof t.cert !== 'string' || typeof t.key !== 'string' || (t.ca !== undefined && typeof t.ca !== 'string')) {
      throw bad('.tls must be null or {"cert": PATH, "key": PATH, "ca"?: PATH}');
    }
    out.tls = { cert: p(t.cert), key: p(t.key), ca: typeof t.ca === 'string' ? p(t.ca) : null };
  }
  return out;
}

export interface ListenEntry {
  host: string;
  port: number;
  tls: boolean;
}

/** "HOST:PORT" or "HOST:PORT(tls)"; an IPv6 host in brackets. sudo's defaults: 30343 plain, 30344 TLS. */
export function parseListen(entry: string): ListenEntry {
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+|\*)):(\d{1,5})(\(tls\))?$/.exec(entry.trim());
  const port = m ? Number(m[3]) : NaN;
  if (!m || !(port >= 0 && port <= 65535)) throw evioError('LOGSRV_BAD_LISTEN', `listen entry "${entry}" is not HOST:PORT or HOST:PORT(tls)`);
  const host = m[1] ?? (m[2] === '*' ? '0.0.0.0' : m[2]!);
  return { host, port, tls: m[4] !== undefined };
}
