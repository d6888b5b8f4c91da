#!/usr/bin/env node
// The batched query path (issue 25 point 1): the CPU one answer costs in-process, this tree
// against another built tree (--before DIR, e.g. a worktree of the commit before the change),
// on the same data, interleaved round by round. Each measurement is a child process
// (bench/children/answer-cpu.mjs, in the checkout, with the home the CLI uses: indexes are
// bound to its key) answering the query REPEAT times through the application layer
// and writing the NDJSON text the CLI writes; the first call is dropped, the median of the rest
// taken, then the median over the rounds.
//
//   node bench/batches.mjs --before DIR [--ff FILE] [--pg-schema evio_page25] [--rounds 5] [--repeat 4] [--smoke] [--out FILE]
//
// --ff: a flat file of `evio generate events --count 1000000 --seed 7` with its index built
// (default: generated under bench/data/batches/). --pg-schema: a PostgreSQL schema holding the
// same events (`evio events copy --to pg:URL`, bench/pg-page.mjs's data); omitted when missing.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { EVIO_BIN, fmtMs, median, option, ROOT } from './lib/common.js';

const smoke = process.argv.includes('--smoke');
const before = option('before', null);
const rounds = Number(option('rounds', smoke ? '1' : '5'));
const repeat = Number(option('repeat', smoke ? '2' : '4'));
const out = option('out', null);
const PG = process.env.EVIO_BENCH_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const pgSchema = option('pg-schema', smoke ? null : 'evio_page25');
const log = (s) => process.stderr.write(`${s}\n`);

function sh(cmd, argv) {
  const r = spawnSync(cmd, argv, { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`${cmd} ${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

let ff = option('ff', null);
if (!ff) {
  const dir = join(ROOT, 'bench', 'data', 'batches');
  mkdirSync(dir, { recursive: true });
  const count = smoke ? 20000 : 1000000;
  ff = join(dir, `events-${count}.ndjson`);
  if (!existsSync(ff)) {
    sh(process.execPath, [EVIO_BIN, 'generate', 'events', '--count', String(count), '--seed', '7', '--out', ff]);
    sh(process.execPath, [EVIO_BIN, 'events', 'index', `ff:${ff}`]);
  }
}
ff = resolve(ff);

const workloads = [
  { label: 'flat file: `etype=F&dump=1` (every finish)', store: `ff:${ff}`, params: { etype: 'F', dump: '1' } },
  { label: 'flat file: `submituser=bob&runhost=web001.nyc.example.com&dump=1`', store: `ff:${ff}`, params: { submituser: 'bob', runhost: 'web001.nyc.example.com', dump: '1' } },
  { label: 'flat file: `submituser=alice` (merged with the finishes)', store: `ff:${ff}`, params: { submituser: 'alice' } },
];
let pgNote = '';
if (pgSchema) {
  const u = new URL(PG);
  u.searchParams.set('options', `-c search_path=${pgSchema}`);
  const probe = spawnSync('psql', ['-X', '-A', '-t', PG, '-c', `SELECT count(*) FROM ${pgSchema}.events`], { encoding: 'utf8' });
  if (probe.status === 0) {
    const settings = JSON.stringify({ databases: { bench: u.toString() } });
    workloads.push(
      { label: 'PostgreSQL: a 512-event page `submituser=alice&limit=512`', store: 'pg:bench', params: { submituser: 'alice', limit: '512' }, settings, repeat: 40 },
      { label: 'PostgreSQL: `end=300000` (merged, every type but F: a cursor export)', store: 'pg:bench', params: { end: '300000' }, settings },
    );
    pgNote = ` PostgreSQL: schema \`${pgSchema}\` (${probe.stdout.trim()} events).`;
  } else pgNote = ` PostgreSQL rows omitted: schema ${pgSchema} not found.`;
}

const trees = [{ label: 'this tree', dir: ROOT }];
if (before) trees.unshift({ label: 'before', dir: resolve(before) });

const results = new Map(); // label -> tree -> [median cpu per round]
const rowsOf = new Map();
const loads = [];
for (let r = 0; r < rounds; r++) {
  for (const w of workloads) {
    for (const t of trees) {
      const args = [join(ROOT, 'bench', 'children', 'answer-cpu.mjs'), t.dir, w.store, JSON.stringify(w.params), String(w.repeat ?? repeat), w.settings ?? '{}'];
      const res = JSON.parse(sh(process.execPath, args));
      const key = `${w.label}\u0000${t.label}`;
      if (!results.has(key)) results.set(key, []);
      results.get(key).push(median(res.cpu.slice(1)));
      const seen = rowsOf.get(w.label);
      if (seen !== undefined && seen !== res.rows) throw new Error(`${w.label}: ${t.label} answered ${res.rows} rows, another tree ${seen}`);
      rowsOf.set(w.label, res.rows);
    }
  }
  loads.push(loadavg()[0]);
  log(`round ${r + 1}/${rounds} done (load ${loadavg()[0].toFixed(2)})`);
}

const lines = [];
lines.push(`*Measured ${new Date().toISOString().replace(/\.\d+Z$/, 'Z')} by \`node bench/batches.mjs${before ? ' --before DIR' : ''} --rounds ${rounds} --repeat ${repeat}\`; ${rounds} rounds, the trees interleaved in each; 1-minute load average ${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)}. Flat file: \`${ff.split('/').pop()}\` with its index.${pgNote}*`);
lines.push('');
const head = trees.map((t) => `CPU per answer, ${t.label} (median; range of the rounds)`);
lines.push(`| answer | rows | ${head.join(' | ')} |${before ? ' this tree ÷ before |' : ''}`);
lines.push(`|---|---:|${trees.map(() => '---:').join('|')}|${before ? '---:|' : ''}`);
for (const w of workloads) {
  const cells = trees.map((t) => {
    const v = results.get(`${w.label}\u0000${t.label}`);
    return `${fmtMs(median(v))} (${fmtMs(Math.min(...v))}–${fmtMs(Math.max(...v))})`;
  });
  const ratio = before ? ` ${(median(results.get(`${w.label}\u0000this tree`)) / median(results.get(`${w.label}\u0000before`))).toFixed(2)} |` : '';
  lines.push(`| ${w.label} | ${rowsOf.get(w.label).toLocaleString('en-US')} | ${cells.join(' | ')} |${ratio}`);
}
const text = `${lines.join('\n')}\n`;
process.stdout.write(text);
if (out) writeFileSync(out, text);
