// A log server on loopback for the tests, on a data folder of its own, and the real sudo
// clients and readers (sudo_sendlog, sudoreplay) run against it. In CI (CI=true) missing sudo
// tools are a failure; elsewhere the suites skip and say how to enable them.
import { execFile, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine } from '../../src/engine.js';
import { startLogServer, type LogServer } from '../../src/logsrvd/server.js';
import { loadSettings, type Settings } from '../../src/settings.js';
import type { LogsrvdSettings } from '../../src/settings-logsrvd.js';

export const SENDLOG = '/usr/sbin/sudo_sendlog';
export const SUDOREPLAY = '/usr/bin/sudoreplay';

export function sudoToolsAvailable(): boolean {
  const ok = spawnSync(SENDLOG, ['-V']).status === 0 && spawnSync(SUDOREPLAY, ['-V']).status === 0;
  if (!ok && process.env.CI) throw new Error('sudo_sendlog and sudoreplay are required in CI (apt-get install sudo)');
  if (!ok) console.warn('skipping log-server client tests: install Debian\'s sudo (sudo_sendlog, sudoreplay)');
  return ok;
}

export interface TestServer {
  home: string;
  root: string;
  settings: Settings;
  engine: Engine;
  server: LogServer;
  port: number;
  logs: Record<string, unknown>[];
  close(): Promise<void>;
}

export async function startTestServer(logsrvd: Partial<LogsrvdSettings> = {}, listen = ['127.0.0.1:0'], over: Partial<Settings> = {}): Promise<TestServer> {
  const home = mkdtempSync(join(tmpdir(), 'evio-logsrvd-'));
  const base = loadSettings({ env: { EVIO_HOME: home }, cwd: home });
  const settings: Settings = { ...base, requestLog: 'off', ...over, logsrvd: { ...base.logsrvd, ...logsrvd } };
  const engine = new Engine(settings);
  const logs: Record<string, unknown>[] = [];
  const server = await startLogServer(engine, { listen, log: (e) => logs.push(e) });
  return {
    home,
    root: settings.iologdirs[0]!,
    settings,
    engine,
    server,
    port: server.addresses[0]!.port,
    logs,
    async close() {
      await server.close();
      await engine.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function run(cmd: string, args: string[], opts: { timeoutMs?: number; cwd?: string } = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(cmd, args, { timeout: opts.timeoutMs ?? 60_000, encoding: 'latin1', maxBuffer: 64 * 1024 * 1024, cwd: opts.cwd }, (err, stdout, stderr) => {
      const code = err ? ((err as { code?: number }).code ?? null) : 0;
      resolve({ code: typeof code === 'number' ? code : null, stdout, stderr });
    });
  });
}

export function sendlog(port: number, args: string[], path: string): Promise<Run> {
  return run(SENDLOG, ['-h', '127.0.0.1', '-p', String(port), ...args, path]);
}

/** Waits until the server has handled everything its clients sent (a client may hang up first). */
export async function settled(t: TestServer, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (t.server.connections > 0) {
    if (Date.now() > deadline) throw new Error(`the server still holds ${t.server.connections} connection(s)`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A copy of a sample session that sudo_sendlog can read (samples are read-only; sendlog needs nothing more). */
export function copySession(src: string, dir: string): string {
  cpSync(src, dir, { recursive: true });
  return dir;
}

/** What sudoreplay prints for session ID under root (non-interactive: the bytes to stdout). */
export function replay(root: string, id: string): Promise<Run> {
  return run(SUDOREPLAY, ['-d', root, '-n', '-m', '0', id]);
}

/** The flat-file event log's records. */
export function events(settings: Settings): Record<string, unknown>[] {
  let text = '';
  try {
    text = readFileSync(settings.eventlog, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/**
 * Writes a complete sudo session for sudo_sendlog to send: `records` ttyout records of `bytes`
 * printable bytes each, `delayNs` apart, plus a window change in the middle. With `runTime` the
 * log.json carries one (as sudo_logsrvd writes it), else none (as sudoers writes it locally).
 */
export function makeSession(dir: string, opts: { records: number; bytes: number; delayNs: number; runTime?: boolean; seed?: number }): { sumNs: number } {
  mkdirSync(dir, { recursive: true });
  let x = opts.seed ?? 1;
  const rnd = () => {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    return x;
  };
  const out: Buffer[] = [];
  const timing: string[] = [];
  const delay = `${Math.floor(opts.delayNs / 1e9)}.${String(opts.delayNs % 1e9).padStart(9, '0')}`;
  let sumNs = 0;
  for (let i = 0; i < opts.records; i++) {
    if (i === Math.floor(opts.records / 2)) {
      timing.push(`5 ${delay} 30 100`);
      sumNs += opts.delayNs;
    }
    const b = Buffer.alloc(opts.bytes);
    for (let j = 0; j < b.length; j++) b[j] = j % 80 === 79 ? 0x0a : 0x20 + (rnd() % 95);
    out.push(b);
    timing.push(`4 ${delay} ${b.length}`);
    sumNs += opts.delayNs;
  }
  writeFileSync(join(dir, 'ttyout'), Buffer.concat(out));
  writeFileSync(join(dir, 'timing'), `${timing.join('\n')}\n`);
  writeFileSync(join(dir, 'log'), `1795315409:alice:root::/dev/pts/0:24:80\n/home/alice\n/usr/bin/cat big.txt\n`);
  const runTime = opts.runTime ? `,\n    "run_time": {\n        "seconds": ${Math.floor(sumNs / 1e9)},\n        "nanoseconds": ${sumNs % 1e9}\n    },\n    "exit_value": 0` : '';
  writeFileSync(
    join(dir, 'log.json'),
    `{\n    "timestamp": {\n        "seconds": 1795315409,\n        "nanoseconds": 1\n    },\n    "submituser": "alice",\n    "command": "/usr/bin/cat",\n    "runuser": "root",\n    "ttyname": "/dev/pts/0",\n    "submithost": "web01",\n    "submitcwd": "/home/alice",\n    "columns": 80,\n    "lines": 24,\n    "runargv": [\n        "cat",\n        "big.txt"\n    ]${runTime}\n}\n`,
  );
  return { sumNs };
}
