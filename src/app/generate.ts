// `evio generate events|sessions`: deterministic synthetic data of any size, written with
// backpressure (events) or session by session (sudo I/O log directories).
import { createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { generateEvents, recordLine, type KeyOrder } from '../eventlog/generate.js';

export { KEY_ORDERS, type KeyOrder } from '../eventlog/generate.js';
import { generateSessions } from '../iolog/generate-sessions.js';
import { writeEventSession } from '../iolog/generate-shell-session.js';

export interface GenerateEventsRequest {
  count: number;
  seed: number;
  /** Unix seconds of the first record (default: the generator's own start). */
  start?: number | undefined;
  out: string;
  /**
   * Write the session of every keystroke (K) record under this I/O log root (its `iolog` field
   * points there): the event's uniqueid, users, hosts, command and cwd, a shell session with
   * typed commands for bash and sh.
   */
  iologRoot?: string | undefined;
  /** With iologRoot: about this many sessions at most (fewer K records, the rest plain accepts). */
  maxSessions?: number | undefined;
  /** evio's key order (default), another program's (recnum last), or no recnum at all. */
  keyOrder?: KeyOrder | undefined;
  /** Distinct submitting users and hosts (defaults 200 and 300). */
  users?: number | undefined;
  hosts?: number | undefined;
  signal?: AbortSignal;
  onProgress?: (written: number) => void;
}

/**
 * Share of K records kept so that about `max` sessions are written for `count` events: about
 * half the records are new requests (the rest finishes), a fifth of those K.
 */
function keystrokeShare(count: number, max: number | undefined): number {
  if (max === undefined || count === 0) return 1;
  return Math.min(1, max / (count * 0.11));
}

/** Writes the NDJSON event log (and the K records' sessions); returns what was written. */
export async function generateEventLog(r: GenerateEventsRequest): Promise<{ events: number; path: string; sessions?: number; iologRoot?: string }> {
  const path = resolve(r.out);
  await mkdir(dirname(path), { recursive: true });
  const ws = createWriteStream(path);
  const iologRoot = r.iologRoot !== undefined ? resolve(r.iologRoot) : undefined;
  const opts = {
    count: r.count,
    seed: r.seed,
    ...(r.start !== undefined ? { start: r.start } : {}),
    ...(r.users !== undefined ? { users: r.users } : {}),
    ...(r.hosts !== undefined ? { hosts: r.hosts } : {}),
    ...(iologRoot !== undefined ? { iologRoot, keystrokeShare: keystrokeShare(r.count, r.maxSessions) } : {}),
  };
  let buf = '';
  let n = 0;
  let sessions = 0;
  // Sessions written whose finish has not come yet: the finish's exit status is then added to
  // the session's log.json, as sudo_logsrvd does (exit_value), so the session list says how it
  // ended, as its finish event does.
  const unfinished = new Map<string, string>();
  for (const rec of generateEvents(opts)) {
    if (rec.etype === 'F' && unfinished.has(rec.uniqueid)) {
      addExitToLogJson(unfinished.get(rec.uniqueid)!, rec.exitcode);
      unfinished.delete(rec.uniqueid);
    }
    if (iologRoot !== undefined && rec.etype === 'K' && rec.iolog) {
      unfinished.set(rec.uniqueid, rec.iolog);
      writeEventSession(rec.iolog, {
        uniqueid: rec.uniqueid,
        submituser: rec.submituser ?? 'root',
        submithost: rec.submithost ?? 'localhost',
        runuser: rec.runuser ?? 'root',
        runhost: rec.runhost ?? rec.submithost ?? 'localhost',
        command: rec.runcommand ?? '/bin/bash',
        argv: rec.runargv ?? ['bash'],
        cwd: rec.cwd ?? '/',
        ttyname: rec.ttyname ?? '/dev/pts/0',
        time: rec.time,
        seed: r.seed * 7919 + rec.recnum,
      });
      sessions++;
    }
    buf += `${recordLine(rec, r.keyOrder)}\n`;
    if (++n % 2000 === 0) {
      if (!ws.write(buf)) await new Promise<void>((done) => ws.once('drain', () => done()));
      buf = '';
      if (n % 100_000 === 0) r.onProgress?.(n);
      if (r.signal?.aborted) break;
    }
  }
  await new Promise<void>((done, fail) => {
    ws.once('error', fail);
    ws.end(buf, () => done());
  });
  return { events: n, path, ...(iologRoot !== undefined ? { sessions, iologRoot } : {}) };
}

export function generateSessionTree(r: { count: number; seed: number; out: string; onProgress?: (n: number) => void }): { sessions: number; bytes: number; out: string } {
  const out = resolve(r.out);
  const res = generateSessions({ count: r.count, seed: r.seed, out, ...(r.onProgress ? { onProgress: r.onProgress } : {}) });
  return { sessions: res.sessions, bytes: res.bytes, out };
}

/** sudo_logsrvd's exit_value in a generated session's log.json (a command killed by signal N: 128 + N). */
function addExitToLogJson(dir: string, code: number | undefined): void {
  if (code === undefined) return;
  const path = join(dir, 'log.json');
  const info = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  writeFileSync(path, `${JSON.stringify({ ...info, exit_value: code }, null, 4)}\n`);
}
