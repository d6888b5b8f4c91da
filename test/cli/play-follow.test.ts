// `evio iolog play --follow` in a real terminal (tmux, a server of its own): a session still
// being written (its timing file writable, as sudo and the log server leave it while recording)
// is played as records are appended, and the player ends once the session is marked complete
// (timing without write bits), or when q is pressed. Waits poll with a deadline.
import { appendFileSync, chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, tempDir } from '../iolog/helpers.js';

const BIN = new URL('../../bin/evio.js', import.meta.url).pathname;
const DEADLINE_MS = 30_000;
let home: string;
let config: string;
const sockets: string[] = [];

function tmux(socket: string, ...args: string[]): { code: number | null; out: string } {
  const r = spawnSync('tmux', ['-L', socket, ...args], { encoding: 'utf8', timeout: 10_000 });
  return { code: r.status, out: r.stdout };
}

async function until(what: string, probe: () => boolean): Promise<void> {
  const end = Date.now() + DEADLINE_MS;
  while (!probe()) {
    if (Date.now() > end) throw new Error(`no ${what} within ${DEADLINE_MS} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A session being recorded: log.json, a writable timing, ttyout so far. */
function liveSession(dir: string, first: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'log.json'), JSON.stringify({ timestamp: { seconds: 1767225600, nanoseconds: 0 }, submituser: 'alice', runuser: 'root', command: '/usr/bin/bash', runargv: ['bash'], columns: 80, lines: 24 }));
  writeFileSync(join(dir, 'log'), '1767225600:alice:root::/dev/pts/1:24:80\n/home/alice\n/usr/bin/bash\n');
  writeFileSync(join(dir, 'ttyout'), first);
  writeFileSync(join(dir, 'timing'), `4 0.010000000 ${Buffer.byteLength(first)}\n`, { mode: 0o600 });
}

function append(dir: string, text: string): void {
  // Stream bytes first, then the timing line that names them, as the writers do.
  appendFileSync(join(dir, 'ttyout'), text);
  appendFileSync(join(dir, 'timing'), `4 0.050000000 ${Buffer.byteLength(text)}\n`);
}

function play(session: string): string {
  const socket = `evio-follow-${process.pid}-${sockets.length}`;
  sockets.push(socket);
  expect(tmux(socket, '-f', '/dev/null', 'new-session', '-d', '-s', 'audit', '-x', '100', '-y', '30', 'sh').code).toBe(0);
  tmux(socket, 'send-keys', '-t', 'audit', '-l', `${process.execPath} ${BIN} --config ${config} iolog play ${session} --follow; echo "PLAY-EXIT-$?"`);
  tmux(socket, 'send-keys', '-t', 'audit', 'Enter');
  return socket;
}

const screen = (socket: string) => tmux(socket, 'capture-pane', '-p', '-t', 'audit').out;

beforeAll(() => {
  home = tempDir('evio-play-follow-');
  config = join(home, 'config.json');
  writeFileSync(config, JSON.stringify({ home, iologdirs: [join(home, 'iolog')], iologcache: join(home, 'index.sqlite'), workers: 1, interactiveWorkers: 1 }));
});

afterAll(() => {
  for (const s of sockets) tmux(s, 'kill-server');
  removeDir(home);
});

describe('evio iolog play --follow in a real terminal', () => {
  it('plays records as they are appended and ends when the session is complete', async () => {
    const dir = join(home, 'iolog', '00', '00', '01');
    liveSession(dir, 'first-line-of-output\r\n');
    const socket = play('00/00/01');
    await until('the first line', () => screen(socket).includes('first-line-of-output'));
    append(dir, 'second-line-appended\r\n');
    await until('the appended line', () => screen(socket).includes('second-line-appended'));
    append(dir, 'third-line-appended\r\n');
    await until('the third line', () => screen(socket).includes('third-line-appended'));
    // Still following: no exit marker yet.
    expect(screen(socket)).not.toMatch(/PLAY-EXIT-\d/);
    append(dir, 'last-line-before-the-end\r\n');
    chmodSync(join(dir, 'timing'), 0o400);
    await until('the exit', () => /PLAY-EXIT-0/.test(screen(socket)));
    expect(screen(socket)).toContain('last-line-before-the-end');
  });

  it('stops following when q is pressed', async () => {
    const dir = join(home, 'iolog', '00', '00', '02');
    liveSession(dir, 'waiting-for-more\r\n');
    const socket = play('00/00/02');
    await until('the first line', () => screen(socket).includes('waiting-for-more'));
    tmux(socket, 'send-keys', '-t', 'audit', 'q');
    await until('the exit', () => /PLAY-EXIT-0/.test(screen(socket)));
  });
});
