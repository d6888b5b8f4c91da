// Child process: one flat-file query in-process `repeat` times through the shipped engine (dist/),
// with the skip index on or off, on one file or a whole log family; prints {times, cpu, count,
// bytesRead, rchar, maxRssKB} as JSON. bytesRead is what the store read: plain bytes, and the
// compressed bytes of gzip files (FlatFileStore.lastRead). rchar is what the whole process read
// during the last run (/proc/self/io), index files included, whatever API read them.
// With FLATIDX_TRACE=1 (an untimed run) node:zlib's decompressors are wrapped before the engine
// is loaded and `inflate` reports what the last run decompressed: one-shot calls (one per gzip
// member read through the index) with their compressed bytes, and streams (gzip files read
// through in order) with the compressed bytes fed to them.
//   node bench/children/flatidx-query.mjs FILE 'PARAMS-JSON' REPEAT on|off [family]
import { readFileSync } from 'node:fs';

const [path, paramsJson = '{}', repeatArg = '5', index = 'on', family = ''] = process.argv.slice(2);
const fam = family === 'family';

/** Bytes this process has read through read(2) and the like so far. */
const rcharNow = () => Number(/rchar:\s*(\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))?.[1] ?? NaN);

const trace = process.env.FLATIDX_TRACE === '1';
const inflate = { calls: 0, callBytes: 0, streams: 0, streamBytes: 0 };
if (trace) {
  const zlib = (await import('node:zlib')).default;
  const size = (b) => (b && typeof b.byteLength === 'number' ? b.byteLength : typeof b === 'string' ? Buffer.byteLength(b) : 0);
  for (const name of ['inflateRawSync', 'gunzipSync', 'inflateSync', 'unzipSync', 'inflateRaw', 'gunzip', 'inflate', 'unzip']) {
    const f = zlib[name];
    zlib[name] = function countedCall(buf, ...rest) {
      inflate.calls++;
      inflate.callBytes += size(buf);
      return f.call(this, buf, ...rest);
    };
  }
  // Streams, however made (createGunzip, new Gunzip, ...): their shared _transform, counted
  // for the decompressing classes only.
  const inflaters = [zlib.Gunzip, zlib.InflateRaw, zlib.Inflate, zlib.Unzip];
  let proto = zlib.Gunzip.prototype;
  while (proto && !Object.prototype.hasOwnProperty.call(proto, '_transform')) proto = Object.getPrototypeOf(proto);
  const transform = proto._transform;
  const seen = new WeakSet();
  proto._transform = function countedChunk(chunk, enc, cb) {
    // zlib.inflateRaw(buf, cb) and the like run on such a stream too (it carries their callback
    // as .cb): those were counted as calls above.
    if (typeof this.cb !== 'function' && inflaters.some((C) => this instanceof C)) {
      if (!seen.has(this)) {
        seen.add(this);
        inflate.streams++;
      }
      inflate.streamBytes += size(chunk);
    }
    return transform.call(this, chunk, enc, cb);
  };
  // ESM imports of node:zlib (the engine's) see the wrapped functions from now on.
  (await import('node:module')).syncBuiltinESMExports();
}
const { FlatFileStore } = await import('../../dist/eventlog/flatfile/flatfile-store.js');
// Indexes are bound to the install's key: the one the CLI uses for the same home (settings: EVIO_HOME, else ./evio-data).
const { indexKeyFileIn, useIndexKeyFile } = await import('../../dist/eventlog/flatfile/index-key.js');
useIndexKeyFile(indexKeyFileIn(process.env.EVIO_HOME ?? (await import('node:path')).resolve('evio-data')));
const { parseEventQuery } = await import('../../dist/eventlog/query.js');
const { shapeEvent } = await import('../../dist/eventlog/shape.js');

// FLATIDX_PLAN=index: the index whenever valid, not the planner's choice (to measure both paths).
const store = new FlatFileStore({ path, family: fam, index: { enabled: index === 'on', cacheDir: process.env.FLATIDX_CACHE || null, budgetMs: 0, plan: process.env.FLATIDX_PLAN === 'index' ? 'index' : 'auto' } });
const { query } = parseEventQuery({ format: 'ff', file: path, ...(fam ? { family: '1' } : {}), ...JSON.parse(paramsJson) }, 'UTC');
const times = [];
const cpu = [];
let count = 0;
let rchar = 0;
for (let i = 0; i < Number(repeatArg); i++) {
  Object.assign(inflate, { calls: 0, callBytes: 0, streams: 0, streamBytes: 0 });
  const r0 = rcharNow();
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  count = 0;
  for await (const batch of store.queryBatches(query, { summary: true })) {
    for (const row of batch) JSON.stringify(shapeEvent(row, false, 'UTC'));
    count += batch.length;
  }
  times.push(performance.now() - t0);
  const c = process.cpuUsage(c0);
  cpu.push((c.user + c.system) / 1000);
  rchar = rcharNow() - r0;
}
const out = { times, cpu, count, bytesRead: store.lastRead.bytes, indexed: store.lastRead.indexed ?? 0, plannedScans: store.lastRead.plannedScans ?? 0, rchar, maxRssKB: process.resourceUsage().maxRSS };
if (trace) out.inflate = inflate;
process.stdout.write(`${JSON.stringify(out)}\n`);
