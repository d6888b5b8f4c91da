// Child process: the append path with and without keeping the skip index current. Appends
// BATCHES batches of SIZE events (taken from SOURCE, recnums reassigned) to a fresh file, each
// an ordinary durable append (fsync); with `index`, the index is extended after every batch
// (what the next query, or `evio events index`, does). Prints {ms, indexMs, bytes, indexBytes}.
//   node bench/children/flatidx-append.mjs SOURCE DIR BATCHES SIZE plain|index
import { createReadStream, mkdirSync, rmSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { FlatFileStore } from '../../dist/eventlog/flatfile/flatfile-store.js';
import { buildIndexes } from '../../dist/eventlog/flatfile/index-files.js';

const [source, dir, batchesArg, sizeArg, mode] = process.argv.slice(2);
const batches = Number(batchesArg);
const size = Number(sizeArg);
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const path = join(dir, 'events.ndjson');
const events = [];
for await (const line of createInterface({ input: createReadStream(source) })) {
  const { recnum: _r, ...ev } = JSON.parse(line);
  events.push(ev);
  if (events.length >= batches * size) break;
}
const store = new FlatFileStore({ path, index: { enabled: mode === 'index', cacheDir: null, budgetMs: 0 } });
let ms = 0;
let indexMs = 0;
for (let b = 0; b < batches; b++) {
  const batch = events.slice(b * size, (b + 1) * size);
  const t0 = performance.now();
  await store.append(batch);
  const t1 = performance.now();
  ms += t1 - t0;
  if (mode === 'index') {
    await buildIndexes(path, { cacheDir: null, family: false });
    indexMs += performance.now() - t1;
  }
}
const indexBytes = mode === 'index' ? statSync(`${path}.evidx`).size : 0;
process.stdout.write(`${JSON.stringify({ ms, indexMs, bytes: statSync(path).size, indexBytes })}\n`);
