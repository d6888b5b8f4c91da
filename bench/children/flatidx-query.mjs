// Child process: one flat-file query in-process `repeat` times through the shipped engine (dist/),
// with the skip index on or off, on one file or a whole log family; prints {times, cpu, count,
// bytesRead, maxRssKB} as JSON. bytesRead is what the store read: plain bytes, and the compressed
// bytes of gzip files (FlatFileStore.lastRead).
//   node bench/children/flatidx-query.mjs FILE 'PARAMS-JSON' REPEAT on|off [family]
import { FlatFileStore } from '../../dist/eventlog/flatfile/flatfile-store.js';
import { parseEventQuery } from '../../dist/eventlog/query.js';
import { shapeEvent } from '../../dist/eventlog/shape.js';

const [path, paramsJson = '{}', repeatArg = '5', index = 'on', family = ''] = process.argv.slice(2);
const fam = family === 'family';
const store = new FlatFileStore({ path, family: fam, index: { enabled: index === 'on', cacheDir: process.env.FLATIDX_CACHE || null, budgetMs: 0 } });
const { query } = parseEventQuery({ format: 'ff', file: path, ...(fam ? { family: '1' } : {}), ...JSON.parse(paramsJson) }, 'UTC');
const times = [];
const cpu = [];
let count = 0;
for (let i = 0; i < Number(repeatArg); i++) {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  count = 0;
  for await (const row of store.query(query, { summary: true })) {
    JSON.stringify(shapeEvent(row, false, 'UTC'));
    count++;
  }
  times.push(performance.now() - t0);
  const c = process.cpuUsage(c0);
  cpu.push((c.user + c.system) / 1000);
}
process.stdout.write(`${JSON.stringify({ times, cpu, count, bytesRead: store.lastRead.bytes, maxRssKB: process.resourceUsage().maxRSS })}\n`);
