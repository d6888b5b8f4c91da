#!/usr/bin/env node
// PostgreSQL page latency (issue 25 point 5): the service's 512-event page against psql's
// execution of the same SQL, in one run, and where the rest of the page's time goes.
//
//   node bench/pg-page.mjs [--schema evio_page25] [--user alice] [--rounds 5] [--n 60] [--out FILE]
//
// Needs the built dist/, psql, and a schema of PostgreSQL (EVIO_BENCH_PG, default
// postgres://postgres@127.0.0.1:5432/test) holding events loaded with
// `evio events copy --to pg:URL` (URL with options=-c search_path=SCHEMA), ANALYZEd.
//
// Measured, round by round (each round runs every measurement once, N calls each, so all of
// them see the same machine load; medians over all calls):
//   psql      EXPLAIN (ANALYZE, TIMING OFF): the server's execution time and planning time;
//             \timing of the statement itself (client round trip, rows printed to /dev/null);
//             `psql -c SQL` as a whole process.
//   in-process (this process, the shipped dist/), each layer on top of the one before:
//             pool checkout + release; the statement through a held pg client (rows as
//             node-postgres builds them); the same with a named prepared statement; the store's
//             query (checkout, statement, evio's row decoding); the application's answer
//             (reader slots, paging, shaping); dispatch() with the JSON serialised (the handler
//             the server calls, without HTTP).
//   service   GET /REST/v2.0/events over loopback to `evio serve` (its own process), signed,
//             keep-alive, body read: the page as a client sees it.
//   CLI       `evio events query pg:NAME --submituser U -n 512` as a whole process.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fmtMs, median, option, ROOT } from './lib/common.js';
import { procCpuMs, startServe, writeKeystore } from './lib/serve.js';
import { storeStatement } from './lib/sqlpeer.js';

const PG = process.env.EVIO_BENCH_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = option('schema', 'evio_page25');
const user = option('user', 'alice');
const rounds = Number(option('rounds', '5'));
const N = Number(option('n', '60'));
const out = option('out', null);
const log = (s) => process.stderr.write(`${s}\n`);

const { Engine, loadSettings, dispatch, openStoreByName, parseEventQuery, signRequest } = await import(join(ROOT, 'dist/index.js'));
const { queryEvents } = await import(join(ROOT, 'dist/app/events.js'));
const { default: pg } = await import('pg');

const url = new URL(PG);
url.searchParams.set('options', `-c search_path=${schema}`);
const storeUrl = url.toString();
const pgu = new URL(PG);
const psqlBase = ['-X', '-q', '-h', pgu.hostname, '-p', pgu.port || '5432', '-U', decodeURIComponent(pgu.username || 'postgres'), '-d', pgu.pathname.slice(1)];

const work = mkdtempSync(join(tmpdir(), 'evio-bench-pgpage-'));
const { keystore, key } = writeKeystore(join(work, 'keystore.json'));
const config = join(work, 'evio.json');
// The request log gives the server's own time per call (arrival to the last byte written).
const requestLog = join(work, 'requests.log');
writeFileSync(config, JSON.stringify({ home: join(work, 'home'), keystore, databases: { bench: storeUrl }, eventdb: 'bench', requestLog, workers: 1 }));

const params = { submituser: user, limit: '512' };
const st = await storeStatement('pg', params);
const rows = Number(spawnSync('psql', [...psqlBase, '-A', '-t', '-c', `SELECT count(*) FROM ${schema}.events`], { encoding: 'utf8' }).stdout.trim());

/** CPU time (user + system) of this process, or of process `pid` (from /proc), ms. */
function cpuMs(pid) {
  if (pid === undefined) {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  }
  return procCpuMs(pid);
}

/** CPU ms per call, per measurement: what the load of other processes changes least. */
const CPU = {};

/**
 * Times `fn` N times; returns the milliseconds of each call, and adds the CPU time per call of
 * this process (or of process `pid`: the server) to CPU[name].
 */
async function times(name, fn, pid) {
  const t = [];
  const c0 = cpuMs(pid);
  for (let i = 0; i < N; i++) {
    const s = process.hrtime.bigint();
    await fn();
    t.push(Number(process.hrtime.bigint() - s) / 1e6);
  }
  (CPU[name] ??= []).push((cpuMs(pid) - c0) / N);
  return t;
}

const timeFile = join(work, 'time');
/** One whole process: wall ms, and CPU ms (user + system, GNU time) added to CPU[name]. */
function wholeProcess(name, argv) {
  const t = process.hrtime.bigint();
  const p = spawnSync('/usr/bin/time', ['-f', '%U %S', '-o', timeFile, ...argv], { stdio: ['ignore', 'ignore', 'pipe'] });
  const wall = Number(process.hrtime.bigint() - t) / 1e6;
  if (p.status !== 0) throw new Error(`${argv.join(' ')}: ${p.stderr}`);
  (CPU[name] ??= []).push(readFileSync(timeFile, 'utf8').trim().split('\n').pop().split(' ').reduce((a, x) => a + Number(x) * 1000, 0));
  return wall;
}

function psqlScript(script) {
  const r = spawnSync('psql', [...psqlBase, '-v', 'ON_ERROR_STOP=1'], { input: script, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`psql: ${r.stderr}`);
  return r.stdout;
}

const engine = new Engine(loadSettings({ config }));
const tz = engine.settings.timezone;
const { query } = parseEventQuery({ ...params, format: 'db' }, tz);
const store = await openStoreByName(engine, 'pg:bench');
const pool = new pg.Pool({ connectionString: storeUrl, max: 1 });
const held = new pg.Client({ connectionString: storeUrl });
await held.connect();
const prepared = { name: 'evio_bench_page', text: st.sql, values: st.params };
const { child: server, url: base } = await startServe(config);
let nonce = 0;
const target = `/REST/v2.0/events?${new URLSearchParams(params)}`;

const M = {
  execution: [], planning: [], psqlRoundTrip: [], psqlProcess: [],
  checkout: [], driver: [], driverPrepared: [], store: [], app: [], dispatch: [], rest: [], restServer: [], cli: [],
};
const check = (what, n) => {
  if (n !== 512) throw new Error(`${what} returned ${n} rows, 512 expected`);
};

try {
  for (let r = 0; r < rounds; r++) {
    // psql: the server's execution, the statement's round trip, the whole process.
    const explain = psqlScript(`SET search_path = ${schema};\n${`EXPLAIN (ANALYZE, TIMING OFF) ${st.inlined};\n`.repeat(N + 3)}`);
    M.execution.push(...[...explain.matchAll(/Execution Time: ([\d.]+) ms/g)].map((m) => Number(m[1])).slice(3));
    M.planning.push(...[...explain.matchAll(/Planning Time: ([\d.]+) ms/g)].map((m) => Number(m[1])).slice(3));
    const timed = psqlScript(`SET search_path = ${schema};\n\\timing on\n\\o /dev/null\n${`${st.inlined};\n`.repeat(N + 3)}`);
    M.psqlRoundTrip.push(...[...timed.matchAll(/Time: ([\d.]+) ms/g)].map((m) => Number(m[1])).slice(3));
    for (let i = 0; i < Math.min(N, 15); i++) M.psqlProcess.push(wholeProcess('psqlProcess', ['psql', ...psqlBase, '-o', '/dev/null', '-c', `SET search_path = ${schema}`, '-c', st.inlined]));
    // In-process layers.
    M.checkout.push(...(await times('checkout', async () => (await pool.connect()).release())));
    M.driver.push(...(await times('driver', async () => check('pg client', (await held.query(st.sql, st.params)).rows.length))));
    M.driverPrepared.push(...(await times('driverPrepared', async () => check('pg client, prepared', (await held.query(prepared)).rows.length))));
    M.store.push(...(await times('store', async () => {
      let n = 0;
      // The batched path the application reads (a tree without it: one row at a time).
      if (store.queryBatches) for await (const b of store.queryBatches(query, { summary: true })) n += b.length;
      else for await (const _ of store.query(query, { summary: true })) n++;
      check('store.query', n);
    })));
    M.app.push(...(await times('app', async () => {
      let n = 0;
      const answer = await queryEvents(engine, { ...params, format: 'db' });
      if (answer.batches) for await (const b of answer.batches) n += b.length;
      else for await (const _ of answer.events) n++;
      check('queryEvents', n);
    })));
    M.dispatch.push(...(await times('dispatch', async () => {
      const res = await dispatch(engine, { method: 'GET', path: '/REST/v2.0/events', query: { ...params }, signal: new AbortController().signal, remote: '127.0.0.1' });
      let bytes = 0;
      for await (const c of res.chunks) bytes += c.length;
      if (bytes < 1000) throw new Error('dispatch: short answer');
    })));
    // The service over loopback (keep-alive), body read in full.
    M.rest.push(...(await times('rest', async () => {
      const signed = signRequest({ method: 'GET', target, appid: 'bench', key, nonce: `${process.pid}-${++nonce}` }).target;
      const res = await fetch(`${base}${signed}`);
      const text = await res.text();
      if (res.status !== 200) throw new Error(`REST ${res.status}: ${text.slice(0, 300)}`);
    }, server.pid)));
    // The CLI, whole process.
    for (let i = 0; i < Math.min(N, 15); i++) M.cli.push(wholeProcess('cli', [process.execPath, join(ROOT, 'bin/evio.js'), '--config', config, 'events', 'query', 'pg:bench', '--submituser', user, '-n', '512']));
    log(`pg-page: round ${r + 1}/${rounds}, load average ${loadavg()[0].toFixed(2)}`);
  }
  for (const line of readFileSync(requestLog, 'utf8').split('\n')) {
    if (!line) continue;
    const l = JSON.parse(line);
    if (l.path === '/REST/v2.0/events' && l.rows === 512) M.restServer.push(l.ms);
  }
} finally {
  server.kill('SIGTERM');
  await held.end();
  await pool.end();
  await engine.close();
  rmSync(work, { recursive: true, force: true });
}

const m = Object.fromEntries(Object.entries(M).map(([k, v]) => [k, median(v)]));
const cpu = Object.fromEntries(Object.entries(CPU).map(([k, v]) => [k, median(v)]));
const row = (what, k, extra = '') => `| ${what} | ${fmtMs(m[k])} | ${k in cpu ? fmtMs(cpu[k]) : '–'} | ${M[k].length} | ${extra} |`;
const delta = (d) => `${d >= 0 ? '+' : '−'}${fmtMs(Math.abs(d))}`;
const step = (k, prev) => `${delta(m[k] - m[prev])} over the row above`;
const lines = [
  `*Measured ${new Date().toISOString().replace(/\.\d+Z$/, 'Z')} by \`node bench/pg-page.mjs --rounds ${rounds} --n ${N}\` on ${rows.toLocaleString('en-US')} events (schema \`${schema}\`); ${rounds} rounds, every measurement in each; medians of all calls; load average ${loadavg().map((x) => x.toFixed(2)).join(', ')} at the end.*`,
  '',
  `SQL: \`${st.inlined}\``,
  '',
  '| measurement | wall, median | CPU per call (median of the rounds; whole processes: median of the runs) | calls | note |',
  '|---|---:|---:|---:|---|',
  row('psql: `EXPLAIN (ANALYZE, TIMING OFF)` execution time (server)', 'execution', `planning ${fmtMs(m.planning)} more`),
  row('psql: `\\timing` of the statement (client round trip, rows to /dev/null)', 'psqlRoundTrip'),
  row('psql: whole process (`psql -c SQL -o /dev/null`)', 'psqlProcess'),
  row('in-process: pool checkout + release', 'checkout'),
  row('in-process: the statement through a held pg client (rows as node-postgres builds them)', 'driver'),
  row('in-process: the same, as a named prepared statement', 'driverPrepared'),
  row('in-process: `store.queryBatches` (checkout, statement, evio decoding the rows)', 'store', step('store', 'driver')),
  row('in-process: `queryEvents` (reader slots, paging, shaping)', 'app', step('app', 'store')),
  row('in-process: `dispatch` (the handler, JSON serialised)', 'dispatch', step('dispatch', 'app')),
  row('service: GET over loopback (signed, keep-alive, body read); CPU: the server process', 'rest', `${step('rest', 'dispatch')} (HTTP, signature check)`),
  row('service: the same calls timed by the server (request log: arrival to the last byte written)', 'restServer', `${delta(m.restServer - m.dispatch)} over \`dispatch\``),
  row('CLI: `evio events query pg:NAME --submituser U -n 512`, whole process', 'cli'),
  '',
  `Ratios: service page / psql execution ${(m.rest / m.execution).toFixed(2)}× (goal ≤ 1.3×; timed by the server ${(m.restServer / m.execution).toFixed(2)}×); service page / psql round trip ${(m.rest / m.psqlRoundTrip).toFixed(2)}× (by the server ${(m.restServer / m.psqlRoundTrip).toFixed(2)}×); node-postgres alone (held client) / psql execution ${(m.driver / m.execution).toFixed(2)}×; CLI whole process / psql whole process ${(m.cli / m.psqlProcess).toFixed(2)}× (goal ≤ 3×; in CPU time ${(cpu.cli / cpu.psqlProcess).toFixed(2)}×).`,
];
const text = `${lines.join('\n')}\n`;
process.stdout.write(text);
if (out) writeFileSync(out, text);
