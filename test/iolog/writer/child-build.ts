// writer-child.ts bundled with esbuild into .tmp/ (inside the package, so node_modules resolve),
// for tests that run a writer in another process and SIGKILL it.
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildSync } from 'esbuild';

const ROOT = resolve(import.meta.dirname, '../../..');

export interface ChildBuild {
  entry: string;
  cleanup(): void;
}

export function buildWriterChild(): ChildBuild {
  const dir = join(ROOT, '.tmp', `writer-child-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const entry = join(dir, 'writer-child.mjs');
  buildSync({ entryPoints: [join(ROOT, 'test/iolog/writer/writer-child.ts')], bundle: true, platform: 'node', format: 'esm', target: 'node20', outfile: entry, packages: 'external', logLevel: 'warning' });
  return { entry, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface ChildRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the child with `args`; `onLine` sees each stdout line and may return true to have the
 * child SIGKILLed right there. Killed after `timeoutMs` in any case.
 */
export function runChild(build: ChildBuild, args: string[], onLine?: (line: string) => boolean, timeoutMs = 60_000): Promise<ChildRun> {
  const proc = spawn(process.execPath, [build.entry, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let pending = '';
  let killed = false;
  proc.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    pending += d.toString();
    let nl: number;
    // Once killed, the lines still in the pipe are not looked at: the caller kept the one it killed at.
    while (!killed && (nl = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      if (onLine?.(line)) {
        killed = true;
        proc.kill('SIGKILL');
      }
    }
  });
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs);
  return new Promise((res) =>
    proc.on('exit', (code, signal) => {
      clearTimeout(timer);
      res({ code, signal, stdout, stderr });
    }),
  );
}
