#!/usr/bin/env node
// `npm run bench`: installs the peers (bench/install-peers.sh), generates the data under
// bench/data/ (reused while present and of the right size), runs every workload of issue 8
// and rewrites BENCHMARKS.md. `npm run bench:smoke` (--smoke): tiny data, one run each, prints
// the tables and writes nothing, so CI keeps these scripts working.
//
//   node bench/run.js [--smoke] [--only 1,3] [--runs N] [--no-install] [--no-write] [--no-profile] [--out FILE]
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { relative, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { BENCH_DIR, ROOT, loadAvg, machineInfo, NotAvailable } from './lib/common.js';
import { DATA_DIR, ensureEvents, ensureSessions } from './lib/data.js';
import { renderReport, renderSection } from './lib/report.js';

const HELP = `Usage: node bench/run.js [options]

  --smoke         tiny data (20k events, 50 sessions), one run each, print only (CI)
  --only 1,3      run only these workloads (1-10)
  --runs N        timed runs per whole-process measurement (default 5; smoke 1)
  --no-install    do not run bench/install-peers.sh first (missing peers are reported)
  --no-write      print the report instead of rewriting BENCHMARKS.md
  --no-profile    skip the CPU profiles taken where a goal is missed
  --out FILE      write the report to FILE instead of BENCHMARKS.md
`;

/**
 * What every workload gets.
 * @typedef {object} Ctx
 * @property {boolean} smoke
 * @property {number} runs
 * @property {number} warmup   unmeasured runs before the timed ones (0 in smoke runs)
 * @property {boolean} profile
 * @property {(s: string) => void} log
 * @property {(p: string) => string} rel    a path relative to the repository, for the report
 * @property {{
 *   events: () => Promise<{ path: string, bytes: number, count: number }>,
 *   bigEvents: () => Promise<{ path: string, bytes: number, count: number }>,
 *   dbEvents: () => Promise<{ path: string, bytes: number, count: number }>,
 *   sessions: () => Promise<{ dir: string, count: number, bytes: number }>,
 * }} data
 * @property {string} dataDir
 */

function parseArgs(argv) {
  const o = { smoke: false, only: /** @type {number[]|null} */ (null), runs: 0, install: true, write: true, profile: true, out: join(ROOT, 'BENCHMARKS.md') };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--smoke') o.smoke = true;
    else if (a === '--only') o.only = String(argv[++i]).split(',').map(Number);
    else if (a.startsWith('--only=')) o.only = a.slice(7).split(',').map(Number);
    else if (a === '--runs') o.runs = Number(argv[++i]);
    else if (a === '--no-install') o.install = false;
    else if (a === '--no-write') o.write = false;
    else if (a === '--no-profile') o.profile = false;
    else if (a === '--out') o.out = String(argv[++i]);
    else if (a === '--help' || a === '-h') {
      process.stdout.write(HELP);
      process.exit(0);
    } else {
      process.stderr.write(`unknown option ${a}\n${HELP}`);
      process.exit(2);
    }
  }
  if (o.smoke) {
    o.write = false;
    o.profile = false;
    o.install = false;
  }
  if (!o.runs) o.runs = o.smoke ? 1 : 5;
  return o;
}

const RESULTS_DIR = join(DATA_DIR, 'results');

function commandLine() {
  const a = process.argv.slice(2);
  if (a.length === 1 && a[0] === '--smoke') return 'npm run bench:smoke';
  return `npm run bench${a.length ? ` -- ${a.join(' ')}` : ''}`;
}

const WORKLOADS = [
  './workloads/w1-filter.js',
  './workloads/w2-export.js',
  './workloads/w3-sqlite.js',
  './workloads/w4-postgres.js',
  './workloads/w5-replay.js',
  './workloads/w6-search.js',
  './workloads/w7-index.js',
  './workloads/w8-rest.js',
  './workloads/w9-memory.js',
  './workloads/w10-seek.js',
];

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const started = Date.now();
  const log = (/** @type {string} */ s) => process.stderr.write(`${s}\n`);
  if (!existsSync(join(ROOT, 'dist', 'index.js'))) {
    log('bench: dist/ is missing; running npm run build');
    const b = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
    if (b.status !== 0) throw new Error('npm run build failed');
  }
  if (opts.install) {
    log('bench: checking peers (bench/install-peers.sh)');
    const r = spawnSync('bash', [join(BENCH_DIR, 'install-peers.sh')], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
    if (r.status !== 0) log('bench: install-peers.sh failed; missing peers will be reported as not available');
  }
  mkdirSync(DATA_DIR, { recursive: true });
  const smoke = opts.smoke;
  /** @type {Map<string, Promise<any>>} */
  const memo = new Map();
  const once = (/** @type {string} */ k, /** @type {() => Promise<any>} */ f) => {
    if (!memo.has(k)) memo.set(k, f());
    return /** @type {Promise<any>} */ (memo.get(k));
  };
  /** @type {Ctx} */
  const ctx = {
    smoke,
    runs: opts.runs,
    warmup: smoke ? 0 : 1,
    profile: opts.profile,
    log,
    rel: (p) => relative(ROOT, p),
    dataDir: DATA_DIR,
    data: {
      events: () => once('events', () => ensureEvents({ count: smoke ? 20_000 : 1_000_000, name: smoke ? '20k' : '1m', log })),
      bigEvents: () => once('big', () => (smoke ? ensureEvents({ count: 20_000, name: '20k', log }) : ensureEvents({ count: 12_000_000, name: '12m', log }))),
      dbEvents: () => once('db', () => (smoke ? ensureEvents({ count: 5000, name: '5k', log }) : ensureEvents({ count: 10_000_000, name: '10m', log }))),
      sessions: () => once('sessions', () => ensureSessions({ count: smoke ? 50 : 10_000, name: smoke ? '50' : '10k', log })),
    },
  };
  const machine = machineInfo();
  const load = [loadAvg()];
  /** @type {import('./lib/report.js').Section[]} */
  const sections = [];
  let failed = 0;
  for (const [i, file] of WORKLOADS.entries()) {
    const n = i + 1;
    if (opts.only && !opts.only.includes(n)) continue;
    const mod = await import(file);
    log(`bench: workload ${n}: ${mod.title}`);
    const t0 = Date.now();
    /** @type {import('./lib/report.js').Section} */
    let section;
    try {
      section = await mod.run(ctx);
    } catch (err) {
      if (err instanceof NotAvailable || (err && /** @type {Error} */ (err).name === 'NotAvailable')) {
        section = { id: n, title: mod.title, setup: [], rows: [], notes: [], unavailable: /** @type {Error} */ (err).message };
      } else {
        failed++;
        log(`bench: workload ${n} failed: ${/** @type {Error} */ (err).stack ?? err}`);
        section = { id: n, title: mod.title, setup: [], rows: [], notes: [], unavailable: `the benchmark failed: ${/** @type {Error} */ (err).message.split('\n')[0]}` };
      }
    }
    const loadNow = loadAvg();
    load.push(loadNow);
    section.measured = `${new Date().toISOString().replace(/\.\d+Z$/, 'Z')}, ${((Date.now() - t0) / 1000).toFixed(0)} s, load average ${loadNow}, by \`${commandLine()}\``;
    log(`bench: workload ${n} done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    if (!smoke) {
      // Kept so that a later partial run (--only) can rewrite BENCHMARKS.md with every workload.
      mkdirSync(RESULTS_DIR, { recursive: true });
      writeFileSync(join(RESULTS_DIR, `w${n}.json`), `${JSON.stringify({ section, machine })}\n`);
    }
    if (smoke || !opts.write) process.stdout.write(`${renderSection(section)}\n`);
    sections.push(section);
  }
  const elapsed = `${((Date.now() - started) / 60000).toFixed(1)} min`;
  const command = commandLine();
  // A partial run: the workloads it did not run come from their last full-size run, each
  // section saying when and by what command it was measured.
  const all = [];
  for (let n = 1; n <= WORKLOADS.length; n++) {
    const here = sections.find((x) => x.id === n);
    if (here) all.push(here);
    else if (opts.write) {
      let stored = null;
      try {
        stored = JSON.parse(readFileSync(join(RESULTS_DIR, `w${n}.json`), 'utf8')).section;
      } catch {
        // never measured at full size on this machine
      }
      if (stored) {
        // Explanations are text about the code, not figures: the current ones apply.
        const mod = await import(WORKLOADS[n - 1]);
        const notes = typeof mod.explain === 'function' ? mod.explain(stored) : [];
        for (const note of [...notes].reverse()) if (!stored.notes.includes(note)) stored.notes.unshift(note);
        all.push(stored);
      } else {
        const mod = await import(WORKLOADS[n - 1]);
        all.push({ id: n, title: mod.title, setup: [], rows: [], notes: [], unavailable: `not measured at full size on this machine yet (\`node bench/run.js --only ${n}\`)` });
      }
    }
  }
  const report = renderReport({ machine, sections: all, smoke, started: new Date(started).toISOString(), elapsed, load, command, partial: all.length !== sections.length });
  if (opts.write) {
    writeFileSync(opts.out, `${report}\n`);
    log(`bench: wrote ${relative(process.cwd(), opts.out)} in ${elapsed}`);
  } else {
    log(`bench: done in ${elapsed}${smoke ? ' (smoke: nothing written)' : ''}`);
  }
  if (failed) process.exitCode = 1;
}

main().catch((err) => {
  process.stderr.write(`bench: ${err.stack ?? err}\n`);
  process.exitCode = 1;
});
