// The CLI compiled from the current sources into .tmp/ (inside the package, so that node_modules
// resolve), for tests that spawn `evio` as a separate process and SIGKILL it. dist/ is left alone:
// it may be stale or being rebuilt.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');

export interface CliBuild {
  dir: string;
  /** node + this path runs `evio`. */
  entry: string;
  cleanup(): void;
}

/** Compiles src/cli/main.ts (and `extra` entry points) with tsc; throws on failure. */
export function buildCli(name: string, extra: string[] = []): CliBuild {
  const dir = join(ROOT, '.tmp', `${name}-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const tsc = join(ROOT, 'node_modules/.bin/tsc');
  const files = [join(ROOT, 'src/cli/main.ts'), ...extra.map((f) => join(ROOT, f))];
  const r = spawnSync(tsc, ['--ignoreConfig', '--outDir', dir, '--rootDir', join(ROOT, 'src'), '--module', 'NodeNext', '--moduleResolution', 'NodeNext', '--target', 'ES2022', '--skipLibCheck', '--types', 'node', ...files], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0 && r.stdout.includes('error')) {
    // Type errors elsewhere in the tree still emit JavaScript; only a missing output is fatal.
    process.stderr.write(`tsc reported:\n${r.stdout.slice(0, 2000)}\n`);
  }
  const entry = join(dir, 'evio-entry.mjs');
  writeFileSync(entry, `import { main } from './cli/main.js';\nmain(process.argv.slice(2)).then((c) => { process.exitCode = c; });\n`);
  return { dir, entry, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Starts `evio ARGS` (stdin closed: not a terminal; no EVIO_CONFIG from the environment) and
 * collects its output; `onStdout` sees the whole stdout so far after each piece. `done`
 * resolves when the process is gone.
 */
export function startCli(build: CliBuild, args: string[], cwd = ROOT, onStdout?: (stdout: string) => void, onStderr?: (stderr: string) => void): { proc: ChildProcess; done: Promise<RunResult> } {
  const proc = spawn(process.execPath, [build.entry, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, EVIO_CONFIG: '' } });
  let stdout = '';
  let stderr = '';
  proc.stdout!.on('data', (d: Buffer) => {
    stdout += d.toString();
    onStdout?.(stdout);
  });
  proc.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
    onStderr?.(stderr);
  });
  const done = new Promise<RunResult>((res) => proc.on('exit', (code, signal) => res({ code, signal, stdout, stderr })));
  return { proc, done };
}

/** Runs `evio ARGS` to completion (killed after `timeoutMs`, default 60 s). */
export function runCli(build: CliBuild, args: string[], opts: { cwd?: string; timeoutMs?: number } = {}): Promise<RunResult> {
  return runAndKill(build, args, opts.timeoutMs ?? 60_000, opts.cwd ?? ROOT);
}

/** Starts `evio ARGS` and SIGKILLs it after `afterMs`; resolves when it is gone. */
export function runAndKill(build: CliBuild, args: string[], afterMs: number, cwd = ROOT): Promise<RunResult> {
  const { proc, done } = startCli(build, args, cwd);
  const timer = setTimeout(() => proc.kill('SIGKILL'), afterMs);
  return done.finally(() => clearTimeout(timer));
}

/**
 * Starts `evio ARGS` and SIGKILLs it once `stream` (default stdout; a purge's --list lines go to
 * stderr) has `lines` lines, or when it exits first.
 */
export async function runUntilLines(build: CliBuild, args: string[], lines: number, cwd = ROOT, stream: 'stdout' | 'stderr' = 'stdout'): Promise<RunResult & { killedAt: number }> {
  let killedAt = -1;
  const watch = (text: string) => {
    const n = text.split('\n').length - 1;
    if (killedAt < 0 && n >= lines) {
      killedAt = n;
      proc.kill('SIGKILL');
    }
  };
  const { proc, done } = startCli(build, args, cwd, stream === 'stdout' ? watch : undefined, stream === 'stderr' ? watch : undefined);
  return { ...(await done), killedAt };
}

/** Starts `evio ARGS` and SIGKILLs it once `file` has grown to `bytes` (or when it exits first). */
export function runUntilFileSize(build: CliBuild, args: string[], file: string, bytes: number, cwd = ROOT): Promise<RunResult> {
  const { proc, done } = startCli(build, args, cwd);
  const poll = setInterval(() => {
    let size = 0;
    try {
      size = statSync(file).size;
    } catch {
      // not created yet
    }
    if (size >= bytes) proc.kill('SIGKILL');
  }, 1);
  return done.finally(() => clearInterval(poll));
}
