// Benchmark data under bench/data/ (gitignored), made with `evio generate` and reused while it is
// present and of the right size: a sidecar NAME.meta.json records what was generated (count,
// seed, bytes), and anything that does not match is generated again.
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH_DIR, EVIO_BIN, NODE, NotAvailable, runProcess } from './common.js';

export const DATA_DIR = process.env.EVIO_BENCH_DATA ?? join(BENCH_DIR, 'data');

/** @param {string} path */
function readMeta(path) {
  try {
    return JSON.parse(readFileSync(`${path}.meta.json`, 'utf8'));
  } catch {
    return null;
  }
}

/** @param {string} path @param {object} meta */
function writeMeta(path, meta) {
  writeFileSync(`${path}.meta.json`, `${JSON.stringify(meta, null, 2)}\n`);
}

/** @param {(s: string) => void} log @param {string[]} args */
async function evio(log, args) {
  log(`  $ evio ${args.join(' ')}`);
  const r = await runProcess([NODE, EVIO_BIN, ...args], { stdout: 'pipe' });
  if (r.code !== 0) throw new Error(`evio ${args.join(' ')} failed (${r.code}): ${r.stderr.slice(0, 2000)}`);
  return r;
}

/**
 * An NDJSON event log of `count` events (seed 1): bench/data/events-<name>.ndjson.
 * @param {{ count: number, seed?: number, name: string, log: (s: string) => void }} o
 * @returns {Promise<{ path: string, bytes: number, count: number }>}
 */
export async function ensureEvents(o) {
  mkdirSync(DATA_DIR, { recursive: true });
  const seed = o.seed ?? 1;
  const path = join(DATA_DIR, `events-${o.name}.ndjson`);
  const meta = readMeta(path);
  if (meta && meta.count === o.count && meta.seed === seed && existsSync(path) && statSync(path).size === meta.bytes) {
    return { path, bytes: meta.bytes, count: o.count };
  }
  const t0 = Date.now();
  await evio(o.log, ['generate', 'events', '--count', String(o.count), '--seed', String(seed), '--out', path]);
  const bytes = statSync(path).size;
  writeMeta(path, { count: o.count, seed, bytes, generatedIn: `${((Date.now() - t0) / 1000).toFixed(1)} s` });
  return { path, bytes, count: o.count };
}

/**
 * `count` sudo I/O log sessions (seed 1): bench/data/sessions-<name>/.
 * @param {{ count: number, seed?: number, name: string, log: (s: string) => void }} o
 * @returns {Promise<{ dir: string, count: number, bytes: number }>}
 */
export async function ensureSessions(o) {
  mkdirSync(DATA_DIR, { recursive: true });
  const seed = o.seed ?? 1;
  const dir = join(DATA_DIR, `sessions-${o.name}`);
  const meta = readMeta(dir);
  if (meta && meta.count === o.count && meta.seed === seed && existsSync(join(dir, 'seq'))) {
    return { dir, count: o.count, bytes: meta.bytes };
  }
  rmSync(dir, { recursive: true, force: true });
  const r = await evio(o.log, ['generate', 'sessions', '--count', String(o.count), '--seed', String(seed), '--out', dir]);
  let bytes = 0;
  try {
    bytes = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}').bytes ?? 0;
  } catch {
    // older CLI output
  }
  writeMeta(dir, { count: o.count, seed, bytes });
  return { dir, count: o.count, bytes };
}

/** The first `n` lines of a file, written to `to`. @param {string} from @param {string} to @param {number} n */
async function headLines(from, to, n) {
  const r = await runProcess(['sh', '-c', `head -n ${n} '${from}' > '${to}'`], { stdout: 'null' });
  if (r.code !== 0) throw new Error(`head failed: ${r.stderr}`);
}

/**
 * Copies `source` into a database store with `evio events copy`, in two steps: the first 20k
 * events, then the planner statistics (ANALYZE, through `analyze`), then the whole file (the
 * first 20k are skipped as already present). Without statistics both SQLite and PostgreSQL
 * plan the finish re-link of every append batch (append-plan.ts recomputeFinishesSql) through
 * the etype index, which makes a bulk load quadratic (BENCHMARKS.md, workload 3 notes).
 * @param {{ source: { path: string, count: number }, to: string, analyze: () => Promise<void>, log: (s: string) => void, during?: () => Promise<void> }} o
 */
async function loadDatabase(o) {
  const head = join(DATA_DIR, 'head-20k.ndjson');
  await headLines(o.source.path, head, Math.min(20_000, o.source.count));
  /** @param {string} from */
  const copy = async (from) => {
    const r = await runProcess([NODE, EVIO_BIN, 'events', 'copy', '--from', `ff:${from}`, '--to', o.to], { stdout: 'pipe' });
    if (r.code !== 0) {
      if (/not wired/i.test(r.stderr)) throw new NotAvailable(`the store is not wired into the CLI yet (evio events copy: ${r.stderr.trim().split('\n').pop()})`);
      throw new Error(`evio events copy --to ${o.to} failed (${r.code}): ${r.stderr.slice(0, 2000)}`);
    }
    return r;
  };
  try {
    await copy(head);
  } finally {
    rmSync(head, { force: true });
  }
  await o.analyze();
  let done = false;
  const ticker = (async () => {
    // Statistics kept current while the table grows (autovacuum's job, done here on time).
    while (!done && o.during) {
      await new Promise((r) => setTimeout(r, 60_000));
      if (!done) await o.during().catch(() => {});
    }
  })();
  try {
    const t0 = Date.now();
    const r = await copy(o.source.path);
    o.log(`  ${r.stderr.trim().split('\n').pop()} (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  } finally {
    done = true;
  }
  void ticker;
  await o.analyze();
}

/**
 * An SQLite event database holding the events of `source` (copied with `evio events copy`),
 * cached: bench/data/events-<name>.sqlite. NotAvailable when the SQLite store is not wired.
 * @param {{ source: { path: string, count: number }, name: string, log: (s: string) => void }} o
 */
export async function ensureSqlite(o) {
  const path = join(DATA_DIR, `events-${o.name}.sqlite`);
  const meta = readMeta(path);
  if (meta && meta.count === o.source.count && existsSync(path) && meta.complete) return { path, count: o.source.count };
  for (const f of [path, `${path}-wal`, `${path}-shm`]) rmSync(f, { force: true });
  const t0 = Date.now();
  o.log(`  loading ${o.source.count} events into ${path} (evio events copy; long for 10M)`);
  await loadDatabase({
    source: o.source,
    to: `db:${path}`,
    log: o.log,
    analyze: async () => {
      const r = await runProcess(['sqlite3', path, 'ANALYZE;'], { stdout: 'null' });
      if (r.code !== 0) throw new Error(`sqlite3 ANALYZE failed: ${r.stderr}`);
    },
  });
  writeMeta(path, { count: o.source.count, complete: true, copiedIn: `${((Date.now() - t0) / 1000).toFixed(1)} s` });
  return { path, count: o.source.count };
}

export const PG_BASE = process.env.EVIO_BENCH_PG ?? 'postgres://postgres@127.0.0.1:5432/test';

/** The store URL of a schema of the bench database (search_path set per connection). @param {string} schema */
export function pgUrl(schema) {
  return `${PG_BASE}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
}

/** @param {string} sql */
export async function psql(sql) {
  const u = new URL(PG_BASE);
  const r = await runProcess(['psql', '-X', '-q', '-At', '-h', u.hostname, '-p', u.port || '5432', '-U', decodeURIComponent(u.username || 'postgres'), '-d', u.pathname.slice(1), '-v', 'ON_ERROR_STOP=1', '-c', sql], { stdout: 'pipe' });
  if (r.code !== 0) throw new Error(`psql -c ${sql.slice(0, 80)} failed: ${r.stderr.trim()}`);
  return r.stdout.trim();
}

/**
 * A PostgreSQL schema of the bench database holding the events of `source`, cached (a marker
 * row count is checked). Its own schema, so the tests' tables in the same database are never
 * touched. NotAvailable when PostgreSQL or psql is not there.
 * @param {{ source: { path: string, count: number }, schema: string, log: (s: string) => void }} o
 */
export async function ensurePg(o) {
  try {
    await psql('SELECT 1');
  } catch (err) {
    throw new NotAvailable(`PostgreSQL is not reachable at ${PG_BASE.replace(/:[^:@/]*@/, ':***@')} (${/** @type {Error} */ (err).message.split('\n')[0]})`);
  }
  const marker = join(DATA_DIR, `pg-${o.schema}`);
  const meta = readMeta(marker);
  if (meta && meta.count === o.source.count) {
    const n = await psql(`SELECT count(*) FROM ${o.schema}.events`).catch(() => '');
    if (Number(n) === o.source.count) return { url: pgUrl(o.schema), schema: o.schema, count: o.source.count };
  }
  await psql(`DROP SCHEMA IF EXISTS ${o.schema} CASCADE`);
  await psql(`CREATE SCHEMA ${o.schema}`);
  const t0 = Date.now();
  o.log(`  loading ${o.source.count} events into PostgreSQL schema ${o.schema} (evio events copy; long for 10M)`);
  const analyze = async () => {
    await psql(`ANALYZE ${o.schema}.events`);
  };
  await loadDatabase({ source: o.source, to: `pg:${pgUrl(o.schema)}`, log: o.log, analyze, during: analyze });
  writeMeta(marker, { count: o.source.count, copiedIn: `${((Date.now() - t0) / 1000).toFixed(1)} s` });
  return { url: pgUrl(o.schema), schema: o.schema, count: o.source.count };
}

/** A copy of a file (for the purge benchmark, which rewrites its input). @param {string} from @param {string} to */
export function copyFile(from, to) {
  copyFileSync(from, to);
  return to;
}
