// Child process: one event query answered in-process by a built tree's application layer
// (`queryEvents`, then NDJSON text as `evio events query` writes it), `repeat` times; prints
// {rows, cpu: [ms...], wall: [ms...]} as JSON. A tree with the batched path reads `batches`,
// an older one `events` (one record at a time), so two trees can be compared on the same data.
//   node bench/children/answer-cpu.mjs TREE STORE 'PARAMS-JSON' REPEAT [SETTINGS-JSON]
const [tree, storeName, paramsJson, repeatArg = '5', settingsJson = '{}'] = process.argv.slice(2);
const { Engine } = await import(`${tree}/dist/engine.js`);
const { loadSettings } = await import(`${tree}/dist/settings.js`);
const { queryEvents } = await import(`${tree}/dist/app/events.js`);
const { writeFileSync, mkdtempSync } = await import('node:fs');
const { join, resolve } = await import('node:path');
const { tmpdir } = await import('node:os');

const dir = mkdtempSync(join(tmpdir(), 'evio-answer-cpu-'));
const config = join(dir, 'settings.json');
// The home the CLI that built the flat file's index used (EVIO_HOME, else ./evio-data): indexes
// are bound to its key. No query builds an index here: the answer is measured, not a build.
writeFileSync(config, JSON.stringify({ home: process.env.EVIO_HOME ?? resolve('evio-data'), flatfileIndexBuildMs: 0, ...JSON.parse(settingsJson) }));
const engine = new Engine(loadSettings({ config }), { oneShot: true });
const params = JSON.parse(paramsJson);
const cpu = [];
const wall = [];
let rows = 0;
for (let i = 0; i < Number(repeatArg); i++) {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const answer = await queryEvents(engine, params, { store: storeName, everything: true });
  rows = 0;
  let text = '';
  let bytes = 0;
  const take = (ev) => {
    text += `${JSON.stringify(ev)}\n`;
    rows++;
    if (text.length >= 65536) {
      bytes += Buffer.byteLength(text);
      text = '';
    }
  };
  if (answer.batches) for await (const batch of answer.batches) for (const ev of batch) take(ev);
  else for await (const ev of answer.events) take(ev);
  bytes += Buffer.byteLength(text);
  const c = process.cpuUsage(c0);
  cpu.push((c.user + c.system) / 1000);
  wall.push(performance.now() - t0);
}
await engine.close();
process.stdout.write(JSON.stringify({ rows, cpu, wall }));
