// Shared helpers of the benchmark harness: paths, whole-process timing with peak RSS, statistics
// and formatting. Plain ESM JavaScript (bench/ is not compiled); the engine is always imported
// from dist/, so the figures are those of the shipped code.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, closeSync, readFileSync, rmSync } from 'node:fs';
import { cpus, totalmem, tmpdir, release, availableParallelism } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BENCH_DIR = dirname(dirname(fileURLToPath(import.meta.url)));
export const ROOT = dirname(BENCH_DIR);
export const EVIO_BIN = join(ROOT, 'bin', 'evio.js');
export const NODE = process.execPath;
export const GNU_TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;

/** @param {string} cmd */
/** The value after `--NAME` on the command line, or `dflt` (a benchmark's options). */
export function option(name, dflt) {
  const argv = process.argv;
  const i = argv.indexOf(`--${name}`, 2);
  return i >= 0 ? argv[i + 1] : dflt;
}

export function which(cmd) {
  const r = spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

/**
 * @typedef {object} ProcResult
 * @property {number} ms        wall time, spawn to exit
 * @property {number|null} rssKB peak resident set size (GNU time's %M), null when unknown
 * @property {number|null} cpuMs user + system CPU time of the process and its threads (GNU time's %U + %S), null when unknown
 * @property {number} code
 * @property {string} stdout    captured stdout (empty when stdout went to /dev/null)
 * @property {string} stderr
 * @property {number} lines     newlines seen on stdout (counted, also when not captured)
 * @property {number|null} inKB  what the process read from the block device (GNU time's %I, 512-byte
 *   blocks, as kB): 0 when everything came from the page cache, null when unknown
 */

/**
 * Runs one command as its own process and measures it. stdout is either counted and captured
 * ('pipe'), counted only ('count': large outputs) or sent to /dev/null ('null').
 * @param {string[]} argv
 * @param {{ stdout?: 'pipe'|'count'|'null', env?: NodeJS.ProcessEnv, cwd?: string, timeoutMs?: number, input?: string }} [opts]
 * @returns {Promise<ProcResult>}
 */
export function runProcess(argv, opts = {}) {
  const mode = opts.stdout ?? 'pipe';
  const tdir = mkdtempSync(join(tmpdir(), 'evio-bench-'));
  const timeFile = join(tdir, 'time');
  const full = GNU_TIME ? [GNU_TIME, '-f', '%M %U %S %I', '-o', timeFile, ...argv] : argv;
  const devnull = mode === 'null' ? openSync('/dev/null', 'w') : null;
  return new Promise((resolvePromise, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(full[0], full.slice(1), {
      cwd: opts.cwd ?? ROOT,
      env: opts.env ?? process.env,
      stdio: [opts.input !== undefined ? 'pipe' : 'ignore', devnull ?? 'pipe', 'pipe'],
    });
    let out = '';
    let lines = 0;
    let err = '';
    if (child.stdout) {
      child.stdout.on('data', (/** @type {Buffer} */ b) => {
        for (let i = b.indexOf(10); i >= 0; i = b.indexOf(10, i + 1)) lines++;
        if (mode === 'pipe') out += b.toString('utf8');
      });
    }
    child.stderr?.on('data', (/** @type {Buffer} */ b) => {
      if (err.length < 65536) err += b.toString('utf8');
    });
    if (opts.input !== undefined) child.stdin?.end(opts.input);
    /** @type {NodeJS.Timeout|null} */
    let timer = null;
    if (opts.timeoutMs) timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (timer) clearTimeout(timer);
      if (devnull !== null) closeSync(devnull);
      let rssKB = null;
      let cpuMs = null;
      let inKB = null;
      try {
        const t = readFileSync(timeFile, 'utf8').trim().split('\n').pop();
        const m = t ? /^(\d+) ([\d.]+) ([\d.]+)(?: (\d+))?$/.exec(t) : null;
        if (m) {
          rssKB = Number(m[1]);
          cpuMs = (Number(m[2]) + Number(m[3])) * 1000;
          if (m[4] !== undefined) inKB = Number(m[4]) / 2;
        }
      } catch {
        // no GNU time
      }
      rmSync(tdir, { recursive: true, force: true });
      resolvePromise({ ms, rssKB, cpuMs, inKB, code: code ?? (signal ? 128 : 1), stdout: out, stderr: err, lines });
    });
  });
}

/** Runs a command and fails loudly when it does not exit 0. @param {string[]} argv @param {Parameters<typeof runProcess>[1]} [opts] */
export async function runChecked(argv, opts) {
  const r = await runProcess(argv, opts);
  if (r.code !== 0) throw new Error(`${argv.join(' ')} exited ${r.code}: ${r.stderr.slice(0, 2000)}`);
  return r;
}

/**
 * @typedef {object} Timing
 * @property {number} median
 * @property {number} min
 * @property {number} max
 * @property {number[]} all   ms of each run
 * @property {number|null} rssKB  highest peak RSS over the runs
 * @property {number|null} cpuMs  median CPU time (user + system) of the runs
 * @property {number|null} inKB   median kB read from the block device per run (GNU time's %I)
 * @property {ProcResult} last
 */

/**
 * Runs a command `runs` times (after `warmup` unmeasured runs) and summarizes the wall times.
 * `check` sees every result (e.g. to verify the answer) and may throw; `before` runs ahead of
 * every run, untimed (e.g. to drop files from the page cache).
 * @param {string[]} argv
 * @param {{ runs: number, warmup?: number, check?: (r: ProcResult) => void, before?: () => void | Promise<void> } & Parameters<typeof runProcess>[1]} opts
 * @returns {Promise<Timing>}
 */
export async function timeProcess(argv, opts) {
  for (let i = 0; i < (opts.warmup ?? 0); i++) {
    await opts.before?.();
    const r = await runProcess(argv, opts);
    if (r.code !== 0) throw new Error(`${argv.join(' ')} exited ${r.code}: ${r.stderr.slice(0, 2000)}`);
    opts.check?.(r);
  }
  /** @type {number[]} */
  const all = [];
  let rss = null;
  /** @type {number[]} */
  const cpu = [];
  /** @type {number[]} */
  const inKB = [];
  /** @type {ProcResult|null} */
  let last = null;
  for (let i = 0; i < opts.runs; i++) {
    await opts.before?.();
    const r = await runProcess(argv, opts);
    if (r.code !== 0) throw new Error(`${argv.join(' ')} exited ${r.code}: ${r.stderr.slice(0, 2000)}`);
    opts.check?.(r);
    all.push(r.ms);
    if (r.rssKB !== null) rss = Math.max(rss ?? 0, r.rssKB);
    if (r.cpuMs !== null) cpu.push(r.cpuMs);
    if (r.inKB !== null) inKB.push(r.inKB);
    last = r;
  }
  return { ...summarize(all), all, rssKB: rss, cpuMs: cpu.length ? median(cpu) : null, inKB: inKB.length ? median(inKB) : null, last: /** @type {ProcResult} */ (last) };
}

/** @param {number[]} xs */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** @param {number[]} xs */
export function summarize(xs) {
  return { median: median(xs), min: Math.min(...xs), max: Math.max(...xs) };
}

/** Formats milliseconds with a sensible unit. @param {number} ms */
export function fmtMs(ms) {
  if (ms >= 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 100) return `${ms.toFixed(0)} ms`;
  if (ms >= 10) return `${ms.toFixed(1)} ms`;
  if (ms >= 1) return `${ms.toFixed(2)} ms`;
  return `${(ms * 1000).toFixed(0)} µs`;
}

/** "median (min–max)". @param {{median:number,min:number,max:number}} t @param {number} [n] */
export function fmtTiming(t, n) {
  if (n === 1 || t.min === t.max) return fmtMs(t.median);
  return `${fmtMs(t.median)} (${fmtMs(t.min)}–${fmtMs(t.max)})`;
}

/** @param {number|null|undefined} kb */
export function fmtRss(kb) {
  if (kb === null || kb === undefined) return '–';
  return `${(kb / 1024).toFixed(0)} MB`;
}

/** @param {number} bytes */
export function fmtBytes(bytes) {
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(2)} GB`;
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(1)} MB`;
  if (bytes >= 1e3) return `${(bytes / 1e3).toFixed(1)} kB`;
  return `${bytes} B`;
}

/** @param {number} n */
export function fmtInt(n) {
  return n.toLocaleString('en-US');
}

/** A time ratio in words: evio / peer. @param {number} evioMs @param {number} peerMs */
export function fmtRatio(evioMs, peerMs) {
  const r = evioMs / peerMs;
  if (r >= 1) return `${r.toFixed(2)}× (evio slower)`;
  return `${r.toFixed(2)}× (evio ${(1 / r).toFixed(1)}× faster)`;
}

/** Machine facts for the report header. */
export function machineInfo() {
  const c = cpus();
  const pg = spawnSync('sh', ['-c', 'cat /etc/debian_version 2>/dev/null'], { encoding: 'utf8' }).stdout.trim();
  return {
    cpu: c[0]?.model ?? 'unknown',
    cores: availableParallelism(),
    memGiB: (totalmem() / 2 ** 30).toFixed(0),
    node: process.version,
    os: `Linux ${release()}${pg ? ` (Debian ${pg})` : ''}`,
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
  };
}

/** Load average (1 min): noise from other work on the machine. */
export function loadAvg() {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ')[0] ?? '?';
  } catch {
    return '?';
  }
}

/** Free bytes on the filesystem holding `path`. @param {string} path */
export function freeBytes(path) {
  const r = spawnSync('df', ['-Pk', path], { encoding: 'utf8' });
  const line = r.stdout.trim().split('\n')[1];
  if (!line) return 0;
  return Number(line.split(/\s+/)[3]) * 1024;
}

/** @param {string} p */
export function abs(p) {
  return resolve(ROOT, p);
}

/** Thrown by a workload part that cannot run here; rendered as "not available: <reason>". */
export class NotAvailable extends Error {
  /** @param {string} reason */
  constructor(reason) {
    super(reason);
    this.name = 'NotAvailable';
  }
}
