// From a keystroke (K) event to its recorded session: the record's `iolog` field is the
// session's path as sudo wrote it. Inside an I/O log root it is usable as is as `file=` of every
// I/O-log call; this resolves it (symlinks included, system directories refused), says which
// root it lies under and its path relative to that root, and reads the session's identity so a
// caller can check it is the event's (same uniqueid) and link back to the accept and finish
// events by that uniqueid.
import { relative } from 'node:path';
import { evioError, isEvioError } from '../errors.js';
import { resolveIologPath, sessionAt, openSessionOfKind } from './locate.js';
import { realOrNull } from '../paths.js';

export interface EventSession {
  /** The event's iolog field, as given. */
  iolog: string;
  /** The session's real path (what `file=` answers carry). */
  path: string;
  /** The I/O log root it lies under, and the path relative to it (usable as `file=`). */
  root: string;
  file: string;
  format: 'sudo' | 'asciicast';
  uniqueid: string;
  submituser: string;
  submithost: string;
  runuser: string;
  runhost: string;
  runcmd: string;
  cwd: string;
  ttyname: string;
  cols: number;
  rows: number;
  /** Unix seconds the session started. */
  start: number;
}

export async function resolveEventSession(roots: readonly string[], iolog: string): Promise<EventSession> {
  let real: string;
  try {
    real = resolveIologPath(roots, iolog, 'iolog');
  } catch (err) {
    if (isEvioError(err, 'NOT_FOUND')) throw evioError('IOLOG_EVENT_SESSION_MISSING', `iolog "${iolog.slice(0, 300)}" names no session (it does not exist)`);
    throw err;
  }
  const s = await sessionAt(real);
  if (!s) throw evioError('IOLOG_EVENT_SESSION_MISSING', `iolog "${iolog.slice(0, 300)}" is not a session directory or asciicast file`);
  const info = await openSessionOfKind(s.kind, s.path).info();
  const root = roots.map((r) => realOrNull(r) ?? r).find((r) => s.path === r || s.path.startsWith(r.endsWith('/') ? r : `${r}/`)) ?? roots[0]!;
  return {
    iolog,
    path: s.path,
    root,
    file: relative(root, s.path),
    format: s.kind,
    uniqueid: info.uuid,
    submituser: info.submituser,
    submithost: info.submithost,
    runuser: info.runuser,
    runhost: info.runhost,
    runcmd: info.runcmd,
    cwd: info.cwd,
    ttyname: info.ttyname,
    cols: info.cols,
    rows: info.rows,
    start: info.startSec + info.startNsec / 1e9,
  };
}
