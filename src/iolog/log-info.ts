// The session's description: `log.json` (sudo 1.9.0+, preferred, as sudoreplay does) or the
// legacy three-line `log`. sudo's JSON writer copies bytes >= 0x80 raw, so log.json may hold
// invalid UTF-8: it is decoded with replacement characters instead of failing. sudo_logsrvd
// appends exit info later (run_time, exit_value, signal) by rewriting the closing brace; a
// reader that catches it mid-rewrite sees invalid JSON and falls back to `log`.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { evioError } from '../errors.js';
import { JSON_MAX_DEPTH, jsonTextTooDeep } from '../json-depth.js';
import { openNoFollow } from './decoded-file.js';
import { INFO_MAX_BYTES } from './limits.js';

export type Variables = Record<string, unknown>;

/** What the engine needs from the variables, with sudo's defaults. */
export interface SessionInfo {
  /** Wall-clock start, Unix seconds + nanoseconds. */
  startSec: number;
  startNsec: number;
  cols: number;
  rows: number;
  submituser: string;
  submithost: string;
  runuser: string;
  runhost: string;
  /** Command and arguments joined by spaces. */
  runcmd: string;
  /** The argument vector as run (argv[0] as given, not resolved), joined by spaces. */
  runargv: string;
  /** Where the command ran: runcwd, else cwd, else the submitting user's cwd. */
  cwd: string;
  ttyname: string;
  term: string;
  uuid: string;
}

/**
 * Reads a small session file (never through a symlink, never a FIFO or device: openNoFollow);
 * null when it does not exist.
 */
export async function readSmallFile(path: string): Promise<Buffer | null> {
  const fh = await openNoFollow(path);
  if (!fh) return null;
  try {
    const st = await fh.stat();
    if (st.size > INFO_MAX_BYTES) throw evioError('IOLOG_BAD_INFO', `${path} is ${st.size} bytes; the limit is ${INFO_MAX_BYTES}`);
    return await readFile(fh);
  } finally {
    await fh.close();
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: false });

/**
 * log.json text to variables, or why it gives none: not one JSON object, or nested deeper than
 * JSON_MAX_DEPTH (such variables could not be passed on from a worker nor serialised).
 */
export function parseLogJson(bytes: Uint8Array): Variables | string {
  const text = utf8.decode(bytes);
  if (jsonTextTooDeep(text)) return `log.json nests deeper than ${JSON_MAX_DEPTH} levels`;
  try {
    const v: unknown = JSON.parse(text);
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Variables;
  } catch {
    // not JSON: said below
  }
  return 'log.json is not a JSON object';
}

/**
 * The legacy `log`: `secs:user:runuser:rungroup:tty[:lines:cols]`, cwd, command line. Keys are
 * named as log.json names them; `command` is the whole third line, as sudo's own parser keeps it.
 */
export function parseLegacyLog(bytes: Uint8Array): Variables | null {
  const text = utf8.decode(bytes);
  const lines = text.split('\n');
  if (lines.length < 4) return null; // three lines, each ended by \n
  const first = lines[0]!.split(':');
  if (first.length < 5) return null;
  const [secs, submituser, runuser, rungroup, ttyname] = first as [string, string, string, string, string];
  if (!/^\d{1,15}$/.test(secs)) return null;
  const v: Variables = { timestamp: { seconds: Number(secs), nanoseconds: 0 }, submituser, runuser };
  if (rungroup !== '') v.rungroup = rungroup;
  v.ttyname = ttyname;
  const rows = first[5] !== undefined && /^\d{1,9}$/.test(first[5]) ? Number(first[5]) : 0;
  const cols = first[6] !== undefined && /^\d{1,9}$/.test(first[6]) ? Number(first[6]) : 0;
  if (rows > 0) v.lines = rows;
  if (cols > 0) v.columns = cols;
  v.submitcwd = lines[1]!;
  v.command = lines[2]!;
  return v;
}

export interface LoadedVariables {
  source: 'log.json' | 'log';
  variables: Variables;
  /** Why log.json was not used although it exists (read from the legacy log instead). */
  problem?: string;
}

/** log.json if it parses, else `log`; throws IOLOG_BAD_INFO when neither does. */
export async function readSudoVariables(dir: string): Promise<LoadedVariables> {
  const json = await readSmallFile(join(dir, 'log.json'));
  let jsonProblem = 'no log.json';
  if (json) {
    const v = parseLogJson(json);
    if (typeof v !== 'string') return { source: 'log.json', variables: v };
    jsonProblem = v;
  }
  const legacy = await readSmallFile(join(dir, 'log'));
  if (legacy) {
    const v = parseLegacyLog(legacy);
    if (v) return { source: 'log', variables: v, ...(json ? { problem: jsonProblem } : {}) };
  }
  throw evioError('IOLOG_BAD_INFO', `${dir}: ${jsonProblem} and ${legacy ? 'log is not valid' : 'no log file'}`);
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '';
}
function posInt(v: unknown, dflt: number): number {
  return typeof v === 'number' && Number.isInteger(v) && v > 0 && v <= 0x7fffffff ? v : dflt;
}

/** The `K=V` value of `key` in an environment array. */
/** The value of KEY in a sudo environment list (`["KEY=value", ...]`), '' when absent. */
export function envValue(env: unknown, key: string): string {
  if (!Array.isArray(env)) return '';
  const prefix = `${key}=`;
  for (const e of env) if (typeof e === 'string' && e.startsWith(prefix)) return e.slice(prefix.length);
  return '';
}

/** Normalises sudo variables (log.json or legacy) to the fields the engine uses. */
export function sudoInfo(v: Variables): SessionInfo {
  const ts = v.timestamp as { seconds?: unknown; nanoseconds?: unknown } | undefined;
  const startSec = typeof ts?.seconds === 'number' && Number.isSafeInteger(ts.seconds) && ts.seconds >= 0 ? ts.seconds : 0;
  const ns = ts?.nanoseconds;
  const startNsec = typeof ns === 'number' && Number.isInteger(ns) && ns >= 0 && ns < 1e9 ? ns : 0;
  const command = str(v.command);
  let runcmd = command;
  if (Array.isArray(v.runargv) && v.runargv.length > 0) {
    const args = v.runargv.slice(1).map(str);
    runcmd = [command || str(v.runargv[0]), ...args].join(' ');
  }
  const submithost = str(v.submithost);
  return {
    startSec,
    startNsec,
    cols: posInt(v.columns, 80),
    rows: posInt(v.lines, 24),
    submituser: str(v.submituser),
    submithost,
    runuser: str(v.runuser) || 'root',
    // sudo runs the command where it was submitted; a log server may say otherwise.
    runhost: str(v.runhost) || submithost,
    runcmd,
    runargv: Array.isArray(v.runargv) && v.runargv.length > 0 ? v.runargv.map(str).join(' ') : command,
    cwd: str(v.runcwd) || str(v.cwd) || str(v.submitcwd),
    ttyname: str(v.ttyname),
    term: envValue(v.runenv, 'TERM') || envValue(v.submitenv, 'TERM') || 'xterm',
    uuid: str(v.uuid),
  };
}
