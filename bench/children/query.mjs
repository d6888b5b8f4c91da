// Child process: runs one event query in-process `repeat` times against the shipped engine
// (dist/) and prints {times, count, maxRssKB} as JSON. Each run streams every row through the
// same shaping and JSON serialization the CLI does (shapeEvent + JSON.stringify), without
// writing it anywhere: the engine's cost without process start-up and output.
//   node bench/children/query.mjs STORE 'PARAMS-JSON' REPEAT
import { Engine, loadSettings, openStoreByName, parseEventQuery, parseStoreName, shapeEvent } from '../../dist/index.js';

const [storeName, paramsJson = '{}', repeatArg = '5'] = process.argv.slice(2);
if (!storeName) throw new Error('usage: query.mjs STORE PARAMS-JSON REPEAT');
const engine = new Engine(loadSettings({ env: {} }));
const spec = parseStoreName(engine, storeName);
const format = spec.kind === 'ff' ? { format: 'ff', file: spec.path } : spec.kind === 'odbc' ? { format: 'odbc', dsn: spec.dsn } : { format: 'db' };
const tz = engine.settings.timezone;
const { query } = parseEventQuery({ ...JSON.parse(paramsJson), ...format }, tz);
const store = await openStoreByName(engine, storeName);
const times = [];
let count = 0;
let bytes = 0;
for (let i = 0; i < Number(repeatArg); i++) {
  const t0 = performance.now();
  count = 0;
  bytes = 0;
  for await (const batch of store.queryBatches(query, { summary: !query.verbose })) {
    for (const row of batch) bytes += JSON.stringify(shapeEvent(row, query.verbose, tz)).length + 1;
    count += batch.length;
  }
  times.push(performance.now() - t0);
}
await engine.close();
process.stdout.write(`${JSON.stringify({ times, count, bytes, maxRssKB: process.resourceUsage().maxRSS })}\n`);
