// Child process: the append path with and without keeping the skip index current. A fresh file
// gets SEED events first (one untimed append; with the index on, its index is built then,
// untimed, so that the appends find one to keep current), then BATCHES timed batches of SIZE
// events (taken from SOURCE, recnums reassigned), each an ordinary durable append (fsync).
//   plain   the store's index setting off
//   upkeep  the index setting on: whatever the append path does for the index is inside `ms`;
//           after the last batch the index is brought fully up to date once (`indexMs`)
//   index   the same, and the index brought fully up to date after every batch (buildIndexes:
//           what a query or `evio events index` after each append would do), timed as `indexMs`
// Prints {ms, indexMs, bytes, seedBytes, indexBytes} (indexBytes: the index files beside the log).
//   node bench/children/flatidx-append.mjs SOURCE DIR BATCHES SIZE plain|upkeep|index [SEED]
import { createReadStream, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { FlatFileStore } from '../../dist/eventlog/flatfile/flatfile-store.js';
import { buildIndexes } from '../../dist/eventlog/flatfile/index-files.js';

const [source, dir, batchesArg, sizeArg, mode, seedArg = '20000'] = process.argv.slice(2);
const batches = Number(batchesArg);
const size = Number(sizeArg);
const seed = Number(seedArg);
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const path = join(dir, 'events.ndjson');
const events = [];
for await (const line of createInterface({ input: createReadStream(source) })) {
  const { recnum: _r, ...ev } = JSON.parse(line);
  events.push(ev);
  if (events.length >= seed + batches * size) break;
}
const indexed = mode !== 'plain';
const store = new FlatFileStore({ path, index: { enabled: indexed, cacheDir: null, budgetMs: 0 } });
if (seed > 0) {
  await store.append(events.slice(0, seed));
  if (indexed) await buildIndexes(path, { cacheDir: null, family: false });
}
const seedBytes = statSync(path).size;
let ms = 0;
let indexMs = 0;
for (let b = 0; b < batches; b++) {
  const batch = events.slice(seed + b * size, seed + (b + 1) * size);
  const t0 = performance.now();
  await store.append(batch);
  // The index upkeep runs after each append on the store's upkeep thread; the last one's is
  // waited for, so that all of it is inside the total.
  if (b === batches - 1) await store.whenIndexed();
  const t1 = performance.now();
  ms += t1 - t0;
  if (mode === 'index') {
    await buildIndexes(path, { cacheDir: null, family: false });
    indexMs += performance.now() - t1;
  }
}
if (mode === 'upkeep') {
  const t0 = performance.now();
  await buildIndexes(path, { cacheDir: null, family: false });
  indexMs = performance.now() - t0;
}
const indexBytes = readdirSync(dir).filter((n) => n.startsWith('events.ndjson.')).reduce((a, n) => a + statSync(join(dir, n)).size, 0);
process.stdout.write(`${JSON.stringify({ ms, indexMs, bytes: statSync(path).size - seedBytes, seedBytes, indexBytes })}\n`);
