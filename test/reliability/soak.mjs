#!/usr/bin/env node
// Long form of the load test: `npm run soak` (builds first). SOAK_SECONDS (default 120) of mixed
// signed requests from SOAK_CONNECTIONS (default 4) clients while an appender writes; prints the
// figures as JSON and exits non-zero on any 5xx, non-2xx, failed body, lost append or RSS growth
// after warm-up beyond SOAK_RSS_GROWTH_MIB (default 256). The request log is written to a file
// in the temporary data folder, as in production; LOAD_REQUEST_LOG=off runs without it.
// `byKind` gives p50/p99/max per class of call (chunk, screen, indexed query, ...): the goal of
// docs/reliability.md is measured with SOAK_CONNECTIONS=16 SOAK_SECONDS=120.
import { runLoad } from './load-harness.mjs';

const seconds = Number(process.env.SOAK_SECONDS ?? 120);
const connections = Number(process.env.SOAK_CONNECTIONS ?? 4);
const growthMiB = Number(process.env.SOAK_RSS_GROWTH_MIB ?? 256);
const r = await runLoad({ seconds, connections, appendEveryMs: 20, warmupSeconds: Math.min(20, seconds / 4), log: (s) => console.error(s) });
const MiB = 1024 * 1024;
console.log(JSON.stringify({ date: new Date().toISOString(), ...r, rssWarmStartMiB: Math.round(Number(r.rssWarmStart) / MiB), rssEndMiB: Math.round(Number(r.rssEnd) / MiB) }, null, 2));
const problems = [];
if (r.non2xx || r.errors || r.timeouts) problems.push(`non2xx ${r.non2xx}, errors ${r.errors}, timeouts ${r.timeouts}`);
if (r.bodyErrors.length) problems.push(`${r.bodyErrors.length} answers ended with a failure status`);
if (r.appendErrors || r.missing.length || r.unparsableLines || !r.trailingNewline) problems.push(`appends: ${r.appendErrors} failed, ${r.missing.length} missing, ${r.unparsableLines} unparsable lines`);
if (r.rssEnd !== null && r.rssWarmStart !== null && r.rssEnd - r.rssWarmStart > growthMiB * MiB) problems.push(`RSS grew ${Math.round((r.rssEnd - r.rssWarmStart) / MiB)} MiB after warm-up`);
if (problems.length) {
  console.error(`soak FAILED: ${problems.join('; ')}`);
  process.exit(1);
}
console.error('soak passed');
process.exit(0);
