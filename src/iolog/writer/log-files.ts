// The session's description files, as sudo_logsrvd 1.9.13 writes them:
// - `log`, the legacy three lines (iolog_write_info_file_legacy in lib/iolog/iolog_loginfo.c):
//   `secs:submituser:runuser:rungroup:ttyname:lines:columns`, submitcwd, command + argv[1..];
// - `log.json` at Accept (iolog_write_info_file_json + eventlog_store_json): `{`, timestamp
//   first, then logsrvd's keys in its order, `\n}\n`; after them evio adds the client's other
//   keys (accept-info.ts) and the caller's extra keys, which sudo 1.9.13 clients never send, so
//   for them the file is byte for byte logsrvd's;
// - at exit (store_exit_info_json in logsrvd_local.c): the final `\n}\n` replaced by `,`,
//   run_time (when not zero), signal + dumped_core (when killed), exit_value, `\n}\n`. logsrvd
//   overwrites the file in place; evio writes the new content to a scratch file and renames it
//   over, so a reader sees either the old or the new file, never a broken one.
import { closeSync, constants as C, fchmodSync, fdatasync, fstatSync, openSync, readSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { evioError, isEvioError } from '../../errors.js';
import type { DirHandle } from '../../safe-open.js';
import { INFO_MAX_BYTES } from '../limits.js';
import type { AcceptInfo } from './accept-info.js';
import { SudoJsonWriter, type JsonValue } from './sudo-json.js';
import { isZero } from './time-spec.js';
import type { ExitInfo, TimeSpec } from './types.js';

const fdatasyncAsync = promisify(fdatasync);
const NOFOLLOW = C.O_NOFOLLOW ?? 0;
const NONBLOCK = C.O_NONBLOCK ?? 0;

/** The legacy `log` file. */
export function legacyLog(submit: TimeSpec, a: AcceptInfo): string {
  let cmd = a.command;
  if (a.runargv) for (let i = 1; i < a.runargv.length; i++) cmd += ` ${a.runargv[i]}`;
  return `${submit.sec}:${a.submituser}:${a.runuser}:${a.rungroup ?? ''}:${a.ttyname}:${a.lines}:${a.columns}\n${a.cwd}\n${cmd}\n`;
}

/** log.json as written at Accept; `extra` keys replace keys of the same name or come last. */
export function logJson(submit: TimeSpec, a: AcceptInfo, extra?: Record<string, unknown>): string {
  const members: [string, JsonValue][] = [['timestamp', { seconds: submit.sec, nanoseconds: submit.nsec }], ['submituser', a.submituser], ['command', a.command], ['runuser', a.runuser]];
  if (a.rungroup !== null) members.push(['rungroup', a.rungroup]);
  if (a.runchroot !== null) members.push(['runchroot', a.runchroot]);
  members.push(['runcwd', a.runcwd], ['ttyname', a.ttyname], ['submithost', a.submithost], ['submitcwd', a.cwd]);
  if (a.rungroup !== null && a.rungid !== null) members.push(['rungid', a.rungid]);
  if (a.runuid !== null) members.push(['runuid', a.runuid]);
  members.push(['columns', a.columns], ['lines', a.lines]);
  if (a.runargv) members.push(['runargv', a.runargv]);
  if (a.runenv) members.push(['runenv', a.runenv]);
  for (const [k, v] of a.others) members.push([k, v]);
  if (extra) {
    for (const [k, v] of Object.entries(extra)) {
      const value = toJsonValue(v);
      if (value === undefined) continue;
      const at = members.findIndex((m) => m[0] === k);
      if (at >= 0) members[at] = [k, value];
      else members.push([k, value]);
    }
  }
  const w = new SudoJsonWriter(4);
  for (const [k, v] of members) w.add(k, v);
  return `{${w.text}\n}\n`;
}

/** A caller's value as JSON (as JSON.stringify would see it); undefined for what JSON cannot hold. */
function toJsonValue(v: unknown): JsonValue | undefined {
  if (v === undefined || typeof v === 'function' || typeof v === 'symbol') return undefined;
  if (typeof v === 'bigint') return Number(v);
  return JSON.parse(JSON.stringify(v)) as JsonValue;
}

/** What logsrvd appends at exit: the members (without the leading comma). */
export function exitMembers(exit: ExitInfo): string {
  const w = new SudoJsonWriter(4);
  if (exit.runTime && !isZero(exit.runTime)) w.add('run_time', { seconds: exit.runTime.sec, nanoseconds: exit.runTime.nsec });
  if (exit.signal) {
    w.add('signal', exit.signal);
    w.add('dumped_core', exit.dumpedCore === true);
  }
  w.add('exit_value', exit.exitValue);
  if (exit.error) w.add('error', exit.error);
  if (exit.redactions && Object.keys(exit.redactions).length > 0) w.add('redactions', { ...exit.redactions });
  return w.text;
}

const CLOSING = Buffer.from('\n}\n');

/** log.json with the exit appended as logsrvd appends it; IOLOG_BAD_INFO when it does not end in `\n}\n`. */
export function withExit(logJsonBytes: Buffer, exit: ExitInfo, shown: string): Buffer {
  const n = logJsonBytes.length;
  if (n < 4 || !logJsonBytes.subarray(n - 3).equals(CLOSING)) {
    throw evioError('IOLOG_BAD_INFO', `${shown} does not end with "\\n}\\n" as the writer left it; the exit is not appended`);
  }
  return Buffer.concat([logJsonBytes.subarray(0, n - 3), Buffer.from(`,${exitMembers(exit)}\n}\n`)]);
}

function ioError(err: unknown, what: string): unknown {
  return isEvioError(err) ? err : evioError('IOLOG_WRITE', `cannot write ${what}: ${(err as Error).message}`, err);
}

/**
 * Writes `name` in `dir` as a whole: a scratch file (mode `mode`, fdatasync'ed), renamed over
 * the name. The caller syncs the directory when the rename must be durable.
 */
export async function writeFileAtomic(dir: DirHandle, name: string, data: Uint8Array, mode: number): Promise<void> {
  const tmp = `${name}.tmp-${randomBytes(6).toString('hex')}`;
  let fd = -1;
  try {
    fd = openSync(dir.at(tmp), C.O_WRONLY | C.O_CREAT | C.O_EXCL | NOFOLLOW, mode);
    fchmodSync(fd, mode);
    let off = 0;
    while (off < data.length) off += writeSync(fd, data, off, data.length - off, off);
    await fdatasyncAsync(fd);
    closeSync(fd);
    fd = -1;
    renameSync(dir.at(tmp), dir.at(name));
  } catch (err) {
    if (fd >= 0) closeSync(fd);
    try {
      unlinkSync(dir.at(tmp));
    } catch {
      // not created, or already renamed
    }
    throw ioError(err, dir.shown(name));
  }
}

/**
 * Writes the new files of a freshly claimed session directory (nobody else writes there, so no
 * temp file and rename is needed) and syncs them all at once; the caller syncs the directory.
 */
export async function writeNewFiles(dir: DirHandle, files: readonly { name: string; data: Uint8Array }[], mode: number): Promise<void> {
  const fds: number[] = [];
  let current = '';
  try {
    for (const f of files) {
      current = f.name;
      const fd = openSync(dir.at(f.name), C.O_WRONLY | C.O_CREAT | C.O_EXCL | NOFOLLOW, mode);
      fds.push(fd);
      fchmodSync(fd, mode);
      let off = 0;
      while (off < f.data.length) off += writeSync(fd, f.data, off, f.data.length - off, off);
    }
    current = files.map((f) => f.name).join(', ');
    await Promise.all(fds.map((fd) => fdatasyncAsync(fd)));
  } catch (err) {
    throw ioError(err, dir.shown(current));
  } finally {
    for (const fd of fds) closeSync(fd);
  }
}

/** Reads a small file of the session (no symlink, regular, at most INFO_MAX_BYTES); null when missing. */
export function readSessionFile(dir: DirHandle, name: string): Buffer | null {
  let fd: number;
  try {
    fd = openSync(dir.at(name), C.O_RDONLY | NOFOLLOW | NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw evioError('IOLOG_BAD_INFO', `cannot read ${dir.shown(name)}: ${(err as Error).message}`, err);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw evioError('NOT_A_REGULAR_FILE', `${dir.shown(name)} is not a regular file; it is not read`);
    if (st.size > INFO_MAX_BYTES) throw evioError('IOLOG_BAD_INFO', `${dir.shown(name)} is ${st.size} bytes; the limit is ${INFO_MAX_BYTES}`);
    const buf = Buffer.allocUnsafe(st.size);
    let off = 0;
    while (off < buf.length) {
      const n = readSync(fd, buf, off, buf.length - off, off);
      if (n === 0) break;
      off += n;
    }
    return buf.subarray(0, off);
  } finally {
    closeSync(fd);
  }
}
