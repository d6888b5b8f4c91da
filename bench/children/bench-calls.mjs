// Child process: in-process micro-benchmarks with tinybench against the shipped engine (dist/).
//   node bench/children/bench-calls.mjs iolog-list CONFIG 'PARAMS-JSON' [TIME_MS]
//   node bench/children/bench-calls.mjs dispatch CONFIG 'METHOD' 'PATH' 'QUERY-JSON' [TIME_MS]
//   node bench/children/bench-calls.mjs query CONFIG STORE 'PARAMS-JSON' [TIME_MS]   (store.query, rows shaped)
//   node bench/children/bench-calls.mjs sql CONFIG sqlite|pg 'PARAMS-JSON'          (prints the store's SELECT)
//   node bench/children/bench-calls.mjs driver CONFIG sqlite:PATH|pg:URL 'PARAMS-JSON' [TIME_MS]
//        (the store's SELECT through the driver alone: better-sqlite3 .all() or a pg.Client query,
//         rows as the driver returns them, not decoded, shaped or serialized)
// Prints {count, samples, mean, p50, p99, min, max, maxRssKB} (milliseconds) as one JSON line.
import { Bench } from 'tinybench';
import { Engine, loadSettings, dispatch, openStoreByName, parseEventQuery, parseStoreName, shapeEvent } from '../../dist/index.js';
import { iologList } from '../../dist/app/iolog.js';

const [kind, config, ...rest] = process.argv.slice(2);
const engine = new Engine(loadSettings(config && config !== '-' ? { config } : { env: {} }));
let count = 0;
/** @type {() => Promise<void>} */
let fn;
let timeMs = 2000;
/** Closes what the benchmark opened outside the engine (a pg client keeps the process alive). */
let cleanup = async () => {};
if (kind === 'iolog-list') {
  const params = JSON.parse(rest[0] ?? '{}');
  timeMs = Number(rest[1] ?? 2000);
  fn = async () => {
    count = (await iologList(engine, params)).length;
  };
} else if (kind === 'dispatch') {
  const [method, path, queryJson, t] = rest;
  const query = JSON.parse(queryJson ?? '{}');
  timeMs = Number(t ?? 2000);
  // The first call checks the answer; the timed calls only stream it (what the server writes to
  // its socket), so neither side pays for parsing the body.
  let checked = false;
  fn = async () => {
    const res = await dispatch(engine, { method: method ?? 'GET', path: path ?? '/', query, signal: new AbortController().signal, remote: '127.0.0.1' });
    if (res.kind === 'json-stream') {
      if (!checked) {
        let text = '';
        for await (const c of res.chunks) text += c;
        const body = JSON.parse(text);
        if (body.status !== 0) throw new Error(`status ${body.status}: ${body.error}`);
        count = body.events.length;
        checked = true;
        return;
      }
      let bytes = 0;
      for await (const c of res.chunks) bytes += Buffer.byteLength(c);
      if (bytes === 0) throw new Error('empty answer');
    } else if (res.kind === 'json') {
      if (res.body.status !== 0) throw new Error(`status ${res.body.status}: ${res.body.error}`);
      JSON.stringify(res.body);
      count = Array.isArray(res.body.events) ? res.body.events.length : 1;
    } else throw new Error(`unexpected ${res.kind}`);
  };
} else if (kind === 'driver') {
  const [target, paramsJson, t] = rest;
  timeMs = Number(t ?? 2000);
  const { buildSelect } = await import('../../dist/eventlog/sql/select.js');
  const { sqlProfile } = await import('../../dist/eventlog/sql/profile.js');
  const flavor = target?.startsWith('pg:') ? 'pg' : 'sqlite';
  const location = (target ?? '').slice(target?.indexOf(':') + 1);
  const { query } = parseEventQuery({ ...JSON.parse(paramsJson ?? '{}'), format: 'db' }, engine.settings.timezone);
  const plan = buildSelect(query, sqlProfile(flavor, { driver: 'native' }), !query.verbose);
  if (flavor === 'sqlite') {
    const { default: Database } = await import('better-sqlite3');
    const stmt = new Database(location, { readonly: true }).prepare(plan.sql);
    fn = async () => {
      count = stmt.all(...plan.params).length;
    };
  } else {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: location });
    await client.connect();
    cleanup = () => client.end();
    fn = async () => {
      count = (await client.query(plan.sql, plan.params)).rows.length;
    };
  }
} else if (kind === 'query' || kind === 'sql') {
  const [storeName, paramsJson, t] = rest;
  timeMs = Number(t ?? 2000);
  const tz = engine.settings.timezone;
  if (kind === 'sql') {
    // The SELECT the store runs for these parameters (dist/eventlog/sql/select.js), for the shells.
    const { buildSelect } = await import('../../dist/eventlog/sql/select.js');
    const { sqlProfile } = await import('../../dist/eventlog/sql/profile.js');
    const { query } = parseEventQuery({ ...JSON.parse(paramsJson ?? '{}'), format: 'db' }, tz);
    // Non-verbose answers read the summary columns, as the service asks (QueryOptions.summary).
    const plan = buildSelect(query, sqlProfile(storeName === 'pg' ? 'pg' : 'sqlite', { driver: 'native' }), !query.verbose);
    process.stdout.write(`${JSON.stringify({ sql: plan.sql, params: plan.params, residual: plan.residual, memoryPaging: plan.memoryPaging })}\n`);
    process.exit(0);
  }
  const spec = parseStoreName(engine, storeName ?? '');
  const format = spec.kind === 'ff' ? { format: 'ff', file: spec.path } : { format: 'db' };
  const { query } = parseEventQuery({ ...JSON.parse(paramsJson ?? '{}'), ...format }, tz);
  const store = await openStoreByName(engine, storeName ?? '');
  fn = async () => {
    let n = 0;
    // The batched path the service and the CLI read.
    for await (const batch of store.queryBatches(query, { summary: !query.verbose })) {
      for (const row of batch) JSON.stringify(shapeEvent(row, query.verbose, tz));
      n += batch.length;
    }
    count = n;
  };
} else throw new Error(`unknown benchmark ${kind}`);

await fn(); // first call: opens the store / pool, not measured
const bench = new Bench({ time: timeMs, warmupTime: Math.min(500, timeMs / 4) });
bench.add(kind, fn);
await bench.run();
const task = bench.tasks[0];
const r = /** @type {any} */ (task.result);
if (!r || r.error || !r.latency) throw r?.error ?? new Error('no result');
const L = r.latency;
await engine.close();
await cleanup();
process.stdout.write(`${JSON.stringify({ count, samples: L.samplesCount ?? L.samples?.length, mean: L.mean, p50: L.p50, p99: L.p99, min: L.min, max: L.max, maxRssKB: process.resourceUsage().maxRSS })}\n`);
