#!/usr/bin/env node
// Start-up (issue 25 point 3): what a one-shot `evio` command pays before it works. Times whole
// processes — `node -e 0` (the runtime alone), `evio --version`, `evio events query` on a tiny
// flat file, `evio iolog list` on a few sessions — round-robin so each command sees the same
// machine load, and counts the modules each loads (an ESM loader hook in a separate run, so the
// timed runs carry no hook). With --before DIR the same commands of another built tree (a
// checkout of an earlier commit with its dist/) are timed in the same rounds. Prints a Markdown
// table for BENCHMARKS.md ("Start-up steps").
//
//   node bench/startup.mjs [--runs 15] [--before DIR] [--tree LABEL=DIR ...] [--smoke] [--out FILE]
//
// --tree adds another built tree under its own label (e.g. an experiment: a bundled CLI).
//
// Needs the built dist/; writes its data into a temporary folder and removes it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fmtMs, GNU_TIME, median, option, ROOT } from './lib/common.js';

const args = process.argv.slice(2);
const smoke = args.includes('--smoke');
const runs = Number(option('runs', smoke ? '2' : '15'));
const before = option('before', null);
const extra = args.flatMap((a, i) => (a === '--tree' ? [args[i + 1]] : [])).map((t) => ({ label: t.slice(0, t.indexOf('=')), dir: t.slice(t.indexOf('=') + 1) }));
const out = option('out', null);
const log = (s) => process.stderr.write(`${s}\n`);

const work = mkdtempSync(join(tmpdir(), 'evio-bench-startup-'));
const home = join(work, 'home');
const tiny = join(work, 'tiny.ndjson');
const sessions = join(work, 'sessions');
const env = { ...process.env, EVIO_HOME: home };
delete env.EVIO_CONFIG;

function sh(argv) {
  const r = spawnSync(argv[0], argv.slice(1), { env, encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r;
}

/** The commands, for a tree whose bin/evio.js is `bin`. */
function commands(bin) {
  return [
    { name: '`evio --version`', argv: [process.execPath, bin, '--version'] },
    { name: '`evio events query ff:tiny.ndjson -n 5` (100 records)', argv: [process.execPath, bin, 'events', 'query', `ff:${tiny}`, '-n', '5'] },
    { name: '`evio iolog list -d sessions --json` (20 sessions, index current)', argv: [process.execPath, bin, 'iolog', 'list', '-d', sessions, '--json'] },
  ];
}

const HOOK = `data:text/javascript,${encodeURIComponent(`
import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent('export async function load(url, ctx, next) { if (!url.startsWith("node:")) process._rawDebug("evio-bench-module " + url); return next(url, ctx); }'));
`)}`;

/** Modules a command loads besides bin/evio.js (not node: builtins), from a run with a loader hook. */
function modulesLoaded(argv) {
  const r = spawnSync(argv[0], ['--import', HOOK, ...argv.slice(1)], { env, encoding: 'utf8', maxBuffer: 1 << 26 });
  return r.stderr.split('\n').filter((l) => l.startsWith('evio-bench-module ')).length - 1; // bin/evio.js itself
}

const timeFile = join(work, 'time');
/**
 * Wall time of one run, ms, and its CPU time (user + system, GNU time; null without it): on a
 * machine others share, CPU time moves far less with their load than wall time does.
 */
function timeOnce(argv) {
  const full = GNU_TIME ? [GNU_TIME, '-f', '%U %S', '-o', timeFile, ...argv] : argv;
  const t = process.hrtime.bigint();
  const r = spawnSync(full[0], full.slice(1), { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const wall = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  const cpu = GNU_TIME ? readFileSync(timeFile, 'utf8').trim().split('\n').pop().split(' ').reduce((a, x) => a + Number(x) * 1000, 0) : null;
  return { wall, cpu };
}

try {
  const bin = join(ROOT, 'bin', 'evio.js');
  sh([process.execPath, bin, 'generate', 'events', '--count', '100', '--seed', '1', '--out', tiny]);
  sh([process.execPath, bin, 'generate', 'sessions', '--count', '20', '--seed', '1', '--out', sessions]);
  // The list index counts as current only for folders older than the file system's time
  // resolution: built after a pause, then every timed run finds it current (no re-index).
  await new Promise((r) => setTimeout(r, 3000));
  sh([process.execPath, bin, 'iolog', 'list', '-d', sessions, '--json']);

  const trees = [{ label: 'this tree', cmds: commands(bin) }];
  if (before) trees.unshift({ label: 'before', cmds: commands(join(resolve(before), 'bin', 'evio.js')) });
  for (const t of extra) trees.push({ label: t.label, cmds: commands(join(resolve(t.dir), 'bin', 'evio.js')) });
  // The floor of any ES-module CLI: Node starting its ES module loader for an empty file.
  const empty = join(work, 'empty.mjs');
  writeFileSync(empty, '');
  const all = [
    { tree: null, name: '`node -e 0`', argv: [process.execPath, '-e', '0'] },
    { tree: null, name: '`node empty.mjs` (an empty ES module)', argv: [process.execPath, empty] },
  ];
  for (const t of trees) for (const c of t.cmds) all.push({ tree: t.label, ...c });
  for (const c of all) {
    c.times = [];
    c.cpus = [];
    c.modules = c.tree ? modulesLoaded(c.argv) : 0;
    timeOnce(c.argv); // warm the page cache
  }
  const loads = [];
  for (let i = 0; i < runs; i++) {
    for (const c of all) {
      const t = timeOnce(c.argv);
      c.times.push(t.wall);
      if (t.cpu !== null) c.cpus.push(t.cpu);
    }
    loads.push(loadavg()[0]);
    if (!smoke) log(`startup: round ${i + 1}/${runs}, load average ${loadavg()[0].toFixed(2)}`);
  }
  const node = median(all[0].times);
  const nodeCpu = all[0].cpus.length ? median(all[0].cpus) : null;
  const cpuCell = (c) => {
    if (!c.cpus.length) return '–';
    const m = median(c.cpus);
    return c === all[0] ? fmtMs(m) : `${fmtMs(m)} (${m >= nodeCpu ? '+' : '−'}${fmtMs(Math.abs(m - nodeCpu))})`;
  };
  const lines = [
    `*Measured ${new Date().toISOString().replace(/\.\d+Z$/, 'Z')} by \`node bench/startup.mjs --runs ${runs}${before ? ' --before DIR' : ''}${extra.map((t) => ` --tree ${t.label}=DIR`).join('')}\`; ${runs} rounds, the commands interleaved in each; 1-minute load average ${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)}; Node ${process.version}.*`,
    '',
    `| command | tree | wall time, median of ${runs} (min–max) | over \`node -e 0\` | CPU time (user + system), median (over \`node -e 0\`) | modules loaded besides bin/evio.js (not node: builtins) |`,
    '|---|---|---:|---:|---:|---:|',
  ];
  for (const c of all) {
    const m = median(c.times);
    lines.push(`| ${c.name} | ${c.tree ?? '–'} | ${fmtMs(m)} (${fmtMs(Math.min(...c.times))}–${fmtMs(Math.max(...c.times))}) | ${c === all[0] ? '–' : `${m >= node ? '+' : '−'}${fmtMs(Math.abs(m - node))}`} | ${cpuCell(c)} | ${c.tree ? c.modules : '–'} |`);
  }
  const table = `${lines.join('\n')}\n`;
  process.stdout.write(table);
  if (out) writeFileSync(out, table);
} finally {
  rmSync(work, { recursive: true, force: true });
}
