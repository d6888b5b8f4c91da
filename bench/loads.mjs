#!/usr/bin/env node
// Bulk loads (issue 25 point 4): `evio events copy --from ff:FILE --to pg:URL|db:FILE` against
// the database's own loaders fed the same rows as CSV — `psql \copy` into a table with the same
// columns and indexes, the sqlite3 shell's `.import` into a database with the same schema —
// interleaved round by round in one run (the machine is shared: ranges and load averages are
// printed with the figures). Prints a Markdown section for BENCHMARKS.md.
//
//   node bench/loads.mjs [--sizes 100000,1000000] [--rounds 3] [--cases empty,half,sqlite] [--out FILE]
//
// Needs `npm run build` (dist/), psql and sqlite3 (bench/install-peers.sh), and PostgreSQL at
// EVIO_BENCH_PG (default postgres://postgres@127.0.0.1:5432/test); works in schemas of its own
// (evio_bench_load_*), dropped at the end.
import { spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { option } from './lib/common.js';

const ROOT = resolve(import.meta.dirname, '..');
const DATA = join(ROOT, 'bench', 'data', 'loads');
const EVIO = join(ROOT, 'bin', 'evio.js');
const PG = process.env.EVIO_BENCH_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const sizes = option('sizes', '100000,1000000').split(',').map(Number);
const rounds = Number(option('rounds', '3'));
const out = option('out', null);
const cases = new Set(option('cases', 'empty,half,sqlite').split(','));

const pgUrl = new URL(PG);
const psqlBase = ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-h', pgUrl.hostname, '-p', pgUrl.port || '5432', '-U', decodeURIComponent(pgUrl.username || 'postgres'), '-d', pgUrl.pathname.slice(1)];

function sh(cmd, argv, input) {
  const r = spawnSync(cmd, argv, { input, encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`${cmd} ${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}
/** Wall time of one command, ms. */
function timed(cmd, argv) {
  const t = performance.now();
  sh(cmd, argv);
  return performance.now() - t;
}
const psql = (sql) => sh('psql', [...psqlBase, '-c', sql]);
function storeUrl(schema) {
  const u = new URL(PG);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return `pg:${u.toString()}`;
}
const freshSchema = (s) => psql(`DROP SCHEMA IF EXISTS ${s} CASCADE; CREATE SCHEMA ${s}`);

/** The source (NDJSON), its two halves (for loads into a store that has rows), made once. */
async function data(n) {
  mkdirSync(DATA, { recursive: true });
  const all = join(DATA, `events-${n}.ndjson`);
  const first = join(DATA, `events-${n}-first.ndjson`);
  const second = join(DATA, `events-${n}-second.ndjson`);
  if (!existsSync(second)) {
    sh(process.execPath, [EVIO, 'generate', 'events', '--count', String(n), '--seed', '7', '--out', all]);
    const a = createWriteStream(first);
    const b = createWriteStream(second);
    let i = 0;
    for await (const line of createInterface({ input: createReadStream(all) })) (i++ < n / 2 ? a : b).write(`${line}\n`);
    await Promise.all([new Promise((r) => a.end(r)), new Promise((r) => b.end(r))]);
  }
  return { all, first, second };
}

/** CSV of the rows as evio stores them (PostgreSQL and SQLite), and the schemas to load them into. */
function peerInputs(n, files) {
  const ref = `evio_bench_load_ref_${n}`;
  const csv = join(DATA, `events-${n}.pg.csv`);
  const csvFirst = join(DATA, `events-${n}-first.pg.csv`);
  const csvSecond = join(DATA, `events-${n}-second.pg.csv`);
  // Kept from an earlier run when the reference table and its CSV are there.
  let kept = false;
  try {
    kept = existsSync(csvSecond) && psql(`SELECT count(*) FROM ${ref}.events`).trim() !== '';
  } catch {
    kept = false;
  }
  if (!kept) {
    freshSchema(ref);
    sh(process.execPath, [EVIO, 'events', 'copy', '--from', `ff:${files.all}`, '--to', storeUrl(ref)]);
    psql(`\\copy (SELECT * FROM ${ref}.events ORDER BY recnum) TO '${csv}' csv`);
    psql(`\\copy (SELECT * FROM ${ref}.events WHERE recnum <= ${n / 2} ORDER BY recnum) TO '${csvFirst}' csv`);
    psql(`\\copy (SELECT * FROM ${ref}.events WHERE recnum > ${n / 2} ORDER BY recnum) TO '${csvSecond}' csv`);
  }
  if (!cases.has('sqlite')) return { ref, csv, csvFirst, csvSecond };
  const sqliteRef = join(DATA, `ref-${n}.sqlite`);
  rmSync(sqliteRef, { force: true });
  sh(process.execPath, [EVIO, 'events', 'copy', '--from', `ff:${files.all}`, '--to', `db:${sqliteRef}`]);
  const sqliteCsv = join(DATA, `events-${n}.sqlite.csv`);
  sh('sqlite3', ['-csv', sqliteRef, `.output ${sqliteCsv}`, 'SELECT * FROM events ORDER BY recnum']);
  const sqliteSchema = sh('sqlite3', [sqliteRef, '.schema events']);
  return { ref, csv, csvFirst, csvSecond, sqliteCsv, sqliteSchema };
}

const rate = (n, ms) => Math.round(n / (ms / 1000));
const fmt = (x) => x.toLocaleString('en-US');
const range = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0], max: s[s.length - 1], median: s[Math.floor(s.length / 2)] };
};

const results = [];
for (const n of sizes) {
  const files = await data(n);
  const peer = peerInputs(n, files);
  const S = `evio_bench_load_e_${n}`;
  const P = `evio_bench_load_p_${n}`;
  const m = { n, evioEmpty: [], psqlEmpty: [], evioHalf: [], psqlHalf: [], evioSqlite: [], sqliteImport: [], load: [] };
  for (let r = 0; r < rounds; r++) {
    m.load.push(loadavg()[0]);
    // PostgreSQL, empty store: evio copy (indexes built after the rows) vs \copy into an empty indexed table.
    if (cases.has('empty')) {
    freshSchema(S);
    m.evioEmpty.push(timed(process.execPath, [EVIO, 'events', 'copy', '--from', `ff:${files.all}`, '--to', storeUrl(S)]));
    freshSchema(P);
    psql(`CREATE TABLE ${P}.events (LIKE ${peer.ref}.events INCLUDING ALL)`);
    m.psqlEmpty.push(timed('psql', [...psqlBase, '-c', `\\copy ${P}.events FROM '${peer.csv}' csv`]));
    }
    // PostgreSQL, a store holding the first half: the second half loaded with every index current.
    if (cases.has('half')) {
    freshSchema(S);
    sh(process.execPath, [EVIO, 'events', 'copy', '--from', `ff:${files.first}`, '--to', storeUrl(S)]);
    psql(`ANALYZE ${S}.events`);
    m.evioHalf.push(timed(process.execPath, [EVIO, 'events', 'copy', '--from', `ff:${files.second}`, '--to', storeUrl(S)]));
    freshSchema(P);
    psql(`CREATE TABLE ${P}.events (LIKE ${peer.ref}.events INCLUDING ALL)`);
    psql(`\\copy ${P}.events FROM '${peer.csvFirst}' csv`);
    psql(`ANALYZE ${P}.events`);
    m.psqlHalf.push(timed('psql', [...psqlBase, '-c', `\\copy ${P}.events FROM '${peer.csvSecond}' csv`]));
    }
    // SQLite, empty store: evio copy vs .import into a database with the same schema and indexes.
    if (cases.has('sqlite')) {
    const db = join(DATA, `evio-${n}.sqlite`);
    for (const f of [db, `${db}-wal`, `${db}-shm`]) rmSync(f, { force: true });
    m.evioSqlite.push(timed(process.execPath, [EVIO, 'events', 'copy', '--from', `ff:${files.all}`, '--to', `db:${db}`]));
    const pdb = join(DATA, `peer-${n}.sqlite`);
    rmSync(pdb, { force: true });
    sh('sqlite3', [pdb], peer.sqliteSchema);
    m.sqliteImport.push(timed('sqlite3', [pdb, `.import --csv ${peer.sqliteCsv} events`]));
    }
    process.stderr.write(`${n} round ${r + 1}: ${JSON.stringify(Object.fromEntries(Object.entries(m).map(([k, v]) => [k, Array.isArray(v) ? Math.round(v[v.length - 1]) : v])))}\n`);
  }
  for (const s of [S, P, peer.ref]) psql(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
  results.push(m);
}

const lines = [];
const when = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
lines.push('## Bulk loads (issue 25)', '');
lines.push(`*Measured ${when} by \`node bench/loads.mjs --sizes ${sizes.join(',')} --rounds ${rounds} --cases ${[...cases].join(',')}\`; ${process.env.BENCH_NOTE ?? ''}*`, '');
lines.push('| load | rows | evio (records/s, median; range) | peer | peer (records/s, median; range) | ratio (medians) | goal | status | load average (1 min) per round |');
lines.push('|---|---|---|---|---|---|---|---|---|');
for (const m of results) {
  const row = (what, rows, ev, peerName, pe, goal, ok) => {
    const e = range(ev.map((ms) => rate(rows, ms)));
    const p = pe ? range(pe.map((ms) => rate(rows, ms))) : null;
    const ratio = p ? e.median / p.median : null;
    const status = ok(e.median, ratio) ? 'met' : 'MISSED';
    lines.push(`| ${what} | ${fmt(rows)} | ${fmt(e.median)} (${fmt(e.min)}–${fmt(e.max)}) | ${peerName} | ${p ? `${fmt(p.median)} (${fmt(p.min)}–${fmt(p.max)})` : '–'} | ${ratio ? `${ratio.toFixed(2)}×` : '–'} | ${goal} | ${status} | ${m.load.map((x) => x.toFixed(2)).join(', ')} |`);
  };
  if (cases.has('empty')) row('PostgreSQL, empty store: `evio events copy --from ff:FILE --to pg:URL`', m.n, m.evioEmpty, '`psql \\copy` (CSV) into an empty table, same columns and indexes', m.psqlEmpty, '≥ 0.8× and ≥ 50,000 records/s', (e, r) => r >= 0.8 && e >= 50_000);
  if (cases.has('half')) row('PostgreSQL, store holding the first half: the second half copied', m.n / 2, m.evioHalf, '`psql \\copy` of the second half into the table holding the first', m.psqlHalf, '≥ 0.8×', (_e, r) => r >= 0.8);
  if (cases.has('sqlite')) row('SQLite, empty store: `evio events copy --from ff:FILE --to db:FILE`', m.n, m.evioSqlite, "sqlite3 shell's `.import --csv` into the same schema (indexes present)", m.sqliteImport, '≥ 0.5×', (_e, r) => r >= 0.5);
}
const text = `${lines.join('\n')}\n`;
process.stdout.write(text);
if (out) writeFileSync(out, text);
