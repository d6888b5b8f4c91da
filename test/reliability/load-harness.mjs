// Load harness shared by the short load test (test/reliability/load.test.ts) and the long form
// (`npm run soak`, test/reliability/soak.mjs). Runs on the compiled code in dist/ (npm run build
// first): a temp data folder with a flat-file log, an SQLite log and an I/O log root, the real
// server on a loopback port in this process, autocannon with several connections sending a mix
// of signed requests (each signed when sent, with a fresh timestamp and nonce), and an appender
// that appends to the flat-file log through the library at a steady rate and keeps every
// acknowledged recnum. Afterwards it reads the log back and reports what it found.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { Engine } from '../../dist/engine.js';
import { generateEvents } from '../../dist/eventlog/generate.js';
import { openStoreByName } from '../../dist/eventlog/stores.js';
import { writeKeystore } from '../../dist/keystore.js';
import { startServer } from '../../dist/http/server.js';
import { signRequest } from '../../dist/signing.js';
import { generateSessions } from '../../dist/iolog/generate-sessions.js';
import { indexEventLog } from '../../dist/app/events-index.js';
import { loadSettings } from '../../dist/settings.js';

const KEY = 'f'.repeat(64);
const APPID = 'loader';

function writeLog(path, count, seed) {
  const lines = [];
  for (const rec of generateEvents({ count, seed })) lines.push(JSON.stringify(rec));
  writeFileSync(path, `${lines.join('\n')}\n`);
}

/**
 * The routes the clients cycle through (each connection goes round this list), each with its
 * class: the latency goal (docs/reliability.md) is on chunks, screens and indexed queries.
 */
function targets() {
  // One of each class first: every connection goes through the list in order, so even a run
  // that a loaded machine keeps to a few requests per connection makes every class of call.
  return [
    ['query', '/REST/v2.0/events?format=ff&file=live.ndjson&limit=50'],
    ['indexed', '/REST/v2.0/events?format=ff&file=indexed.ndjson&submituser=alice&limit=50'],
    ['chunk', '/REST/iolog?file=00/00/01&start=0&len=4096'],
    ['replay', '/REST/iolog/replay?file=00/00/02&start=0&len=8192'],
    ['screen', '/REST/iolog/screen?file=00/00/03&at=2'],
    ['search', '/REST/iolog/search?file=00/00/0*&query=output:root'],
    ['list', '/REST/iolog/list?start=0&len=20'],
    ['query', '/REST/v2.0/events?format=ff&file=live.ndjson&runuser=root&submithost=web*&limit=20'],
    ['query', '/REST/v2.0/events?format=db&file=events.sqlite&limit=50&order=time&orderdirection=desc'],
    ['query', '/REST/v2.0/events?format=db&file=events.sqlite&runcommand=*bin*&limit=20'],
    ['indexed', '/REST/v2.0/events?format=ff&file=indexed.ndjson&submithost=db0*&runuser=postgres&limit=50'],
    ['chunk', '/REST/iolog?file=00/00/05&at=3&len=8192'],
    ['screen', '/REST/iolog/screen?file=00/00/04'],
    ['list', '/REST/iolog?path=00/00'],
  ];
}

function wholeOk(body) {
  try {
    return JSON.parse(body).status === 0;
  } catch {
    return false;
  }
}

/** p50, p99 and max of a list of milliseconds. */
function percentiles(ms) {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] : null);
  return { count: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? null };
}

/**
 * @param {{ seconds: number, connections?: number, appendEveryMs?: number, warmupSeconds?: number, indexedEvents?: number, log?: (s: string) => void }} opts
 */
export async function runLoad(opts) {
  const log = opts.log ?? (() => {});
  const connections = opts.connections ?? 4;
  const appendEveryMs = opts.appendEveryMs ?? 20;
  const warmupSeconds = opts.warmupSeconds ?? Math.min(2, opts.seconds / 4);
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'evio-load-')));
  // The request log as in production, to a file (LOAD_REQUEST_LOG=off measures the service without it).
  const requestLog = process.env.LOAD_REQUEST_LOG === 'off' ? 'off' : join(dir, 'requests.log');
  const settings = loadSettings({ env: { EVIO_HOME: dir }, overrides: { host: '127.0.0.1', port: 0, requestLog } });
  writeKeystore(settings.keystore, { apps: { [APPID]: { key: KEY, scheme: 'hmac-sha256', created: '2026-01-01T00:00:00.000Z', rateLimit: 0 } } });
  const engine = new Engine(settings);
  let server;
  try {
    const live = join(dir, 'live.ndjson');
    writeLog(live, 20_000, 11);
    // A static log with its skip index built, for the indexed queries.
    const indexed = join(dir, 'indexed.ndjson');
    writeLog(indexed, opts.indexedEvents ?? 100_000, 15);
    await indexEventLog(engine, { file: indexed });
    const db = await openStoreByName(engine, `db:${join(dir, 'events.sqlite')}`);
    await db.append(generateEvents({ count: 20_000, seed: 12 }));
    const iolog = join(dir, 'iolog');
    mkdirSync(iolog, { recursive: true });
    generateSessions({ count: 40, seed: 13, out: iolog });
    server = await startServer(engine, {});

    // The appender: one record every appendEveryMs through the library, acknowledged recnums kept.
    const ff = await openStoreByName(engine, `ff:${live}`);
    const acked = [];
    let appendErrors = 0;
    let appending = true;
    const gen = generateEvents({ count: 1_000_000, seed: 14, start: 1_800_000_000 });
    const appender = (async () => {
      while (appending) {
        const next = gen.next();
        if (next.done) break;
        const { recnum: _drop, ...rec } = next.value;
        try {
          const r = await ff.append([rec]);
          if (r.first !== null) acked.push(r.first);
        } catch (err) {
          appendErrors++;
          log(`append failed: ${err?.message ?? err}`);
        }
        await new Promise((res) => setTimeout(res, appendEveryMs));
      }
    })();

    // RSS samples of this process (the server runs here): one a second.
    const rss = [];
    const sampler = setInterval(() => rss.push({ t: Date.now(), rss: process.memoryUsage().rss }), 1000);
    const startedAt = Date.now();

    const bodyErrors = [];
    // Per class, the time from a request's signing (just before it is sent) to its answer.
    const latencies = {};
    const requests = targets().map(([kind, path]) => ({
      method: 'GET',
      path,
      setupRequest: (req, context) => {
        const { target } = signRequest({ method: 'GET', target: path, appid: APPID, key: KEY, nonce: randomBytes(8).toString('hex') });
        context.sentAt = performance.now();
        return { ...req, path: target };
      },
      onResponse: (status, body, context) => {
        (latencies[kind] ??= []).push(performance.now() - context.sentAt);
        // A streamed answer carries its status last; a failure after the first record is a 200.
        // A whole answer (the screen) says it where JSON puts it.
        if (status === 200 && !/"status":0\}\s*$/.test(body) && !wholeOk(body) && bodyErrors.length < 20) bodyErrors.push(`${path}: ${body.slice(-200)}`);
      },
    }));
    const result = await autocannon({
      url: server.url,
      connections,
      duration: opts.seconds,
      requests,
      timeout: 30,
    });
    clearInterval(sampler);
    appending = false;
    await appender;

    // Every acknowledged recnum must be in the file, and the file must parse line by line.
    const text = readFileSync(live, 'utf8');
    const lines = text.split('\n');
    const trailingNewline = lines.at(-1) === '';
    if (trailingNewline) lines.pop();
    let unparsable = 0;
    const present = new Set();
    for (const line of lines) {
      try {
        present.add(JSON.parse(line).recnum);
      } catch {
        unparsable++;
      }
    }
    const missing = acked.filter((r) => !present.has(r));
    const warm = rss.filter((s) => s.t - startedAt >= warmupSeconds * 1000);
    const statusCodes = result.statusCodeStats ?? {};
    return {
      seconds: opts.seconds,
      connections,
      requests: result.requests.total,
      requestsPerSecond: result.requests.average,
      latencyP50: result.latency.p50,
      latencyP99: result.latency.p99,
      latencyMax: result.latency.max,
      byKind: Object.fromEntries(Object.entries(latencies).map(([k, v]) => [k, percentiles(v)])),
      statusCodes: Object.fromEntries(Object.entries(statusCodes).map(([k, v]) => [k, v.count])),
      non2xx: result.non2xx,
      errors: result.errors,
      timeouts: result.timeouts,
      bodyErrors,
      appendsAcknowledged: acked.length,
      appendErrors,
      appendsFound: acked.length - missing.length,
      missing: missing.slice(0, 20),
      unparsableLines: unparsable,
      trailingNewline,
      rssWarmStart: warm[0]?.rss ?? null,
      rssEnd: warm.at(-1)?.rss ?? null,
      rssMaxAfterWarmup: warm.reduce((m, s) => Math.max(m, s.rss), 0),
      rssSamples: rss.length,
      // Ten evenly spaced samples over the whole run (MiB), to see whether RSS levels off.
      rssTrajectoryMiB: Array.from({ length: Math.min(10, rss.length) }, (_, i) => Math.round(rss[Math.floor((i * (rss.length - 1)) / Math.max(1, Math.min(10, rss.length) - 1))].rss / 1048576)),
    };
  } finally {
    await server?.close();
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
