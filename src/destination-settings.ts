// The `destinations` settings key: where the events spooled in the flat-file event log are
// forwarded (docs/events.md, "Event destinations"). Read and checked here, once, so that a wrong
// value stops evio at start with a message naming it; the forwarders (src/eventlog/destinations)
// use the parsed forms.
import { evioError } from './errors.js';

export interface DestinationSettings {
  /** An SQLite path, or a key of `databases` (SQLite or PostgreSQL). Never a URL. */
  db?: string;
  /** An ODBC data source name. */
  odbc?: string;
  /** A program and its arguments (no shell), fed NDJSON on its standard input. */
  prog?: string[];
  /** `udp://HOST:PORT` or `tcp://HOST:PORT` on loopback, optionally `?facility=NAME`. */
  syslog?: string;
}

export const DESTINATION_NAMES = ['db', 'odbc', 'prog', 'syslog'] as const;
export type DestinationName = (typeof DESTINATION_NAMES)[number];

/** RFC 5424 §6.2.1 facility codes, by the names syslog.conf uses. */
export const SYSLOG_FACILITIES: Readonly<Record<string, number>> = Object.freeze({
  kern: 0, user: 1, mail: 2, daemon: 3, auth: 4, syslog: 5, lpr: 6, news: 7, uucp: 8, cron: 9, authpriv: 10, ftp: 11,
  local0: 16, local1: 17, local2: 18, local3: 19, local4: 20, local5: 21, local6: 22, local7: 23,
});

export interface SyslogTarget {
  transport: 'udp' | 'tcp';
  /** A loopback address: 127.x.x.x, ::1 or localhost. */
  host: string;
  port: number;
  /** RFC 5424 facility code; authpriv (10) unless `?facility=` names another. */
  facility: number;
}

const SYSLOG_RE = /^(udp|tcp):\/\/(\[::1\]|localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|[^/?#]*?):(\d{1,5})\/?(?:\?facility=([a-z0-9]+))?$/;

function bad(key: string, what: string, source: string): Error {
  return evioError('SETTINGS_INVALID', `${source}: "destinations.${key}" ${what}`);
}

/**
 * `udp://127.0.0.1:514`, `tcp://[::1]:601?facility=local3`. Only loopback: syslog carries the
 * records in clear text, so evio hands them to the local syslog daemon, which relays them on
 * (over TLS) if they must leave the host. A local socket (`unix:/dev/log`) is a datagram socket,
 * which Node cannot write to without a native module: that form is refused with the way around.
 */
export function parseSyslogTarget(text: string, source = 'settings'): SyslogTarget {
  if (/^unix:/.test(text)) {
    throw bad('syslog', `"${text}": a local syslog socket such as /dev/log is a datagram socket, which Node cannot write to without a native module. Let the syslog daemon listen on loopback (rsyslog: module(load="imtcp") input(type="imtcp" address="127.0.0.1" port="601")) and give "tcp://127.0.0.1:601", or use the "prog" destination with logger(1)`, source);
  }
  const m = SYSLOG_RE.exec(text);
  if (!m) throw bad('syslog', `"${text}" must be udp://HOST:PORT or tcp://HOST:PORT, optionally followed by ?facility=NAME`, source);
  const [, transport, rawHost, portText, facilityName] = m as unknown as [string, 'udp' | 'tcp', string, string, string | undefined];
  const host = rawHost === '[::1]' ? '::1' : rawHost;
  const loopback = host === '::1' || host === 'localhost' || (/^127\./.test(host) && host.split('.').every((o) => Number(o) <= 255));
  if (!loopback) {
    throw bad('syslog', `"${text}": the host must be a loopback address (127.0.0.1, [::1] or localhost); records go in clear text, so they are handed to the local syslog daemon, which may relay them over TLS`, source);
  }
  const port = Number(portText);
  if (port < 1 || port > 65535) throw bad('syslog', `"${text}": the port must be 1-65535`, source);
  let facility = SYSLOG_FACILITIES.authpriv!;
  if (facilityName !== undefined) {
    if (!Object.hasOwn(SYSLOG_FACILITIES, facilityName)) throw bad('syslog', `"${text}": unknown facility "${facilityName}" (known: ${Object.keys(SYSLOG_FACILITIES).join(', ')})`, source);
    facility = SYSLOG_FACILITIES[facilityName]!;
  }
  return { transport, host, port, facility };
}

/** Checks the value of `destinations` (from the file or an override); returns a copy. */
export function checkDestinations(v: unknown, source: string): DestinationSettings {
  if (!v || typeof v !== 'object' || Array.isArray(v)) {
    throw evioError('SETTINGS_INVALID', `${source}: "destinations" must be an object with any of ${DESTINATION_NAMES.join(', ')}`);
  }
  const out: DestinationSettings = {};
  for (const [key, value] of Object.entries(v as Record<string, unknown>)) {
    switch (key) {
      case 'db':
      case 'odbc':
        if (typeof value !== 'string' || value === '' || value.includes('\0')) throw bad(key, 'must be a non-empty string', source);
        if (key === 'db' && /^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
          throw bad(key, `must be an SQLite path or a key of "databases", not a URL: name the database in "databases" (its URL may hold a password, and the destinations are listed by GET /events/destinations)`, source);
        }
        out[key] = value;
        break;
      case 'prog':
        if (!Array.isArray(value) || value.length === 0 || value.some((a) => typeof a !== 'string' || a.includes('\0')) || value[0] === '') {
          throw bad(key, 'must be a non-empty array of strings: the program (a path) and its arguments, run without a shell', source);
        }
        out.prog = [...(value as string[])];
        break;
      case 'syslog':
        if (typeof value !== 'string') throw bad(key, 'must be a string: udp://HOST:PORT or tcp://HOST:PORT', source);
        parseSyslogTarget(value, source);
        out.syslog = value;
        break;
      default:
        throw evioError('SETTINGS_INVALID', `${source}: "destinations": unknown destination "${key}" (known: ${DESTINATION_NAMES.join(', ')})`);
    }
  }
  return out;
}
