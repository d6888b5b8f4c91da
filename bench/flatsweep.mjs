#!/usr/bin/env node
// BENCHMARKS.md sections 11b/11c (run apart from bench/run.js): the flat-file skip index and its
// planner across selectivities, on logs in evio's key order and in another program's order
// (recnum last, other key order), beside rg on the same file, whole process; the same queries
// as a warm page of the service; and a 12M-event (4 GB) tier.
//
//   node bench/flatsweep.mjs [--events N] [--runs N] [--service-runs N] [--data DIR]
//                            [--events12 DIR [--events12-count N]] [--no-sweep] [--smoke] [--out FILE]
//
// Data (generated when missing, reused otherwise): four logs of --events events (default
// 1,000,000; seed 7) written by `evio generate events`: {evio, recnum-last} key order ×
// {200 users × 300 hosts ("wide": one user on 0.5 % of the lines), 8 users × 6 hosts ("narrow":
// one user on 12.5 %)}. Their skip indexes are built with `evio events index` under an evio
// home of the data folder (the index key), beside each file for the CLI, and a second time into
// DIR/service-index (`flatfileIndexDir`), the only place the service looks for the index of a
// log a request names. Queries, all dump=1 (every record, so that a line count is the same
// answer): one user and one host (0.001 %, wide), one user (0.5 %, wide), one session by
// uniqueid (point lookup, both), one user and one host (2 %, narrow), one user (12.5 %, narrow),
// `etype=F` (≈ 50 %, narrow). The peer is `rg` printing the matching lines of an equivalent
// pattern (the fields' literals; two fields: `"submituser":"U".*"runhost":"H"`, both key orders
// write submituser first), its output read by the harness as evio's is.
// Every evio count is checked against rg's and the scan's; a difference fails the run.
// Per query: evio with the index (the planner's choice, and which path it took), evio without
// the index (flatfileIndex=false), rg; in-process (bench/children/flatidx-query.mjs) the index
// forced against the scan, which shows the break-even selectivity; and the service: one
// `evio serve` per data set (eventlogdirs: the data folder), `GET /REST/v2.0/events?format=ff&
// file=NAME&<query>&dump=1` without a limit (the default page), signed, over loopback
// keep-alive, body read in full, after warm-up calls; the page's rows are checked against the
// first rows of the CLI's answer (record by record).
// --events12 DIR: the 4 GB tier: the same four logs with --events12-count events (default
// 12,000,000) in DIR, indexed the same way; point lookups, 0.001 % and 0.5 % (wide), 2 %
// (narrow): rg, evio with the index (whole process, peak RSS) and the service page.
// --no-sweep: only the --events12 tier.
// --smoke: 20,000 events (and a 40,000-event "big" tier) in a temporary folder, one run each,
// prints the tables (npm run bench:smoke).
import { existsSync, mkdirSync, mkdtempSync, openSync, closeSync, readSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fmtBytes, fmtInt, fmtMs, fmtRss, fmtTiming, loadAvg, median, option, ROOT, runProcess, summarize, timeProcess, which } from './lib/common.js';
import { DATA_DIR } from './lib/data.js';
import { evioArgv, runChild } from './lib/evio.js';
import { procCpuMs, signer, startServe, stopServe, writeKeystore } from './lib/serve.js';

const argv = process.argv.slice(2);
const SMOKE = argv.includes('--smoke');
const SWEEP = !argv.includes('--no-sweep');
const EVENTS = Number(option('events', SMOKE ? 20_000 : 1_000_000));
const RUNS = Number(option('runs', SMOKE ? 1 : 3));
const SERVICE_RUNS = Number(option('service-runs', SMOKE ? 2 : 7));
const SERVICE_WARMUP = SMOKE ? 1 : 3;
const WARMUP = SMOKE ? 0 : 1;
const tmp = SMOKE ? mkdtempSync(join(tmpdir(), 'evio-sweep-')) : null;
const dir = tmp ?? option('data', join(DATA_DIR, 'flatsweep'));
const BIG_DIR = tmp ? join(tmp, 'big') : option('events12', null);
const BIG_EVENTS = Number(option('events12-count', SMOKE ? 40_000 : 12_000_000));
const OUT = option('out', SMOKE ? null : join(SWEEP ? dir : (BIG_DIR ?? dir), 'section.md'));
if (!SWEEP && !BIG_DIR) throw new Error('--no-sweep needs --events12 DIR');
const { DEFAULT_LIMIT } = await import(join(ROOT, 'dist/eventlog/query.js'));
const log = (s) => process.stderr.write(`${s}\n`);
const rg = which('rg');
const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const stamp = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');
const runs = (n) => `${n} run${n === 1 ? '' : 's'}`;
const calls = (n) => `${n} call${n === 1 ? '' : 's'}`;
const cmdLine = `node bench/flatsweep.mjs${argv.length ? ` ${argv.join(' ')}` : ''}`;

const SHAPES = [
  { order: 'evio', shape: 'wide', users: 200, hosts: 300 },
  { order: 'recnum-last', shape: 'wide', users: 200, hosts: 300 },
  { order: 'evio', shape: 'narrow', users: 8, hosts: 6 },
  { order: 'recnum-last', shape: 'narrow', users: 8, hosts: 6 },
];

/** `evio events index FILE` under `env`; its report. */
async function buildIndex(path, env) {
  const ix = await runProcess(evioArgv(['events', 'index', path]), { stdout: 'pipe', env });
  if (ix.code !== 0) throw new Error(`evio events index ${path}: ${ix.stderr}`);
  const rep = JSON.parse(ix.stdout.trim().split('\n')[0]);
  return { outcome: rep.outcome, bytes: rep.indexBytes, blocks: rep.blocks, ms: rep.ms };
}

/**
 * A data set: four logs of `events` events in `setDir` (generated when missing), each indexed
 * for the CLI (beside the file) and for the service (setDir/service-index).
 */
async function prepareSet(setDir, events) {
  mkdirSync(setDir, { recursive: true });
  const home = join(setDir, 'evio-home');
  const noIndexCfg = join(setDir, 'noindex.json');
  writeFileSync(noIndexCfg, JSON.stringify({ flatfileIndex: false }));
  const serviceIndexDir = join(setDir, 'service-index');
  const serviceIndexCfg = join(setDir, 'service-index.json');
  writeFileSync(serviceIndexCfg, JSON.stringify({ flatfileIndexDir: serviceIndexDir }));
  const envIndex = { ...process.env, EVIO_HOME: home };
  delete envIndex.EVIO_CONFIG;
  const envScan = { ...envIndex, EVIO_CONFIG: noIndexCfg };
  const files = SHAPES.map((s) => ({ ...s, path: join(setDir, `${s.order}-${s.shape}-${events}.ndjson`) }));
  for (const f of files) {
    if (!existsSync(f.path)) {
      log(`generating ${f.path}`);
      const t0 = Date.now();
      const part = `${f.path}.tmp`;
      const g = await runProcess(evioArgv(['generate', 'events', '--count', String(events), '--seed', '7', '--key-order', f.order, '--users', String(f.users), '--hosts', String(f.hosts), '--out', part]), { stdout: 'null', env: envIndex });
      if (g.code !== 0) throw new Error(g.stderr);
      renameSync(part, f.path);
      f.generatedMs = Date.now() - t0;
    }
    f.bytes = statSync(f.path).size;
    log(`indexing ${f.path}`);
    f.index = await buildIndex(f.path, envIndex);
    f.serviceIndex = await buildIndex(f.path, { ...envIndex, EVIO_CONFIG: serviceIndexCfg });
  }
  // The service: the data folder as its only event-log folder, the same home (index key) and
  // index folder, one app in a keystore, no request log.
  const app = writeKeystore(join(setDir, 'service-keystore.json'));
  const serviceCfg = join(setDir, 'service.json');
  writeFileSync(serviceCfg, JSON.stringify({ home, eventlogdirs: [setDir], flatfileIndexDir: serviceIndexDir, keystore: app.keystore, workers: 1, requestLog: 'off' }));
  return { dir: setDir, events, home, envIndex, envScan, files, app, serviceCfg };
}

/** "evio/wide 340.4 MB (index …)" for each file of a set. */
function describeFiles(set) {
  const ix = (i) => `${fmtBytes(i.bytes)}, ${fmtInt(i.blocks)} blocks, ${i.outcome}${i.outcome === 'built' ? ` in ${fmtMs(i.ms)}` : ''}`;
  return set.files.map((f) => `${f.order}/${f.shape} ${fmtBytes(f.bytes)}${f.generatedMs ? ` (generated in ${fmtMs(f.generatedMs)})` : ''} (CLI index ${ix(f.index)}; service index ${ix(f.serviceIndex)})`).join('; ');
}

/**
 * Values for the queries, read from `path` in chunks (a 4 GB file does not fit a string): the
 * host of `user` whose line count is nearest `want` (ties: the smaller name), and the uniqueid
 * of the first accept after the middle of the file.
 */
function pickValues(path, user, want) {
  const userLit = `"submituser":"${user}"`;
  const size = statSync(path).size;
  const half = Math.floor(size / 2);
  const counts = new Map();
  let uid = null;
  const fd = openSync(path, 'r');
  const buf = Buffer.alloc(64 << 20);
  let carry = '';
  let base = 0; // file offset of text[0]
  try {
    for (let pos = 0; ; ) {
      const n = readSync(fd, buf, 0, buf.length, pos);
      const eof = n === 0;
      pos += n;
      let text = carry + buf.toString('latin1', 0, n);
      const cut = eof ? text.length : text.lastIndexOf('\n') + 1;
      carry = text.slice(cut);
      text = text.slice(0, cut);
      for (let i = text.indexOf(userLit); i !== -1; ) {
        const s = text.lastIndexOf('\n', i) + 1;
        let e = text.indexOf('\n', i);
        if (e === -1) e = text.length;
        const h = /"runhost":"([^"]*)"/.exec(text.slice(s, e))?.[1];
        if (h) counts.set(h, (counts.get(h) ?? 0) + 1);
        i = text.indexOf(userLit, e);
      }
      if (uid === null && base + text.length > half) {
        const at = text.indexOf('"etype":"A"', Math.max(0, half - base));
        if (at !== -1) {
          let e = text.indexOf('\n', at);
          if (e === -1) e = text.length;
          uid = /"uniqueid":"([^"]*)"/.exec(text.slice(text.lastIndexOf('\n', at) + 1, e))[1];
        }
      }
      base += text.length;
      if (eof) break;
    }
  } finally {
    closeSync(fd);
  }
  const [host, hostLines] = [...counts].sort((a, b) => Math.abs(a[1] - want) - Math.abs(b[1] - want) || (a[0] < b[0] ? -1 : 1))[0];
  return { host, hostLines, uid };
}

/** The queries of one shape; `kinds` picks a subset (the 12M tier). */
function queriesFor(set, shape, kinds) {
  // Values picked from the evio-order file (both orders hold the same records).
  const user = shape === 'wide' ? 'alice' : 'bob';
  // wide: the host nearest 0.001 % of the lines with this user; narrow: nearest 2 %.
  const { host, uid } = pickValues(set.files.find((f) => f.shape === shape && f.order === 'evio').path, user, shape === 'wide' ? set.events / 100_000 : 0.02 * set.events);
  const two = { kind: 'two', label: `two fields: \`submituser=${user}&runhost=${host}\``, flags: ['--submituser', user, '--runhost', host], params: { submituser: user, runhost: host }, rg: [`"submituser":"${esc(user)}".*"runhost":"${esc(host)}"`] };
  const one = { kind: 'one', label: `one field: \`submituser=${user}\``, flags: ['--submituser', user], params: { submituser: user }, rg: ['-F', `"submituser":"${user}"`] };
  const point = { kind: 'point', label: `point lookup: \`uniqueid=${uid}\``, flags: ['--uniqueid', uid], params: { uniqueid: uid }, rg: ['-F', `"uniqueid":"${uid}"`] };
  const half = { kind: 'half', label: 'one field: `etype=F`', flags: ['--etype', 'F'], params: { etype: 'F' }, rg: ['-F', '"etype":"F"'] };
  const all = shape === 'wide' ? [two, one, point] : [two, one, half, point];
  return kinds ? all.filter((q) => kinds.includes(q.kind)) : all;
}

/** The query's whole processes: rg, evio with the index (and without it, `scan`). */
async function wholeProcesses(set, f, qd, { scan }) {
  const args = ['events', 'query', `ff:${f.path}`, ...qd.flags, '--dump', '1', '--limit', '100000000'];
  const rgT = rg ? await timeProcess([rg, ...qd.rg, f.path], { runs: RUNS, warmup: WARMUP, stdout: 'count' }) : null;
  const ixT = await timeProcess(evioArgv(args), { runs: RUNS, warmup: WARMUP, stdout: 'count', env: set.envIndex });
  const scT = scan ? await timeProcess(evioArgv(args), { runs: RUNS, warmup: WARMUP, stdout: 'count', env: set.envScan }) : null;
  const rows = ixT.last.lines;
  if (scT && scT.last.lines !== rows) throw new Error(`${f.path} ${qd.label}: index ${rows} rows, scan ${scT.last.lines}`);
  if (rgT && rgT.last.lines !== rows) throw new Error(`${f.path} ${qd.label}: evio ${rows} rows, rg ${rgT.last.lines} lines`);
  return { rgT, ixT, scT, rows };
}

/**
 * The service's warm page: `GET /REST/v2.0/events?format=ff&file=NAME&<query>&dump=1` (no limit:
 * the default page), signed, keep-alive, body read in full; SERVICE_WARMUP calls first, then
 * SERVICE_RUNS timed. The page is checked against the first rows of the CLI's answer (`rows`
 * in all), record by record. CPU: the server process's per call (from /proc).
 */
async function servicePage(set, srv, f, qd, rows) {
  const target = `/REST/v2.0/events?${new URLSearchParams({ format: 'ff', file: basename(f.path), ...qd.params, dump: '1' })}`;
  const call = async () => {
    const t0 = process.hrtime.bigint();
    const res = await fetch(`${srv.url}${srv.sign(target)}`);
    const text = await res.text();
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (res.status !== 200) throw new Error(`service ${target}: HTTP ${res.status}: ${text.slice(0, 500)}`);
    return { ms, text };
  };
  const first = await call();
  for (let i = 1; i < SERVICE_WARMUP; i++) await call();
  const body = JSON.parse(first.text);
  const page = body.events;
  if (body.status !== 0 || !Array.isArray(page)) throw new Error(`service ${target}: ${first.text.slice(0, 500)}`);
  const want = Math.min(rows, DEFAULT_LIMIT);
  if (page.length !== want || Boolean(body.more) !== rows > DEFAULT_LIMIT) throw new Error(`service ${target}: ${page.length} rows (more=${body.more}), the CLI answered ${rows}: expected ${want}`);
  // The CLI's first rows, record by record.
  const cli = await runProcess(evioArgv(['events', 'query', `ff:${f.path}`, ...qd.flags, '--dump', '1', '--limit', String(DEFAULT_LIMIT)]), { stdout: 'pipe', env: set.envIndex });
  if (cli.code !== 0) throw new Error(`evio events query ${qd.label} --limit ${DEFAULT_LIMIT}: ${cli.stderr}`);
  const lines = cli.stdout.split('\n').filter(Boolean);
  if (lines.length !== page.length) throw new Error(`service ${target}: ${page.length} rows, the CLI's first page ${lines.length}`);
  for (let i = 0; i < lines.length; i++) {
    // Compared as JSON values (whitespace and escapes aside), keys in order.
    if (JSON.stringify(page[i]) !== JSON.stringify(JSON.parse(lines[i]))) throw new Error(`service ${target}: row ${i} differs from the CLI's:\n${JSON.stringify(page[i])}\n${lines[i]}`);
  }
  const pid = /** @type {number} */ (srv.child.pid);
  const c0 = procCpuMs(pid);
  const all = [];
  for (let i = 0; i < SERVICE_RUNS; i++) {
    const r = await call();
    if (r.text.length !== first.text.length) throw new Error(`service ${target}: answers of ${first.text.length} and ${r.text.length} bytes`);
    all.push(r.ms);
  }
  const cpuPerCall = (procCpuMs(pid) - c0) / SERVICE_RUNS;
  return { ...summarize(all), all, rows: page.length, more: Boolean(body.more), bytes: Buffer.byteLength(first.text), cpuMs: cpuPerCall };
}

/** Starts the service of a set; `sign` signs a target with the set's app. */
async function startSetService(set) {
  const { child, url } = await startServe(set.serviceCfg, { timeoutMs: 60_000 });
  return { child, url, sign: await signer(set.app) };
}

const orderLabel = (f) => (f.order === 'evio' ? 'evio (`recnum` first)' : 'recnum last, other order');
const selOf = (rows, events) => {
  const pct = (100 * rows) / events;
  // One significant digit at least: 2 lines of 12M are 0.00002 %, not 0.0000 %.
  return `${pct.toFixed(rows * 1000 < events ? Math.max(4, Math.ceil(-Math.log10(pct || 1))) : 1)} %`;
};
const pageLabel = (p) => `${fmtInt(p.rows)} rows${p.more ? ' (page full, more=true)' : ''}`;
const ok = (met) => (met ? '✅' : '❌');

const out = [];
const row = (cells) => out.push(`| ${cells.join(' | ')} |`);
const pageNote = `the default page (no \`limit\`: ${fmtInt(DEFAULT_LIMIT)} records; a query with more matches fills one page and answers more=true)`;
out.push(`### 11c. ${[SWEEP ? `Selectivity sweep with the service's warm page (${fmtInt(EVENTS)} events)` : '', BIG_DIR ? `${fmtInt(BIG_EVENTS)} events${BIG_EVENTS === 12_000_000 ? ' (4 GB)' : ''}` : ''].filter(Boolean).join(', and ')}`, '');
out.push(`*Measured ${stamp()} by \`${cmdLine}\` (run apart), load average ${loadAvg()} at the start.*`, '');
const goalLines = [];
const timings = [];

if (SWEEP) {
  const t0 = Date.now();
  const loads = [loadAvg()];
  const set = await prepareSet(dir, EVENTS);
  out.push(`#### ${fmtInt(EVENTS)} events: whole process and the service's warm page`, '');
  out.push(
    `- Data: four logs of ${fmtInt(EVENTS)} events from \`evio generate events --seed 7\` in \`${dir}\`, in evio's key order (\`recnum\` first) and in another program's (\`--key-order recnum-last\`: the same fields in another order, \`recnum\` last), each with 200 users × 300 hosts ("wide") and 8 users × 6 hosts ("narrow"); ${describeFiles(set)}.`,
    `- Whole process, page cache warm, ${runs(RUNS)} after ${WARMUP ? 'a warm-up' : 'no warm-up'}, median (min–max); every query \`--dump 1 --limit 100000000\`, its rows written to a pipe the harness reads, as rg's lines are. "evio, index" lets the planner choose (the path it took is shown); "evio, scan" is \`flatfileIndex: false\`. rg prints the matching lines of the equivalent pattern. Every count is checked: evio's rows = the scan's rows = rg's lines.`,
    `- In-process (\`bench/children/flatidx-query.mjs\`, ${runs(RUNS)}${RUNS > 1 ? ', the first dropped' : ''}, median CPU time): the index forced (\`plan: 'index'\`) against the scan, rows shaped and serialized: where the index stops paying is the planner's break-even.`,
    `- Service: one \`evio serve\` (its own process, \`workers: 1\`, request log off; \`eventlogdirs\`: the data folder; the index in \`flatfileIndexDir\`, built by \`evio events index\`) for the whole set; \`GET /REST/v2.0/events?format=ff&file=NAME&<query>&dump=1\`, ${pageNote}, signed with a fresh nonce, over loopback keep-alive (Node's fetch in the harness), body read in full: ${calls(SERVICE_WARMUP)} to warm up, then ${SERVICE_RUNS} timed, median (min–max); "server CPU" is the server process's CPU time per call (/proc). The page is checked record by record against the first rows of the CLI's answer. Goal: the page ≥ 3× faster than rg's whole process (rg ÷ page).`,
    '',
  );
  out.push('| key order | query | lines | rg | evio, index (planner) | path | evio, scan | evio ÷ rg (goal ≤ 1.5×) | index ÷ scan (goal ≤ 1) | in-process CPU: index forced / scan | service, warm page | page rows | server CPU per page | rg ÷ page (goal ≥ 3×) |', '|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  const summary = [];
  const srv = await startSetService(set);
  try {
    for (const shape of ['wide', 'narrow']) {
      const queries = queriesFor(set, shape);
      for (const f of set.files.filter((x) => x.shape === shape)) {
        loads.push(loadAvg());
        for (const qd of queries) {
          log(`${f.order}/${shape}: ${qd.label}`);
          const { rgT, ixT, scT, rows } = await wholeProcesses(set, f, qd, { scan: true });
          const params = JSON.stringify({ ...qd.params, dump: '1', limit: '100000000' });
          const forced = await runChild('flatidx-query.mjs', [f.path, params, String(RUNS), 'on'], { env: { ...set.envIndex, FLATIDX_PLAN: 'index' } });
          const auto = await runChild('flatidx-query.mjs', [f.path, params, '1', 'on'], { env: set.envIndex });
          const scan = await runChild('flatidx-query.mjs', [f.path, params, String(RUNS), 'off'], { env: set.envIndex });
          if (forced.count !== rows || scan.count !== rows || auto.count !== rows) throw new Error(`${f.path} ${qd.label}: in-process ${forced.count}/${auto.count}/${scan.count} rows, CLI ${rows}`);
          const page = await servicePage(set, srv, f, qd, rows);
          const path = auto.indexed ? 'index' : auto.plannedScans ? 'scan (planner)' : 'scan (no index)';
          const vsRg = rgT ? ixT.median / rgT.median : NaN;
          const vsScan = ixT.median / scT.median;
          const pageX = rgT ? rgT.median / page.median : NaN;
          const cpuF = median(forced.cpu.slice(RUNS > 1 ? 1 : 0));
          const cpuS = median(scan.cpu.slice(RUNS > 1 ? 1 : 0));
          row([orderLabel(f), `${qd.label} (${selOf(rows, EVENTS)})`, fmtInt(rows), rgT ? fmtTiming(rgT, RUNS) : 'rg not installed', fmtTiming(ixT, RUNS), path, fmtTiming(scT, RUNS), rgT ? `${vsRg.toFixed(2)}× ${ok(vsRg <= 1.5)}` : '–', `${vsScan.toFixed(2)} ${ok(vsScan <= 1)}`, `${fmtMs(cpuF)} / ${fmtMs(cpuS)} (${(cpuF / cpuS).toFixed(2)})`, fmtTiming(page, SERVICE_RUNS), pageLabel(page), fmtMs(page.cpuMs), rgT ? `${pageX.toFixed(1)}× ${ok(pageX >= 3)}` : '–']);
          summary.push({ vsRg, vsScan, pageX, full: page.more });
        }
      }
    }
  } finally {
    await stopServe(srv.child);
  }
  out.push('');
  const metRg = summary.filter((s) => s.vsRg <= 1.5).length;
  const metScan = summary.filter((s) => s.vsScan <= 1).length;
  const metPage = summary.filter((s) => s.pageX >= 3).length;
  const minutes = (Date.now() - t0) / 60000;
  timings.push(`${fmtInt(EVENTS)} events ${minutes.toFixed(1)} min`);
  const line = `whole process ≤ 1.5× rg in ${metRg} of ${summary.length} rows; index (planner) no slower than the scan in ${metScan} of ${summary.length}; service page ≥ 3× faster than rg's whole process in ${metPage} of ${summary.length} (in ${summary.filter((s) => s.full).length} rows the page is full: ${fmtInt(DEFAULT_LIMIT)} records against rg's every line)`;
  goalLines.push(`${fmtInt(EVENTS)} events: ${line}`);
  out.push(`*Goals in this run: ${line}. Load averages: ${loads.join(', ')}; ${minutes.toFixed(1)} min in all.*`, '');
}

if (BIG_DIR) {
  const t0 = Date.now();
  const loads = [loadAvg()];
  const set = await prepareSet(BIG_DIR, BIG_EVENTS);
  out.push(`#### ${fmtInt(BIG_EVENTS)} events: whole process against rg (goal: evio ≥ 5× faster), and the service's warm page`, '');
  out.push(
    `- Data: the same four logs with ${fmtInt(BIG_EVENTS)} events (seed 7) in \`${BIG_DIR}\`: ${describeFiles(set)}.`,
    `- Whole process as above (${runs(RUNS)} after ${WARMUP ? 'a warm-up' : 'no warm-up'}, median (min–max), page cache warm when the files fit in memory; peak RSS of evio from GNU time); no scan column (a scan of 4 GB is ~12× the 1M scan) and no forced-index column; "path" from one in-process run with the planner's choice. Service page as above (${calls(SERVICE_WARMUP)} to warm up, ${SERVICE_RUNS} timed), checked against the CLI's first rows.`,
    '',
  );
  out.push('| key order | query | lines | rg | evio, index (planner) | path | evio peak RSS | rg ÷ evio (goal ≥ 5×) | service, warm page | page rows | server CPU per page | rg ÷ page |', '|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|');
  const summary = [];
  const srv = await startSetService(set);
  try {
    for (const shape of ['wide', 'narrow']) {
      const queries = queriesFor(set, shape, shape === 'wide' ? ['two', 'one', 'point'] : ['two', 'point']);
      for (const f of set.files.filter((x) => x.shape === shape)) {
        loads.push(loadAvg());
        for (const qd of queries) {
          log(`${BIG_EVENTS} ${f.order}/${shape}: ${qd.label}`);
          const { rgT, ixT, rows } = await wholeProcesses(set, f, qd, { scan: false });
          const auto = await runChild('flatidx-query.mjs', [f.path, JSON.stringify({ ...qd.params, dump: '1', limit: '100000000' }), '1', 'on'], { env: set.envIndex });
          if (auto.count !== rows) throw new Error(`${f.path} ${qd.label}: in-process ${auto.count} rows, CLI ${rows}`);
          const page = await servicePage(set, srv, f, qd, rows);
          const path = auto.indexed ? 'index' : auto.plannedScans ? 'scan (planner)' : 'scan (no index)';
          const faster = rgT ? rgT.median / ixT.median : NaN;
          const pageX = rgT ? rgT.median / page.median : NaN;
          row([orderLabel(f), `${qd.label} (${selOf(rows, BIG_EVENTS)})`, fmtInt(rows), rgT ? fmtTiming(rgT, RUNS) : 'rg not installed', fmtTiming(ixT, RUNS), path, fmtRss(ixT.rssKB), rgT ? `${faster.toFixed(2)}× ${ok(faster >= 5)}` : '–', fmtTiming(page, SERVICE_RUNS), pageLabel(page), fmtMs(page.cpuMs), rgT ? `${pageX.toFixed(1)}×` : '–']);
          summary.push({ faster, pageX });
        }
      }
    }
  } finally {
    await stopServe(srv.child);
  }
  out.push('');
  const met = summary.filter((s) => s.faster >= 5).length;
  const minutes = (Date.now() - t0) / 60000;
  timings.push(`${fmtInt(BIG_EVENTS)} events ${minutes.toFixed(1)} min`);
  const line = `whole process ≥ 5× faster than rg in ${met} of ${summary.length} rows (rg ÷ evio ${Math.min(...summary.map((s) => s.faster)).toFixed(2)}–${Math.max(...summary.map((s) => s.faster)).toFixed(2)}×); service page ${Math.min(...summary.map((s) => s.pageX)).toFixed(1)}–${Math.max(...summary.map((s) => s.pageX)).toFixed(1)}× faster than rg's whole process`;
  goalLines.push(`${fmtInt(BIG_EVENTS)} events: ${line}`);
  out.push(`*Goals in this run: ${line}. Load averages: ${loads.join(', ')}; ${minutes.toFixed(1)} min in all (data preparation included).*`, '');
}

out.push(`*In all: ${goalLines.join(' — ')}. Took ${timings.join(', ')}; load average ${loadAvg()} at the end.*`, '');
const text = out.join('\n');
if (OUT) writeFileSync(OUT, text);
process.stdout.write(`${text}\n`);
if (tmp) rmSync(tmp, { recursive: true, force: true });
