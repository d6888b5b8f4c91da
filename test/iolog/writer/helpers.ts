// Shared by the writer's tests: temp roots, an Accept's info as sudo 1.9.13 sends it, the
// session read back through evio's own reader, and the real sudoreplay.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SudoSession } from '../../../src/iolog/sudo-session.js';
import type { StreamName } from '../../../src/iolog/timing.js';
import type { InfoValue, IologWriterOptions } from '../../../src/iolog/writer/types.js';

export const SUDOREPLAY = '/usr/bin/sudoreplay';
/** sudoreplay runs where it is installed, and always in CI (where a missing one must fail). */
export const runSudoreplay = existsSync(SUDOREPLAY) || process.env.CI === 'true';

export function tempRoot(prefix = 'evio-writer-'): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

export function removeRoot(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

export function writerOptions(root: string, over: Partial<IologWriterOptions> = {}): IologWriterOptions {
  return { dir: root, file: '%{seq}', roots: [root], compress: false, fileMode: 0o600, timeZone: 'UTC', ...over };
}

/** The InfoMessages sudo 1.9.13's log client sends (log_client.c fmt_info_messages order). */
export function sudoInfo(over: Record<string, InfoValue | undefined> = {}): Map<string, InfoValue> {
  const base: Record<string, InfoValue | undefined> = {
    columns: 80,
    command: '/usr/bin/bash',
    lines: 24,
    runargv: ['bash', '-c', "printf 'a b'"],
    runcwd: '/root',
    runenv: ['TERM=xterm-256color', 'HOME=/root'],
    runuid: 0,
    runuser: 'root',
    submitcwd: '/home/alice',
    submithost: 'web01',
    submituser: 'alice',
    ttyname: '/dev/pts/3',
    ...over,
  };
  const m = new Map<string, InfoValue>();
  for (const [k, v] of Object.entries(base)) if (v !== undefined) m.set(k, v);
  return m;
}

export interface ReadBack {
  streams: Record<StreamName, Buffer>;
  /** Every event in order: data as "stream:len", winch as "winch:RxC", signal as "signal:NAME", with its time. */
  events: string[];
  warnings: string[];
}

/** The session through evio's own reader (src/iolog/sudo-session.ts). */
export async function readBack(dir: string): Promise<ReadBack> {
  const s = new SudoSession(dir);
  const parts: Record<StreamName, Buffer[]> = { stdin: [], stdout: [], stderr: [], ttyin: [], ttyout: [] };
  const events: string[] = [];
  let cur: { key: string; len: number } | null = null;
  const push = () => {
    if (cur) events.push(`${cur.key}:${cur.len}`);
    cur = null;
  };
  for await (const ev of s.events()) {
    const at = `${ev.sec}.${String(ev.nsec).padStart(9, '0')}`;
    if (ev.kind === 'data') {
      parts[ev.stream].push(Buffer.from(ev.bytes));
      if (ev.first) {
        push();
        cur = { key: `${at} ${ev.stream}`, len: 0 };
      }
      cur!.len += ev.bytes.length;
    } else if (ev.kind === 'winch') {
      push();
      events.push(`${at} winch:${ev.rows}x${ev.cols}`);
    } else if (ev.kind === 'signal') {
      push();
      events.push(`${at} signal:${ev.signal}`);
    }
  }
  push();
  const streams = Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, Buffer.concat(v)])) as Record<StreamName, Buffer>;
  return { streams, events, warnings: s.warnings };
}

export interface Replay {
  status: number | null;
  stdout: Buffer;
  stderr: string;
}

/** sudoreplay with a fixed zone and a large "terminal" (no size warning), no pauses for -n runs. */
export function sudoreplay(args: string[]): Replay {
  const r = spawnSync(SUDOREPLAY, args, { env: { ...process.env, TZ: 'UTC', LINES: '500', COLUMNS: '500' }, timeout: 30_000 });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr.toString() };
}

/** What `sudoreplay -n` prints for a session: its header, the data, then the header's CR LF (stdio buffering). */
export function replayed(command: string, argv: readonly string[], data: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`Replaying sudo session: ${[command, ...argv.slice(1)].join(' ')}`), data, Buffer.from('\r\n')]);
}
