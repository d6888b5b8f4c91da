// Pieces of the security tests: a minimal sudo session on disk, a child process that swaps a
// directory for a symlink and back in a bounded loop (the "rename dance" of a local attacker
// racing evio's path checks), and `evio serve` as its own process, for cases where a hang must
// be observed from outside rather than hang the test runner.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');

/** A sudo session directory: timing with one ttyout record, ttyout, log.json. */
export function writeSudoSession(dir: string, ttyout: Buffer, vars: Record<string, unknown> = {}): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'timing'), `4 0.100000 ${ttyout.length}\n`);
  writeFileSync(join(dir, 'ttyout'), ttyout);
  const info = { timestamp: { seconds: 1767225600, nanoseconds: 0 }, submituser: 'alice', runuser: 'root', command: '/bin/bash', lines: 24, columns: 80, ...vars };
  writeFileSync(join(dir, 'log.json'), JSON.stringify(info));
}

const SWAPPER = `
const fs = require('node:fs');
const { pairs, ms, maxIterations } = JSON.parse(process.argv[1]);
const pause = new Int32Array(new SharedArrayBuffer(4));
// Stays in each state for a random 0-2 ms, so that some checks see the real directory and
// the opens after them see the symlink.
const hold = () => Atomics.wait(pause, 0, 0, Math.floor(Math.random() * 3));
const end = Date.now() + ms;
let n = 0;
while (n < maxIterations && Date.now() < end) {
  for (const [inside, target] of pairs) {
    fs.renameSync(inside, inside + '.real');
    fs.symlinkSync(target, inside);
  }
  hold();
  for (const [inside] of pairs) {
    fs.unlinkSync(inside);
    fs.renameSync(inside + '.real', inside);
  }
  hold();
  n++;
}
process.stdout.write(String(n));
`;

export interface Swapper {
  /** Resolves with the number of swaps once the loop is over (the real directories are back). */
  done: Promise<number>;
  proc: ChildProcess;
}

/**
 * Swaps each `inside` directory for a symlink to its `target` and back, in a separate process,
 * for at most `ms` milliseconds and `maxIterations` rounds; every round ends with the real
 * directories in place.
 */
export function startSwapper(pairs: Array<[inside: string, target: string]>, ms: number, maxIterations: number): Swapper {
  const proc = spawn(process.execPath, ['-e', SWAPPER, JSON.stringify({ pairs, ms, maxIterations })], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const done = new Promise<number>((res, rej) =>
    proc.on('exit', (code) => (code === 0 ? res(Number(out)) : rej(new Error(`swapper failed (${code}): ${err.slice(0, 500)}`)))),
  );
  return { done, proc };
}

export interface ServeProcess {
  url: string;
  proc: ChildProcess;
  stderr(): string;
  /** SIGTERM; resolves with the exit code, or null when it did not exit within `ms` (then SIGKILLed). */
  stop(ms?: number): Promise<number | null>;
}

/** `evio serve` (the built CLI in dist/) on a loopback port, with the data folder `home`. */
export async function startServeProcess(home: string): Promise<ServeProcess> {
  const proc = spawn(process.execPath, [join(ROOT, 'bin/evio.js'), 'serve', '--host', '127.0.0.1', '--port', '0'], {
    env: { PATH: process.env.PATH ?? '', EVIO_HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const end = Date.now() + 20_000;
  let m: RegExpExecArray | null = null;
  while (!(m = /evio serving (http:\/\/\S+)/.exec(out))) {
    if (Date.now() > end || proc.exitCode !== null) {
      proc.kill('SIGKILL');
      throw new Error(`serve did not start: ${out}${err}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: m[1]!,
    proc,
    stderr: () => err,
    stop(ms = 10_000) {
      if (proc.exitCode !== null) return Promise.resolve(proc.exitCode);
      return new Promise((res) => {
        const timer = setTimeout(() => {
          proc.kill('SIGKILL');
          res(null);
        }, ms);
        proc.once('exit', (code) => {
          clearTimeout(timer);
          res(code);
        });
        proc.kill('SIGTERM');
      });
    },
  };
}
