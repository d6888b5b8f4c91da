// Shared helpers of the batch-job tests: temp homes with I/O log roots holding real sudo sessions.
import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine } from '../../src/engine.js';
import { loadSettings, type Settings } from '../../src/settings.js';

export const SAMPLE_IO = '/work/shared/samples/sudo-io';

export interface JobHome {
  dir: string;
  root: string;
  outside: string;
  settings: Settings;
  engine: Engine;
  cleanup(): Promise<void>;
}

/** A temp home: I/O log root `io/`, event logs in the home, an `outside/` folder with a session. */
export function makeHome(prefix = 'evio-jobs-'): JobHome {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const root = join(dir, 'io');
  const outside = join(dir, 'outside');
  mkdirSync(root, { recursive: true });
  mkdirSync(outside, { recursive: true });
  const settings = loadSettings({
    config: undefined,
    env: {},
    cwd: dir,
    overrides: { home: join(dir, 'home'), eventlogdirs: [dir], iologdirs: [root], iologcache: join(dir, 'home', 'iolog-index.sqlite'), eventlog: join(dir, 'events.ndjson') },
  });
  const engine = new Engine(settings);
  return {
    dir,
    root,
    outside,
    settings,
    engine,
    async cleanup() {
      await engine.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Copies the real sample session 00/00/<n> to `dest`. */
export function copySession(n: string, dest: string): void {
  cpSync(join(SAMPLE_IO, '00', '00', n), dest, { recursive: true });
  // As sudo leaves a finished session: the directory writable by its owner, timing read-only.
  chmodSync(dest, 0o700);
}

/** A minimal sudo session directory (timing + log.json + ttyout). */
export function fakeSession(dest: string, bytes = 5): void {
  mkdirSync(dest, { recursive: true });
  writeFileSync(join(dest, 'timing'), `4 0.000100000 ${bytes}\n`);
  writeFileSync(join(dest, 'log.json'), '{"submituser":"u","runuser":"root","command":"/bin/true","runargv":["true"]}\n');
  writeFileSync(join(dest, 'ttyout'), 'x'.repeat(bytes));
}

export function link(target: string, path: string): void {
  symlinkSync(target, path);
}
