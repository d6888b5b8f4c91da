#!/usr/bin/env node
// BENCHMARKS.md section 11b (run apart from bench/run.js): the flat-file skip index and its
// planner across selectivities, on logs in evio's key order and in another program's order
// (recnum last, other key order), beside rg on the same file, whole process.
//
//   node bench/flatsweep.mjs [--events N] [--runs N] [--data DIR] [--smoke] [--out FILE]
//
// Data (generated when missing, reused otherwise): four logs of --events events (default
// 1,000,000; seed 7) written by `evio generate events`: {evio, recnum-last} key order ×
// {200 users × 300 hosts ("wide": one user on 0.5 % of the lines), 8 users × 6 hosts ("narrow":
// one user on 12.5 %)}. Their skip indexes are built with `evio events index` under an evio
// home of the data folder (the index key). Queries, all `--dump 1` (every record, so that a line
// count is the same answer): one user and one host (0.001 %, wide), one user (0.5 %, wide), one
// session by uniqueid (point lookup, both), one user and one host (2 %, narrow), one user
// (12.5 %, narrow), `etype=F` (≈ 50 %, narrow). The peer is `rg` printing the matching lines of
// an equivalent pattern (the fields' literals; two fields: `"submituser":"U".*"runhost":"H"`,
// both key orders write submituser first), its output read by the harness as evio's is.
// Every evio count is checked against rg's and the scan's; a difference fails the run.
// Per query: evio with the index (the planner's choice, and which path it took), evio without
// the index (flatfileIndex=false), rg; then in-process (bench/children/flatidx-query.mjs) the
// index forced against the scan, which shows the break-even selectivity.
// --smoke: 20,000 events in a temporary folder, one run, prints the table (npm run bench:smoke).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fmtBytes, fmtInt, fmtMs, fmtTiming, loadAvg, option, runProcess, timeProcess, which } from './lib/common.js';
import { DATA_DIR } from './lib/data.js';
import { evioArgv, runChild } from './lib/evio.js';

const argv = process.argv.slice(2);
const SMOKE = argv.includes('--smoke');
const EVENTS = Number(option('events', SMOKE ? 20_000 : 1_000_000));
const RUNS = Number(option('runs', SMOKE ? 1 : 3));
const dir = SMOKE ? mkdtempSync(join(tmpdir(), 'evio-sweep-')) : option('data', join(DATA_DIR, 'flatsweep'));
const OUT = option('out', SMOKE ? null : join(dir, 'section.md'));
const log = (s) => process.stderr.write(`${s}\n`);
mkdirSync(dir, { recursive: true });
const home = join(dir, 'evio-home');
const noIndexCfg = join(dir, 'noindex.json');
writeFileSync(noIndexCfg, JSON.stringify({ flatfileIndex: false }));
const envIndex = { ...process.env, EVIO_HOME: home };
delete envIndex.EVIO_CONFIG;
const envScan = { ...envIndex, EVIO_CONFIG: noIndexCfg };
const rg = which('rg');
const started = Date.now();
const loads = [loadAvg()];
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const FILES = [
  { order: 'evio', shape: 'wide', users: 200, hosts: 300 },
  { order: 'recnum-last', shape: 'wide', users: 200, hosts: 300 },
  { order: 'evio', shape: 'narrow', users: 8, hosts: 6 },
  { order: 'recnum-last', shape: 'narrow', users: 8, hosts: 6 },
];
for (const f of FILES) {
  f.path = join(dir, `${f.order}-${f.shape}-${EVENTS}.ndjson`);
  if (!existsSync(f.path)) {
    log(`generating ${f.path}`);
    const tmp = `${f.path}.tmp`;
    const g = await runProcess(evioArgv(['generate', 'events', '--count', String(EVENTS), '--seed', '7', '--key-order', f.order, '--users', String(f.users), '--hosts', String(f.hosts), '--out', tmp]), { stdout: 'null', env: envIndex });
    if (g.code !== 0) throw new Error(g.stderr);
    const { renameSync } = await import('node:fs');
    renameSync(tmp, f.path);
  }
  f.bytes = statSync(f.path).size;
  const ix = await runProcess(evioArgv(['events', 'index', f.path]), { stdout: 'pipe', env: envIndex });
  if (ix.code !== 0) throw new Error(ix.stderr);
  const rep = JSON.parse(ix.stdout.trim().split('\n')[0]);
  f.index = { outcome: rep.outcome, bytes: rep.indexBytes, blocks: rep.blocks, ms: rep.ms };
}

/** The lines of `text` holding `literal`. */
function linesOf(text, literal) {
  const out = [];
  for (let i = text.indexOf(literal); i !== -1; i = text.indexOf(literal, i + 1)) {
    const e = text.indexOf('\n', i);
    out.push(text.slice(text.lastIndexOf('\n', i) + 1, e));
    i = e;
  }
  return out;
}

/** The host of `user` whose line count is nearest `want`, and that count. */
function hostOf(text, user, want) {
  const counts = new Map();
  for (const l of linesOf(text, `"submituser":"${user}"`)) {
    const h = /"runhost":"([^"]*)"/.exec(l)?.[1];
    if (h) counts.set(h, (counts.get(h) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => Math.abs(a[1] - want) - Math.abs(b[1] - want) || (a[0] < b[0] ? -1 : 1))[0];
}

/** The uniqueid of the first accept after the middle of `text`. */
function uidOf(text) {
  const at = text.indexOf('"etype":"A"', Math.floor(text.length / 2));
  const line = text.slice(text.lastIndexOf('\n', at) + 1, text.indexOf('\n', at));
  return /"uniqueid":"([^"]*)"/.exec(line)[1];
}

const out = [];
const row = (cells) => out.push(`| ${cells.join(' | ')} |`);
out.push(`### 11b. Selectivity sweep: the index and its planner on logs in two key orders, beside rg (${fmtInt(EVENTS)} events)`, '');
out.push(`*Measured ${new Date().toISOString().replace(/\.\d+Z$/, 'Z')} by \`node bench/flatsweep.mjs${argv.length ? ` ${argv.join(' ')}` : ''}\` (run apart), load average ${loads[0]} at the start.*`, '');
out.push(
  `- Data: four logs of ${fmtInt(EVENTS)} events from \`evio generate events --seed 7\`, in evio's key order (\`recnum\` first) and in another program's (\`--key-order recnum-last\`: the same fields in another order, \`recnum\` last), each with 200 users × 300 hosts ("wide") and 8 users × 6 hosts ("narrow"); ${FILES.map((f) => `${f.order}/${f.shape} ${fmtBytes(f.bytes)} (index ${fmtBytes(f.index.bytes)}, ${fmtInt(f.index.blocks)} blocks, ${f.index.outcome}${f.index.outcome === 'built' ? ` in ${fmtMs(f.index.ms)}` : ''})`).join('; ')}.`,
  `- Whole process, page cache warm, ${RUNS} runs after a warm-up, median (min–max); every query \`--dump 1 --limit 100000000\`, its rows written to a pipe the harness reads, as rg's lines are. "evio, index" lets the planner choose (the path it took is shown); "evio, scan" is \`flatfileIndex: false\`. rg prints the matching lines of the equivalent pattern. Every count is checked: evio's rows = the scan's rows = rg's lines.`,
  `- In-process (\`bench/children/flatidx-query.mjs\`, ${RUNS} runs, the first dropped, median CPU time): the index forced (\`plan: 'index'\`) against the scan, rows shaped and serialized: where the index stops paying is the planner's break-even.`,
  '',
);
out.push('| key order | query | lines | rg | evio, index (planner) | path | evio, scan | evio ÷ rg (goal ≤ 1.5×) | index ÷ scan (goal ≤ 1) | in-process CPU: index forced / scan |', '|---|---|---:|---:|---:|---|---:|---:|---:|---:|');

const summary = [];
for (const shape of ['wide', 'narrow']) {
  // Values picked from the evio-order file (both orders hold the same records).
  const ref = readFileSync(FILES.find((f) => f.shape === shape && f.order === 'evio').path, 'latin1');
  const user = shape === 'wide' ? 'alice' : 'bob';
  // wide: the host nearest 0.001 % of the lines with this user; narrow: nearest 2 %.
  const [host] = hostOf(ref, user, shape === 'wide' ? EVENTS / 100_000 : 0.02 * EVENTS);
  const uid = uidOf(ref);
  const queries = shape === 'wide'
    ? [
      { label: `two fields: \`submituser=${user}&runhost=${host}\``, flags: ['--submituser', user, '--runhost', host], params: { submituser: user, runhost: host }, rg: [`"submituser":"${esc(user)}".*"runhost":"${esc(host)}"`] },
      { label: `one field: \`submituser=${user}\``, flags: ['--submituser', user], params: { submituser: user }, rg: ['-F', `"submituser":"${user}"`] },
      { label: `point lookup: \`uniqueid=${uid}\``, flags: ['--uniqueid', uid], params: { uniqueid: uid }, rg: ['-F', `"uniqueid":"${uid}"`] },
    ]
    : [
      { label: `two fields: \`submituser=${user}&runhost=${host}\``, flags: ['--submituser', user, '--runhost', host], params: { submituser: user, runhost: host }, rg: [`"submituser":"${esc(user)}".*"runhost":"${esc(host)}"`] },
      { label: `one field: \`submituser=${user}\``, flags: ['--submituser', user], params: { submituser: user }, rg: ['-F', `"submituser":"${user}"`] },
      { label: 'one field: `etype=F`', flags: ['--etype', 'F'], params: { etype: 'F' }, rg: ['-F', '"etype":"F"'] },
      { label: `point lookup: \`uniqueid=${uid}\``, flags: ['--uniqueid', uid], params: { uniqueid: uid }, rg: ['-F', `"uniqueid":"${uid}"`] },
    ];
  for (const f of FILES.filter((x) => x.shape === shape)) {
    loads.push(loadAvg());
    for (const qd of queries) {
      log(`${f.order}/${shape}: ${qd.label}`);
      const args = ['events', 'query', `ff:${f.path}`, ...qd.flags, '--dump', '1', '--limit', '100000000'];
      const rgT = rg ? await timeProcess([rg, ...qd.rg, f.path], { runs: RUNS, warmup: SMOKE ? 0 : 1, stdout: 'count' }) : null;
      const ixT = await timeProcess(evioArgv(args), { runs: RUNS, warmup: SMOKE ? 0 : 1, stdout: 'count', env: envIndex });
      const scT = await timeProcess(evioArgv(args), { runs: RUNS, warmup: SMOKE ? 0 : 1, stdout: 'count', env: envScan });
      const rows = ixT.last.lines;
      if (scT.last.lines !== rows) throw new Error(`${f.path} ${qd.label}: index ${rows} rows, scan ${scT.last.lines}`);
      if (rgT && rgT.last.lines !== rows) throw new Error(`${f.path} ${qd.label}: evio ${rows} rows, rg ${rgT.last.lines} lines`);
      const params = JSON.stringify({ ...qd.params, dump: '1', limit: '100000000' });
      const forced = await runChild('flatidx-query.mjs', [f.path, params, String(RUNS), 'on'], { env: { ...envIndex, FLATIDX_PLAN: 'index' } });
      const auto = await runChild('flatidx-query.mjs', [f.path, params, '1', 'on'], { env: envIndex });
      const scan = await runChild('flatidx-query.mjs', [f.path, params, String(RUNS), 'off'], { env: envIndex });
      if (forced.count !== rows || scan.count !== rows || auto.count !== rows) throw new Error(`${f.path} ${qd.label}: in-process ${forced.count}/${auto.count}/${scan.count} rows, CLI ${rows}`);
      const path = auto.indexed ? 'index' : auto.plannedScans ? 'scan (planner)' : 'scan (no index)';
      const vsRg = rgT ? ixT.median / rgT.median : NaN;
      const vsScan = ixT.median / scT.median;
      const cpuF = median(forced.cpu.slice(RUNS > 1 ? 1 : 0));
      const cpuS = median(scan.cpu.slice(RUNS > 1 ? 1 : 0));
      const sel = `${((100 * rows) / EVENTS).toFixed(rows * 1000 < EVENTS ? 4 : 1)} %`;
      row([f.order === 'evio' ? 'evio (`recnum` first)' : 'recnum last, other order', `${qd.label} (${sel})`, fmtInt(rows), rgT ? fmtTiming(rgT, RUNS) : 'rg not installed', fmtTiming(ixT, RUNS), path, fmtTiming(scT, RUNS), rgT ? `${vsRg.toFixed(2)}× ${vsRg <= 1.5 ? '✅' : '❌'}` : '–', `${vsScan.toFixed(2)} ${vsScan <= 1 ? '✅' : '❌'}`, `${fmtMs(cpuF)} / ${fmtMs(cpuS)} (${(cpuF / cpuS).toFixed(2)})`]);
      summary.push({ vsRg, vsScan });
    }
  }
}
out.push('');
const metRg = summary.filter((s) => s.vsRg <= 1.5).length;
const metScan = summary.filter((s) => s.vsScan <= 1).length;
out.push(`*Goals in this run: whole process ≤ 1.5× rg in ${metRg} of ${summary.length} rows; index (planner) no slower than the scan in ${metScan} of ${summary.length}. Load averages: ${loads.join(', ')}; ${((Date.now() - started) / 60000).toFixed(1)} min in all.*`, '');
const text = out.join('\n');
if (OUT) writeFileSync(OUT, text);
process.stdout.write(`${text}\n`);
if (SMOKE) rmSync(dir, { recursive: true, force: true });
