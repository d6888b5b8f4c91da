// From a keystroke (K) event to its recorded session: the record's `iolog` field is the
// session's path as sudo wrote it. Inside an I/O log root it is usable as is as `file=` of every
// I/O-log call; this resolves it (symlinks included, system directories refused), says which
// root it lies under and its path relative to that root, and reads the session's identity so a
// caller can check it is the event's (same uniqueid) and link back to the accept and finish
// events by that uniqueid.
import { basename, dirname, join, relative } from 'node:path';
import { evioError, isEvioError } from '../errors.js';
import { resolveIologPath, sessionAt, openSessionOfKind, readDirents } from './locate.js';
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

/**
 * `near` (Unix seconds, the event's time) chooses among the directories an unexpanded
 * `…XXXXXX` template could name (sudo 1.9.13 logs the template, not the directory it made).
 */
export async function resolveEventSession(roots: readonly string[], iolog: string, near?: number): Promise<EventSession> {
  let real: string;
  try {
    real = resolveIologPath(roots, iolog, 'iolog');
  } catch (err) {
    if (!isEvioError(err, 'NOT_FOUND')) throw err;
    const expanded = await expandTemplate(roots, iolog, near);
    if (!expanded) throw evioError('IOLOG_EVENT_SESSION_MISSING', `iolog "${iolog.slice(0, 300)}" names no session (it does not exist)`);
    real = expanded;
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

/**
 * sudo 1.9.13 writes iolog_file's template into its event logs unexpanded (`…/nobody-20261122-
 * XXXXXX` for the directory `…-FLddxr` it created): the session directories beside it whose
 * names are the template with the trailing X's replaced one for one. One such session is it;
 * among several, the one that started nearest `near` (within a minute), else none is chosen.
 */
async function expandTemplate(roots: readonly string[], iolog: string, near: number | undefined): Promise<string | null> {
  const name = basename(iolog);
  const xs = /X{6,}$/.exec(name);
  if (!xs) return null;
  let dir: string;
  try {
    dir = resolveIologPath(roots, dirname(iolog), 'iolog');
  } catch (err) {
    if (isEvioError(err, 'NOT_FOUND')) return null;
    throw err;
  }
  const prefix = name.slice(0, xs.index);
  const found: { path: string; start: number }[] = [];
  for (const d of await readDirents(dir)) {
    if (!d.isDirectory() || d.name.length !== name.length || !d.name.startsWith(prefix)) continue;
    const s = await sessionAt(join(dir, d.name));
    if (!s || s.kind !== 'sudo') continue;
    const info = await openSessionOfKind(s.kind, s.path).info().catch(() => null);
    if (info) found.push({ path: s.path, start: info.startSec + info.startNsec / 1e9 });
  }
  if (found.length === 1) return found[0]!.path;
  if (near === undefined || !found.length) return null;
  const best = found.sort((a, b) => Math.abs(a.start - near) - Math.abs(b.start - near))[0]!;
  return Math.abs(best.start - near) <= 60 ? best.path : null;
}
