// `evio iolog play` in a real pseudo-terminal (util-linux `script`): the bytes it writes are the
// session's output, keys pause and quit, and the terminal's settings are the same afterwards.
// Without a terminal it plays without keys.
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, tempDir } from '../iolog/helpers.js';

const BIN = new URL('../../bin/evio.js', import.meta.url).pathname;
let home: string;
let config: string;

/** A finished sudo session whose output is `frames`, `gapMs` apart. */
function writeSession(dir: string, frames: string[], gapMs: number): Buffer {
  mkdirSync(dir, { recursive: true });
  const out = Buffer.from(frames.join(''), 'utf8');
  const gap = (gapMs / 1000).toFixed(6);
  writeFileSync(join(dir, 'timing'), frames.map((f) => `4 ${gap} ${Buffer.byteLength(f)}\n`).join(''));
  writeFileSync(join(dir, 'ttyout'), out);
  writeFileSync(join(dir, 'log.json'), JSON.stringify({ timestamp: { seconds: 1767225600, nanoseconds: 0 }, submituser: 'alice', runuser: 'root', command: '/usr/bin/bash', runargv: ['bash'], columns: 80, lines: 24 }));
  chmodSync(join(dir, 'timing'), 0o400);
  return out;
}

interface Run {
  stdout: Buffer;
  code: number | null;
  ms: number;
  /** Arrival time (ms since the first output) of each chunk read from the terminal. */
  times: Array<[number, string]>;
}

/** Runs a shell command line in a pty; `keys` are [delay ms after the first output, bytes]. */
function inPty(commandLine: string, keys: Array<[number, string]> = []): Promise<Run & { firstOutputMs: number }> {
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    const child = spawn('script', ['-qfec', commandLine, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    const times: Array<[number, string]> = [];
    let first = -1;
    child.stdout.on('data', (c: Buffer) => {
      chunks.push(c);
      times.push([first < 0 ? 0 : Date.now() - t0 - first, c.toString('utf8')]);
      if (first < 0) {
        first = Date.now() - t0;
        for (const [delay, bytes] of keys) setTimeout(() => child.stdin.write(bytes), delay);
      }
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ stdout: Buffer.concat(chunks), code, ms: Date.now() - t0, firstOutputMs: first, times }));
  });
}

function evio(args: string): string {
  return `${process.execPath} ${BIN} --config ${config} ${args}`;
}

beforeAll(() => {
  home = tempDir('evio-play-');
  const root = join(home, 'iolog');
  config = join(home, 'config.json');
  writeFileSync(config, JSON.stringify({ home, iologdirs: [root], iologcache: join(home, 'index.sqlite'), workers: 1, interactiveWorkers: 1 }));
  writeSession(join(root, 'quick'), ['\x1b[01;31mroot@db01\x1b[00m:~# ', 'l', 's', '\r\n', 'README  data.csv  id_rsa.pub\r\n', 'root@db01:~# ', 'héllo wörld 日本\r\n'], 5);
  writeSession(join(root, 'slow'), Array.from({ length: 20 }, (_, i) => `frame ${i}\r\n`), 400);
  // What the recorded user aims at the auditor's terminal, split over records.
  writeSession(join(root, 'crafted'), ['$ ', '\x1b]52;c;Y3VybCBldmls', 'IHwgc2g=\x07ok', '\x1b]2;t\x1b', '\\\x1b[c\x1b[', '6n\x1b[?1000h\x1b[1mbold\x1b[0m\r\n'], 5);
  // Its command line too is the recorded user's: it names an argument that writes the clipboard.
  const info = JSON.parse(readFileSync(join(root, 'crafted', 'log.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(join(root, 'crafted', 'log.json'), JSON.stringify({ ...info, runargv: ['bash', '\x1b]52;c;ZXZpbA==\x07'] }));
});
afterAll(() => removeDir(home));

describe('evio iolog play', () => {
  it('writes exactly the session output to a terminal, and gives the terminal back as it was', async () => {
    const want = readFileSync(join(home, 'iolog', 'quick', 'ttyout'));
    // -opost: the pty must not turn the session's \n into \r\n again, so bytes compare exactly.
    // Standard error (sudoreplay's "Replaying sudo session" header) is not the session's output.
    const r = await inPty(`stty -opost; A=$(stty -g); ${evio('iolog play quick --speed 8')} 2>/dev/null; B=$(stty -g); [ "$A" = "$B" ] && printf '[restored]'`);
    expect(r.code).toBe(0);
    expect(r.stdout.toString('utf8')).toBe(`${want.toString('utf8')}[restored]`);
  });

  it('q quits at once and restores the terminal', async () => {
    const r = await inPty(`stty -opost; A=$(stty -g); ${evio('iolog play slow')}; B=$(stty -g); [ "$A" = "$B" ] && printf '[restored]'`, [[500, 'q']]);
    const text = r.stdout.toString('utf8');
    expect(text.endsWith('[restored]')).toBe(true);
    const frames = text.match(/frame \d+/g) ?? [];
    expect(frames.length).toBeGreaterThan(0);
    expect(frames.length).toBeLessThan(12); // 20 frames 400 ms apart would take 8 s
    expect(frames).toEqual(Array.from({ length: frames.length }, (_, i) => `frame ${i}`));
  });

  it('space pauses and resumes; > speeds up', async () => {
    const r = await inPty(`stty -opost; ${evio('iolog play slow --speed 2')}`, [[100, ' '], [1600, ' '], [1700, '>>>']]);
    const text = r.stdout.toString('utf8');
    expect(text.match(/frame \d+/g)).toEqual(Array.from({ length: 20 }, (_, i) => `frame ${i}`));
    // At speed 2 frames come 200 ms apart; paused from 100 ms to 1600 ms after the first one,
    // none comes for over a second; after > the rest comes 25 ms apart.
    const arrivals = r.times.filter(([, t]) => t.includes('frame')).map(([ms]) => ms);
    const gaps = arrivals.slice(1).map((ms, i) => ms - arrivals[i]!);
    expect(Math.max(...gaps)).toBeGreaterThan(1100);
    const last = arrivals[arrivals.length - 1]! - arrivals[Math.max(0, arrivals.length - 6)]!;
    expect(last).toBeLessThan(600);
  });

  it('plays without keys when there is no terminal, filters what is not for the screen (not with --raw), and refuses a bad speed with 1452', async () => {
    const want = readFileSync(join(home, 'iolog', 'quick', 'ttyout'));
    const run = (args: string[]) =>
      new Promise<{ out: Buffer; err: string; code: number | null }>((resolve) => {
        const c = spawn(process.execPath, [BIN, '--config', config, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
        const out: Buffer[] = [];
        let err = '';
        c.stdout.on('data', (d: Buffer) => out.push(d));
        c.stderr.on('data', (d: Buffer) => (err += d.toString()));
        c.on('close', (code) => resolve({ out: Buffer.concat(out), err, code }));
      });
    const r = await run(['iolog', 'play', 'quick', '--speed', '64']);
    expect(r.code).toBe(0);
    expect(r.out.equals(want)).toBe(true);
    // --at 4: the screen at 4 s (frames 0-9, 400 ms apart) is drawn, then frames 10-19 play.
    const later = await run(['iolog', 'play', 'slow', '--at', '4.1', '--speed', '64']);
    const text = later.out.toString('utf8');
    expect(text.startsWith('\x1b[?7l\x1b[H\x1b[2J')).toBe(true);
    expect(text).toContain('frame 9');
    expect(text.slice(text.indexOf('frame 9')).match(/frame \d+/g)).toEqual(Array.from({ length: 11 }, (_, i) => `frame ${9 + i}`));
    // The terminal filter: clipboard, title, queries and mouse mode are dropped; --raw keeps them.
    const crafted = await run(['iolog', 'play', 'crafted', '--speed', '64']);
    expect(crafted.code).toBe(0);
    expect(crafted.out.toString('utf8')).toBe('$ ok\x1b[1mbold\x1b[0m\r\n');
    // sudoreplay's header on standard error shows the command's control characters, never sends them.
    expect(crafted.err).toBe('Replaying sudo session: /usr/bin/bash \\x1b]52;c;ZXZpbA==\\x07\n');
    const raw = await run(['iolog', 'play', 'crafted', '--speed', '64', '--raw']);
    expect(raw.out.equals(readFileSync(join(home, 'iolog', 'crafted', 'ttyout')))).toBe(true);
    const bad = await run(['iolog', 'play', 'quick', '--speed', '1000']);
    expect(bad.code).not.toBe(0);
    expect(bad.err).toMatch(/1452/);
  });
});
