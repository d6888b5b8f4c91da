// Workload 8: REST. Requests/s and latency percentiles of a signed 512-event page over HTTP on
// loopback (autocannon; `evio serve` in its own process, every request signed with its own
// nonce), against the same call through dispatch() in-process.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fmtInt, fmtMs, fmtRss, NotAvailable } from '../lib/common.js';
import { runChild } from '../lib/evio.js';
import { procCpuMs, procPeakRssKB, startServe, writeKeystore } from '../lib/serve.js';

export const id = 8;
export const title = 'REST: a signed 512-event page over HTTP';

/** @param {import('../run.js').Ctx} ctx @returns {Promise<import('../lib/report.js').Section>} */
export async function run(ctx) {
  let autocannon;
  try {
    autocannon = (await import('autocannon')).default;
  } catch {
    throw new NotAvailable('autocannon is not installed (npm ci installs it: devDependency)');
  }
  const { signRequest } = await import('../../dist/signing.js');
  const ev = await ctx.data.events();
  /** @type {import('../lib/report.js').Section} */
  const section = { id, title, setup: [], rows: [], notes: [] };
  const cfgDir = join(ctx.dataDir, 'cfg');
  const home = join(cfgDir, 'rest-home');
  mkdirSync(home, { recursive: true });
  const { keystore, key } = writeKeystore(join(cfgDir, 'rest-keystore.json'));
  const config = join(cfgDir, 'rest.json');
  writeFileSync(config, JSON.stringify({ home, eventlogdirs: [ctx.dataDir], keystore, iologdirs: [home], workers: 1 }));
  const file = relative(ctx.dataDir, ev.path);
  const path = '/REST/v2.0/events';
  const query = { format: 'ff', file, limit: '512' };
  const target = `${path}?${new URLSearchParams(query)}`;
  const duration = ctx.smoke ? 1 : 10;
  section.setup.push(
    `Call: \`GET ${target}\` — the first 512 events of \`${ctx.rel(ev.path)}\` (${fmtInt(ev.count)} events), non-verbose, finish merge on; the answer is about ${fmtInt(512 * 300)} bytes of JSON.`,
    `HTTP: \`evio serve\` (fastify, its own process) on 127.0.0.1, keystore with one app (rate limit off); autocannon in the harness process signs every request (HMAC-SHA256 over method, path, sorted query and body hash, with a fresh \`nonce\` so no two signatures repeat) — ${duration} s with 1 connection (latency), then ${duration} s with 10 connections (throughput). Client and server share the machine's 2 cores.`,
    'In-process: the same request through `dispatch(engine, request)` (the handler the server calls, without HTTP, signature or fastify), its JSON chunks streamed and counted (the first call\'s answer is parsed and checked); tinybench in a child process. autocannon reports latencies in whole milliseconds.',
  );
  const { child, url } = /** @type {{ child: import('node:child_process').ChildProcess, url: string }} */ (await startServe(config));
  try {
    let nonce = 0;
    const sign = () => signRequest({ method: 'GET', target, appid: 'bench', key, nonce: `${process.pid}-${++nonce}` }).target;
    // One checked call: the answer must be a 512-event page with status 0.
    const res = await fetch(`${url}${sign()}`);
    const body = /** @type {any} */ (await res.json());
    if (body.status !== 0 || body.events?.length !== 512) throw new Error(`workload 8: the server answered ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
    /** @param {number} connections */
    const load = (connections) =>
      autocannon({
        url,
        connections,
        duration,
        requests: [{ method: 'GET', setupRequest: (/** @type {any} */ req) => ({ ...req, path: sign() }) }],
      });
    const one = await load(1);
    const ten = await load(10);
    const bad = one.non2xx + ten.non2xx + one.errors + ten.errors;
    if (bad) throw new Error(`workload 8: ${bad} failed requests (non-2xx or errors)`);
    const rss = procPeakRssKB(/** @type {number} */ (child.pid));
    const inproc = await runChild('bench-calls.mjs', ['dispatch', config, 'GET', path, JSON.stringify(query), ctx.smoke ? '500' : '5000']);
    if (inproc.count !== 512) throw new Error(`workload 8: in-process answer had ${inproc.count} events`);
    const lat = (/** @type {any} */ r) => `p50 ${fmtMs(r.latency.p50)}, p99 ${fmtMs(r.latency.p99)}`;
    section.rows.push({
      what: 'HTTP, 1 connection',
      evio: `${r0(one.requests.average)} req/s; ${lat(one)}; ${fmtInt(one.requests.total)} requests`,
      peerName: 'same call in-process (dispatch)',
      peer: `${r0(1000 / inproc.mean)} calls/s; p50 ${fmtMs(inproc.p50)}, p99 ${fmtMs(inproc.p99)}`,
      ratio: `HTTP + auth ${one.latency.mean >= inproc.mean ? '+' : '−'}${fmtMs(Math.abs(one.latency.mean - inproc.mean))} per call (mean ${fmtMs(one.latency.mean)} vs ${fmtMs(inproc.mean)}; ${(one.latency.mean / inproc.mean).toFixed(2)}×)`,
      goal: 'report (no goal)',
      status: 'no goal',
      rss: fmtRss(rss),
    });
    section.rows.push({
      what: 'HTTP, 10 connections',
      evio: `${r0(ten.requests.average)} req/s; ${lat(ten)}; ${fmtInt(ten.requests.total)} requests`,
      peerName: 'same call in-process (dispatch)',
      peer: `${r0(1000 / inproc.mean)} calls/s (one at a time)`,
      ratio: `${((100 * ten.requests.average) / (1000 / inproc.mean)).toFixed(0)} % of the in-process rate`,
      goal: 'report (no goal)',
      status: 'no goal',
      rss: fmtRss(rss),
      note: 'evio peak RSS here is the server process after both runs (VmHWM).',
    });
  } finally {
    child.kill('SIGTERM');
  }
  await requestLogCost(ctx, section, { autocannon, signRequest, cfgDir, home, keystore, key, target });
  return section;
}

/**
 * The request log's cost: two servers, one writing the log to a file and one with it off, given
 * the same fixed number of requests (10 connections) in alternating rounds. The figure is the
 * server's CPU time per request (from /proc), which another process's load on the machine
 * changes far less than requests/s; the rates are reported beside it.
 * @param {import('../run.js').Ctx} ctx
 * @param {import('../lib/report.js').Section} section
 * @param {{ autocannon: any, signRequest: any, cfgDir: string, home: string, keystore: string, key: string, target: string }} o
 */
async function requestLogCost(ctx, section, o) {
  const rounds = ctx.smoke ? 1 : 4;
  const amount = ctx.smoke ? 40 : 3000;
  const servers = [];
  try {
    for (const mode of ['off', 'file']) {
      const config = join(o.cfgDir, `rest-log-${mode}.json`);
      const requestLog = mode === 'off' ? 'off' : join(o.cfgDir, 'rest-requests.log');
      writeFileSync(config, JSON.stringify({ home: o.home, eventlogdirs: [ctx.dataDir], keystore: o.keystore, iologdirs: [o.home], workers: 1, requestLog }));
      servers.push({ mode, ...(/** @type {{ child: import('node:child_process').ChildProcess, url: string }} */ (await startServe(config))), cpu: 0, seconds: 0, requests: 0 });
    }
    let nonce = 0;
    const sign = () => o.signRequest({ method: 'GET', target: o.target, appid: 'bench', key: o.key, nonce: `log-${process.pid}-${++nonce}` }).target;
    // Warm-up (not measured): the JIT and the page cache, on both servers.
    for (const s of servers) await o.autocannon({ url: s.url, connections: 10, amount: Math.ceil(amount / 4), requests: [{ method: 'GET', setupRequest: (/** @type {any} */ req) => ({ ...req, path: sign() }) }] });
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? servers : [...servers].reverse();
      for (const s of order) {
        const pid = /** @type {number} */ (s.child.pid);
        const c0 = procCpuMs(pid);
        const t0 = process.hrtime.bigint();
        const res = await o.autocannon({ url: s.url, connections: 10, amount, requests: [{ method: 'GET', setupRequest: (/** @type {any} */ req) => ({ ...req, path: sign() }) }] });
        if (res.non2xx + res.errors) throw new Error(`workload 8: ${res.non2xx + res.errors} failed requests with the request log ${s.mode}`);
        s.seconds += Number(process.hrtime.bigint() - t0) / 1e9;
        s.cpu += (procCpuMs(pid)) - c0;
        s.requests += res.requests.total;
      }
    }
  } finally {
    for (const s of servers) s.child.kill('SIGTERM');
  }
  const [off, on] = servers;
  if (!off || !on) return;
  const per = (/** @type {any} */ s) => s.cpu / s.requests;
  const cost = per(on) / per(off) - 1;
  section.setup.push(
    `Request log: two servers, \`requestLog\` a file and \`"off"\`, each warmed up with ${fmtInt(Math.ceil(amount / 4))} requests, then ${rounds} alternating rounds of ${fmtInt(amount)} requests each (10 connections); the cost is the server's CPU time per request with the log over without it (utime + stime from /proc), which the load of other processes changes much less than requests/s.`,
  );
  section.rows.push({
    what: 'request log on (a file) vs off',
    evio: `${fmtMs(per(on))} CPU per request, ${r0(on.requests / on.seconds)} req/s (log on)`,
    peerName: 'the same server with requestLog off',
    peer: `${fmtMs(per(off))} CPU per request, ${r0(off.requests / off.seconds)} req/s`,
    ratio: `${cost >= 0 ? '+' : '−'}${(Math.abs(cost) * 100).toFixed(1)} % CPU per request`,
    goal: 'logging costs ≤ 10 %',
    status: cost <= 0.1 ? 'met' : 'missed',
    rss: '–',
  });
}

/** @param {number} x */
function r0(x) {
  return fmtInt(Math.round(x));
}
