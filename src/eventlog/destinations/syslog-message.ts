// One event as an RFC 5424 syslog message:
//   <PRI>1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID - MSG
// - PRI: facility (authpriv, 10, unless the target says ?facility=) × 8 + severity: info (6) for
//   accepts and finishes, notice (5) for rejects, warning (4) for alerts (reject records whose
//   exitstatus starts "Alert:", as imports of sudo's alerts store them);
// - TIMESTAMP: the event's own time (when sudo decided), UTC, milliseconds; "-" if it has none
//   a date can show;
// - HOSTNAME, APP-NAME, PROCID: this host, "evio", evio's pid (evio sends the message; the sudo
//   host is in MSG as HOST=);
// - MSGID: sudo-accept, sudo-accept-iolog, sudo-reject, sudo-alert, sudo-finish (the names of the
//   SIEM exports, docs/siem.md);
// - no structured data ("-");
// - MSG: a line in the form of sudo's own log, whose fields evio's sudo-text parser reads back
//   (when the record names a host, tty, directory or run-as user: the first field must be one):
//     alice : HOST=web1 ; TTY=/dev/pts/0 ; PWD=/home/alice ; USER=root ; RECNUM=7 ;
//     UNIQUEID=u1 ; COMMAND=/bin/ls -l /tmp
//   COMMAND is the command's path and then its arguments (runargv after its first), as sudo logs
//   it; a reject starts with its reason (`alice : command not allowed ; HOST=...`), a finish ends
//   with `; SIGNAL=NAME ; EXIT=N` as far as they are known. RECNUM and UNIQUEID name the record
//   in evio: delivery is at-least-once, and RECNUM lets a consumer drop a repeat. Control
//   characters are written #ooo (octal), as sudo does; an argument holding a space, a quote or a
//   backslash is single-quoted with ' and \ backslash-escaped. No BOM: MSG is MSG-ANY (UTF-8).
// The whole message is at most `maxBytes` (2048 by default, what RFC 5424 §6.1 says receivers
// SHOULD accept): a longer MSG is cut at a character boundary and ends with "...".
import { hostname } from 'node:os';
import type { StoredEvent } from '../types.js';

export interface SyslogFormat {
  facility: number;
  /** HOSTNAME field; default this host's name. */
  hostname?: string;
  /** APP-NAME field; default "evio". */
  appName?: string;
  /** PROCID field; default evio's pid. */
  procId?: string;
  /** The most bytes one message may have; default 2048. */
  maxBytes?: number;
}

export const SEVERITY = { warning: 4, notice: 5, info: 6 } as const;
export const DEFAULT_MAX_SYSLOG_BYTES = 2048;

const isAlert = (rec: StoredEvent): boolean => rec.etype === 'R' && typeof rec.exitstatus === 'string' && rec.exitstatus.startsWith('Alert:');

export function severityOf(rec: StoredEvent): number {
  if (rec.etype === 'R') return isAlert(rec) ? SEVERITY.warning : SEVERITY.notice;
  return SEVERITY.info;
}

export function msgIdOf(rec: StoredEvent): string {
  switch (rec.etype) {
    case 'A':
      return 'sudo-accept';
    case 'K':
      return 'sudo-accept-iolog';
    case 'F':
      return 'sudo-finish';
    default:
      return isAlert(rec) ? 'sudo-alert' : 'sudo-reject';
  }
}

/** RFC 5424 header fields are PRINTUSASCII (33-126) of a bounded length, or "-". */
function headerField(v: string, max: number): string {
  const s = v.replace(/[^\x21-\x7e]/g, '').slice(0, max);
  return s === '' ? '-' : s;
}

/** The event's time as an RFC 5424 TIMESTAMP (4-digit years only), or "-". */
export function syslogTimestamp(time: number): string {
  const d = new Date(time * 1000);
  const y = d.getUTCFullYear();
  if (!Number.isFinite(d.getTime()) || y < 0 || y > 9999) return '-';
  return d.toISOString();
}

/** sudo's escape of control characters: #ooo. */
function escapeControls(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\x00-\x1f\x7f]/g, (c) => `#${c.charCodeAt(0).toString(8).padStart(3, '0')}`);
}

/** One argument as sudo logs it: quoted when it holds a space, a quote or a backslash. */
function quoteArg(a: string): string {
  return /[ '\\]/.test(a) || a === '' ? `'${a.replace(/[\\']/g, (c) => `\\${c}`)}'` : a;
}

const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? escapeControls(v) : typeof v === 'number' && Number.isFinite(v) ? String(v) : null);

/** The sudo-like summary line (MSG). */
export function summaryLine(rec: StoredEvent): string {
  const parts: string[] = [];
  if (rec.etype === 'R') parts.push(text(rec.reason) ?? text(rec.exitstatus) ?? 'rejected');
  const field = (key: string, v: unknown) => {
    const t = text(v);
    if (t !== null) parts.push(`${key}=${t}`);
  };
  field('HOST', rec.submithost ?? rec.runhost);
  field('TTY', rec.ttyname);
  field('PWD', rec.cwd);
  field('USER', rec.runuser);
  parts.push(`RECNUM=${rec.recnum}`);
  field('UNIQUEID', rec.uniqueid);
  // As sudo logs it: the command's path, then the arguments (runargv[0] is often just "id").
  const argv = Array.isArray(rec.runargv) && rec.runargv.length > 0 && rec.runargv.every((a) => typeof a === 'string') ? rec.runargv : null;
  const path = typeof rec.runcommand === 'string' && rec.runcommand !== '' ? rec.runcommand : (argv?.[0] ?? null);
  const command = path === null ? null : escapeControls([path, ...(argv?.slice(1) ?? [])].map(quoteArg).join(' '));
  if (command !== null) parts.push(`COMMAND=${command}`);
  if (rec.etype === 'F') {
    if (typeof rec.signal === 'string' && /^[A-Za-z0-9+-]+$/.test(rec.signal)) parts.push(`SIGNAL=${rec.signal}`);
    if (Number.isInteger(rec.exitcode)) parts.push(`EXIT=${rec.exitcode}`);
  }
  return `${text(rec.submituser) ?? '-'} : ${parts.join(' ; ')}`;
}

/** The whole message, as bytes, at most maxBytes. */
export function syslogMessage(rec: StoredEvent, f: SyslogFormat): Buffer {
  const pri = f.facility * 8 + severityOf(rec);
  const header = `<${pri}>1 ${syslogTimestamp(rec.time)} ${headerField(f.hostname ?? hostname(), 255)} ${headerField(f.appName ?? 'evio', 48)} ${headerField(f.procId ?? String(process.pid), 128)} ${msgIdOf(rec)} - `;
  const max = f.maxBytes ?? DEFAULT_MAX_SYSLOG_BYTES;
  const head = Buffer.from(header, 'latin1');
  const msg = Buffer.from(summaryLine(rec), 'utf8');
  if (head.length + msg.length <= max) return Buffer.concat([head, msg]);
  // Cut at a character boundary: never inside a UTF-8 sequence (continuation bytes are 10xxxxxx).
  let cut = Math.max(0, max - head.length - 3);
  while (cut > 0 && (msg[cut]! & 0xc0) === 0x80) cut--;
  return Buffer.concat([head, msg.subarray(0, cut), Buffer.from('...')]);
}
