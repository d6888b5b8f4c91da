#!/usr/bin/env node
// Peak RSS of one flat-file operation on a big file (bounded-memory check).
// usage: node rss.mjs BUILD_DIR FILE query-full|query-user|query-user-dump0|query-exit|delete-user
import { statSync } from 'node:fs';
const [buildDir, file, mode] = process.argv.slice(2);
const { FlatFileStore } = await import(`${buildDir}/eventlog/flatfile/index.js`);
const { compileWildcard } = await import(`${buildDir}/common/wildcard.js`);
const base = { etypes: null, from: null, to: null, exitFrom: null, exitTo: null, patterns: {}, recnumMin: null, recnumMax: null, dump: false, skip: 0, byteOffset: 0, limit: 1e12, verbose: false, order: 'recnum', direction: 'asc' };
const store = new FlatFileStore({ path: file, lockTimeoutMs: 60_000 });
const t0 = Date.now();
let rows = 0;
let sample = 0;
const peak = () => Math.round(process.resourceUsage().maxRSS / 1024);
const timer = setInterval(() => (sample = Math.max(sample, Math.round(process.memoryUsage().rss / 2 ** 20))), 200);
const queries = {
  'query-full': { ...base, dump: true },
  'query-user': { ...base, dump: true, patterns: { submituser: [compileWildcard(process.env.EVIO_USER ?? 'user42')] } },
  'query-user-dump0': { ...base, patterns: { submituser: [compileWildcard(process.env.EVIO_USER ?? 'user42')] } },
  'query-exit': { ...base, patterns: { exitstatus: [compileWildcard('*status 3')] } },
  'query-exit-limit': { ...base, limit: 32768, patterns: { exitstatus: [compileWildcard('*status 3')] } },
  'query-dump0-limit': { ...base, limit: 32768, from: 1711000000 },
};
if (mode === 'delete-user') {
  const { compileWildcard: cw } = { compileWildcard };
  const r = await store.delete({ ...base, patterns: { submituser: [cw('user42')] } });
  rows = r.deleted;
} else {
  for await (const _ of store.query(queries[mode])) rows++;
}
clearInterval(timer);
console.log(`${mode} on ${(statSync(file).size / 2 ** 30).toFixed(2)} GiB: ${rows} rows, ${((Date.now() - t0) / 1000).toFixed(1)} s, peak RSS ${peak()} MiB (sampled max ${sample} MiB), malformed ${store.stats.malformed}`);
