#!/usr/bin/env node
// BENCHMARKS.md section 11 (run apart from bench/run.js): flat files with the sidecar skip index, and log families (rotated, gzipped files
// read as one log), beside rg -c, zgrep -c and (when bench/install-peers.sh installed it)
// DuckDB read_json. Everything in one run; prints a Markdown section (also written to
// bench/data/flatidx/section.md) that BENCHMARKS.md carries as section 11.
//
//   node bench/flatidx.mjs [--family-events N] [--runs N]
//
// Defaults: the 1M-event file of workload 1, and a family of 10 files made from 2,000,000 events
// (9 gzipped by the code of `evio events rotate --compress`). The full size the issue names is
// `--family-events 10000000` (3.4 GB of NDJSON before compression; about 10 minutes more here).
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync, createReadStream, createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { BENCH_DIR, NODE, fmtBytes, fmtInt, fmtMs, fmtRatio, fmtRss, fmtTiming, loadAvg, runProcess, timeProcess, which } from './lib/common.js';
import { ensureEvents, DATA_DIR } from './lib/data.js';
import { evioArgv, runChild } from './lib/evio.js';
import { compressRotated } from '../dist/eventlog/flatfile/compress.js';

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : dflt;
};
const FAMILY_EVENTS = opt('family-events', 2_000_000);
const RUNS = opt('runs', 3);
const log = (s) => process.stderr.write(`${s}\n`);
const started = Date.now();
const loads = [];
const out = [];
const row = (cells) => out.push(`| ${cells.join(' | ')} |`);
const dir = join(DATA_DIR, 'flatidx');
mkdirSync(dir, { recursive: true });
const noIndexCfg = join(dir, 'noindex.json');
writeFileSync(noIndexCfg, JSON.stringify({ flatfileIndex: false }));
const envNoIndex = { ...process.env, EVIO_CONFIG: noIndexCfg };
const envIndex = { ...process.env };
delete envIndex.EVIO_CONFIG;
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const inproc = (r) => `${fmtMs(median(r.times.slice(1)))} wall, ${fmtMs(median(r.cpu.slice(1)))} CPU`;

// ---- data ----
const one = await ensureEvents({ count: 1_000_000, name: '1m', log });
const onePath = join(dir, 'one.ndjson');
if (!existsSync(onePath) || statSync(onePath).size !== one.bytes) copyFileSync(one.path, onePath);

const famDir = join(dir, `family-${FAMILY_EVENTS}`);
const live = join(famDir, 'events.ndjson');
const famMeta = join(famDir, 'meta.json');
let famInfo = existsSync(famMeta) ? JSON.parse(readFileSync(famMeta, 'utf8')) : null;
if (!famInfo) {
  rmSync(famDir, { recursive: true, force: true });
  mkdirSync(famDir, { recursive: true });
  const src = await ensureEvents({ count: FAMILY_EVENTS, seed: 2, name: `fam-${FAMILY_EVENTS}`, log });
  log(`splitting ${src.path} into 10 files`);
  const per = Math.ceil(FAMILY_EVENTS / 10);
  const names = [9, 8, 7, 6, 5, 4, 3, 2, 1].map((k) => `${live}.${k}`).concat([live]);
  let i = 0;
  let w = createWriteStream(names[0]);
  for await (const line of createInterface({ input: createReadStream(src.path) })) {
    if (i > 0 && i % per === 0) {
      await new Promise((r) => w.end(r));
      w = createWriteStream(names[i / per]);
    }
    if (!w.write(`${line}\n`)) await new Promise((r) => w.once('drain', r));
    i++;
  }
  await new Promise((r) => w.end(r));
  const t0 = Date.now();
  let raw = 0;
  let gz = 0;
  for (const n of names.slice(0, 9)) {
    const c = await compressRotated(n, { index: { enabled: true, cacheDir: null } });
    raw += c.bytes;
    gz += c.compressedBytes;
  }
  famInfo = { events: FAMILY_EVENTS, raw, gz, compressMs: Date.now() - t0 };
  writeFileSync(famMeta, JSON.stringify(famInfo));
}
const famFiles = [9, 8, 7, 6, 5, 4, 3, 2, 1].map((k) => `${live}.${k}.gz`).concat([live]);
const famCompressed = famFiles.reduce((a, f) => a + statSync(f).size, 0);

out.push(`## 11. Flat file: skip index and log families (1,000,000 events; a 10-file family of ${fmtInt(FAMILY_EVENTS)})`, '');
out.push(`*Measured ${new Date().toISOString().replace(/\.\d+Z$/, 'Z')} by \`node bench/flatidx.mjs${argv.length ? ` ${argv.join(' ')}` : ''}\` (not by \`npm run bench\`), load average ${loadAvg()} at the start.*`, '');
out.push(
  `- Data: \`${one.path.replace(/^.*bench\//, 'bench/')}\` copied to \`bench/data/flatidx/one.ndjson\` (1,000,000 events, ${fmtBytes(one.bytes)}; the copy keeps workload 1's file without an index). Family: \`evio generate events --count ${FAMILY_EVENTS} --seed 2\` cut into 10 files of ${fmtInt(FAMILY_EVENTS / 10)} events, \`events.ndjson.9\` … \`.1\` compressed as \`evio events rotate --compress\` does (gzip members of 256 KiB, index written in the same pass: ${fmtMs(famInfo.compressMs)} for the nine) — ${fmtBytes(famInfo.raw)} of NDJSON became ${fmtBytes(famInfo.gz)}; the live \`events.ndjson\` stays plain (${fmtBytes(statSync(live).size)}); ${fmtBytes(famCompressed)} on disk in all.`,
  `- **Scaled down**: the issue asks for a 10M-event family; generating, compressing and zgrep-ing it takes longer than this run may (other work shares the 2 cores). Full size: \`node bench/flatidx.mjs --family-events 10000000\`.`,
  `- Whole process: the command under GNU time, ${RUNS} runs after a warm-up (files in the page cache), median (min–max). In-process: \`bench/children/flatidx-query.mjs\` (the engine in one process, ${RUNS + 1} runs, the first dropped; bytes read are what the store read — plain bytes, compressed bytes of gzip files).`,
  `- DuckDB: \`@duckdb/node-api\` is not installed in this checkout (bench/install-peers.sh installs it with \`npm install --no-save\`, which this shared checkout does not allow), so no DuckDB row was measured here; workload 1 above measured DuckDB \`read_json\` at 482 ms on the same 1M-event file (another run, for scale only).`,
  '',
);

// ---- index build ----
rmSync(`${onePath}.evidx`, { force: true });
loads.push(loadAvg());
const build = await runProcess(evioArgv(['events', 'index', onePath]), { stdout: 'pipe', env: envIndex });
if (build.code !== 0) throw new Error(build.stderr);
const rep = JSON.parse(build.stdout.trim().split('\n').pop());
const scanAll = await timeProcess(evioArgv(['events', 'query', `ff:${onePath}`, '--dump', '1', '--limit', '100000000']), { runs: 1, stdout: 'count', env: envNoIndex });

// ---- block size ----
const blockRows = [];
const hourFrom = 1767225600 + 11 * 86400 + 13 * 3600;
for (const bs of [64 << 10, 256 << 10, 1 << 20]) {
  const cache = join(dir, `bs-${bs}`);
  rmSync(cache, { recursive: true, force: true });
  const { buildIndexes } = await import('../dist/eventlog/flatfile/index-files.js');
  const t0 = Date.now();
  const [r] = await buildIndexes(onePath, { cacheDir: cache, family: false, blockBytes: bs });
  const ms = Date.now() - t0;
  const env = { ...process.env, FLATIDX_CACHE: cache };
  const sel = await runChild('flatidx-query.mjs', [onePath, JSON.stringify({ submituser: 'alice', dump: '1', limit: '100000000' }), String(RUNS + 1), 'on'], { env });
  const hour = await runChild('flatidx-query.mjs', [onePath, JSON.stringify({ from: String(hourFrom), to: String(hourFrom + 3599), limit: '100000000' }), String(RUNS + 1), 'on'], { env });
  blockRows.push([fmtBytes(bs), fmtMs(ms), `${fmtBytes(r.indexBytes)} (${((100 * r.indexBytes) / one.bytes).toFixed(1)} %)`, String(r.blocks), `${inproc(sel)}, ${fmtBytes(sel.bytesRead)} read`, `${inproc(hour)} · ${fmtInt(hour.count)} rows, ${fmtBytes(hour.bytesRead)} read`]);
}

// ---- selective filter, 1M, uncompressed ----
const literal = '"submituser":"alice"';
const rg = which('rg');
const zgrep = which('zgrep');
out.push('### Selective filter on 1,000,000 events (uncompressed)', '');
out.push('| measurement | evio | peer | peer figure | evio vs peer | goal | status | evio peak RSS |', '|---|---:|---|---:|---|---|---|---:|');
loads.push(loadAvg());
const rgT = rg ? await timeProcess([rg, '-c', '-F', literal, onePath], { runs: RUNS, warmup: 1 }) : null;
for (const dump of [true, false]) {
  const label = dump ? 'dump=1' : 'dump=0';
  const args = ['events', 'query', `ff:${onePath}`, '--submituser', 'alice', ...(dump ? ['--dump', '1'] : []), '--limit', '100000000'];
  const withIx = await timeProcess(evioArgv(args), { runs: RUNS, warmup: 1, stdout: 'count', env: envIndex });
  const noIx = await timeProcess(evioArgv(args), { runs: RUNS, warmup: 1, stdout: 'count', env: envNoIndex });
  if (withIx.last.lines !== noIx.last.lines) throw new Error(`index and scan disagree: ${withIx.last.lines} vs ${noIx.last.lines}`);
  if (rgT) {
    const met = withIx.median < rgT.median;
    row([`${label}, index: whole process vs rg -c`, `${fmtTiming(withIx, RUNS)} · ${fmtInt(withIx.last.lines)} rows`, 'rg -c -F', `${fmtTiming(rgT, RUNS)} · ${rgT.last.stdout.trim()} lines`, fmtRatio(withIx.median, rgT.median), 'faster than rg -c', met ? '✅ met' : '❌ **MISSED**', fmtRss(withIx.rssKB)]);
  }
  row([`${label}, no index (flatfileIndex=false): whole process`, fmtTiming(noIx, RUNS), 'evio with index', fmtTiming(withIx, RUNS), fmtRatio(noIx.median, withIx.median), '–', 'no goal', fmtRss(noIx.rssKB)]);
  const a = await runChild('flatidx-query.mjs', [onePath, JSON.stringify({ submituser: 'alice', ...(dump ? { dump: '1' } : {}), limit: '100000000' }), String(RUNS + 1), 'on']);
  const b = await runChild('flatidx-query.mjs', [onePath, JSON.stringify({ submituser: 'alice', ...(dump ? { dump: '1' } : {}), limit: '100000000' }), String(RUNS + 1), 'off']);
  row([`${label}: engine in-process, index vs scan`, `${inproc(a)} · ${fmtBytes(a.bytesRead)} read (${((100 * a.bytesRead) / one.bytes).toFixed(2)} %)`, 'the same query scanning', `${inproc(b)} · ${fmtBytes(b.bytesRead)} read`, fmtRatio(median(a.times.slice(1)), median(b.times.slice(1))), '–', 'no goal', fmtRss(a.maxRssKB)]);
}
const startup = await timeProcess([NODE, '-e', '0'], { runs: RUNS, warmup: 1 });
row(['`node -e 0` (the runtime starting, no evio code)', fmtTiming(startup, RUNS), '–', '–', '–', '–', 'no goal', fmtRss(startup.rssKB)]);
out.push('');

// ---- family ----
out.push(`### A family of 10 files, 9 gzipped (${fmtInt(FAMILY_EVENTS)} events, ${fmtBytes(famCompressed)} on disk)`, '');
out.push('| measurement | evio | peer | peer figure | evio vs peer | goal | status | evio peak RSS |', '|---|---:|---|---:|---|---|---|---:|');
loads.push(loadAvg());
const famIndex = await runProcess(evioArgv(['events', 'index', live, '--family']), { stdout: 'pipe', env: envIndex });
if (famIndex.code !== 0) throw new Error(famIndex.stderr);
const zT = zgrep ? await timeProcess([zgrep, '-c', '-F', literal, ...famFiles], { runs: RUNS, warmup: 1 }) : null;
const zCount = zT ? zT.last.stdout.trim().split('\n').reduce((s, l) => s + Number(l.split(':').pop()), 0) : NaN;
const famArgs = ['events', 'query', `ff:${live}`, '--family', '--submituser', 'alice', '--dump', '1', '--limit', '100000000'];
const famT = await timeProcess(evioArgv(famArgs), { runs: RUNS, warmup: 1, stdout: 'count', env: envIndex });
if (zT && famT.last.lines !== zCount) throw new Error(`family: evio ${famT.last.lines} rows, zgrep ${zCount} lines`);
const famIn = await runChild('flatidx-query.mjs', [live, JSON.stringify({ submituser: 'alice', dump: '1', limit: '100000000' }), String(RUNS + 1), 'on', 'family']);
const famOff = await runChild('flatidx-query.mjs', [live, JSON.stringify({ submituser: 'alice', dump: '1', limit: '100000000' }), String(RUNS + 1), 'off', 'family']);
if (zT) {
  const speed = zT.median / famT.median;
  row(['`submituser=alice`, dump=1, index: whole process vs zgrep -c', `${fmtTiming(famT, RUNS)} · ${fmtInt(famT.last.lines)} rows · ${fmtBytes(famIn.bytesRead)} read`, 'zgrep -c -F over the 10 files', `${fmtTiming(zT, RUNS)} · ${fmtInt(zCount)} lines · ${fmtBytes(famCompressed)} read`, fmtRatio(famT.median, zT.median), '≥ 20× faster than zgrep', speed >= 20 ? '✅ met' : '❌ **MISSED**', fmtRss(famT.rssKB)]);
}
row(['the same, engine in-process: index vs no index (gzip streamed)', `${inproc(famIn)} · ${fmtBytes(famIn.bytesRead)} read`, 'no index', `${inproc(famOff)} · ${fmtBytes(famOff.bytesRead)} read`, fmtRatio(median(famIn.times.slice(1)), median(famOff.times.slice(1))), '–', 'no goal', fmtRss(famIn.maxRssKB)]);
// One hour in the middle of the family's time span.
const mid = JSON.parse(readFileSync(`${live}`, 'utf8').split('\n', 1)[0]).time - 4 * 86400;
const hourQ = { from: String(Math.floor(mid)), to: String(Math.floor(mid) + 3599), limit: '100000000' };
const hourIn = await runChild('flatidx-query.mjs', [live, JSON.stringify(hourQ), String(RUNS + 1), 'on', 'family']);
const hourOff = await runChild('flatidx-query.mjs', [live, JSON.stringify(hourQ), String(RUNS + 1), 'off', 'family']);
if (hourIn.count !== hourOff.count) throw new Error(`hour: index ${hourIn.count} rows, scan ${hourOff.count}`);
const hourCli = await timeProcess(evioArgv(['events', 'query', `ff:${live}`, '--family', '--from', hourQ.from, '--to', hourQ.to, '--limit', '100000000']), { runs: RUNS, warmup: 1, stdout: 'count', env: envIndex });
const share = hourIn.bytesRead / famCompressed;
row([`one hour (\`from=${hourQ.from}&to=${hourQ.to}\`, dump=0): bytes read`, `${fmtBytes(hourIn.bytesRead)} of ${fmtBytes(famCompressed)} (${(100 * share).toFixed(2)} %) · ${fmtInt(hourIn.count)} rows · ${inproc(hourIn)} in-process · ${fmtTiming(hourCli, RUNS)} whole process`, 'no index (scan, gzip streamed)', `${fmtBytes(hourOff.bytesRead)} · ${inproc(hourOff)}`, fmtRatio(median(hourIn.times.slice(1)), median(hourOff.times.slice(1))), '< 2 % of the compressed bytes', share < 0.02 ? '✅ met' : '❌ **MISSED**', fmtRss(hourCli.rssKB)]);
out.push('');

// ---- build cost, append overhead ----
out.push('### Index build, size and append overhead', '');
out.push('| measurement | figure | goal | status |', '|---|---:|---|---|');
row([`\`evio events index\` on the 1M-event file (whole process)`, `${fmtMs(build.ms)} wall, ${fmtMs(build.cpuMs ?? NaN)} CPU; index ${fmtBytes(rep.indexBytes)} = ${((100 * rep.indexBytes) / one.bytes).toFixed(1)} % of the data, ${rep.blocks} blocks; peak RSS ${fmtRss(build.rssKB)}`, 'measured', 'no goal']);
row([`for scale: a full scan of the same file, every line parsed (\`--dump 1\`, no filter, no index)`, `${fmtMs(scanAll.median)}`, '–', 'no goal']);
const famIx = famIndex.stdout.trim().split('\n').map((l) => JSON.parse(l));
row([`\`evio events index --family\` afterwards (9 gzip indexes current from compression, the live file built)`, `${fmtMs(famIndex.ms)}; ${famIx.map((r) => r.outcome.split(' ')[0]).join(', ')}`, '–', 'no goal']);
loads.push(loadAvg());
const BATCHES = 60;
const SIZE = 1000;
const apPlain = await runChild('flatidx-append.mjs', [one.path, join(dir, 'append-plain'), String(BATCHES), String(SIZE), 'plain']);
const apIndex = await runChild('flatidx-append.mjs', [one.path, join(dir, 'append-index'), String(BATCHES), String(SIZE), 'index']);
const overhead = apIndex.indexMs / apPlain.ms;
row([`append overhead: ${BATCHES} appends of ${fmtInt(SIZE)} events (${fmtBytes(apPlain.bytes)}), each synced; the index extended after every append`, `appends ${fmtMs(apPlain.ms)} without index · ${fmtMs(apIndex.ms)} + ${fmtMs(apIndex.indexMs)} index upkeep with it = **${(100 * overhead).toFixed(0)} %** of the append time (index ${fmtBytes(apIndex.indexBytes)})`, '≤ 10 %', overhead <= 0.1 ? '✅ met' : '❌ **MISSED**']);
out.push('');

out.push('### Block size (chosen by measurement)', '');
out.push('In-process, the 1M-event file, an index per block size in its own folder (`flatfileIndexDir`).', '');
out.push('| block | build (in-process) | index size | blocks | `submituser=alice`, dump=1 | one hour, dump=0 |', '|---|---:|---:|---:|---:|---:|');
for (const r of blockRows) row(r);
out.push('');
out.push(`*Load averages during the run: ${loads.join(', ')}; ${((Date.now() - started) / 60000).toFixed(1)} min in all.*`, '');

const text = out.join('\n');
writeFileSync(join(dir, 'section.md'), text);
process.stdout.write(`${text}\n`);
void BENCH_DIR;
