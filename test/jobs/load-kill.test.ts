// Faults: bulk loads (`evio events copy` and `evio events import` into PostgreSQL and SQLite)
// killed with SIGKILL at points chosen by what the load has done — once its indexes are
// deferred (the marker row is in evio_meta), once a batch of rows is committed — never after a
// time. A re-run then finishes: the store holds exactly the records of an uninterrupted load,
// with the same finish links and every index; one more run adds nothing.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateEvents } from '../../src/eventlog/generate.js';
import { PG_URL, pgAvailable } from '../helpers/services.js';
import { buildCli, runCli, startCli, type CliBuild, type RunResult } from './cli-build.js';

let build: CliBuild;
let dir: string;
let src: string;
let sudoLog: string;
let havePg = false;
const COUNT = 60_000;

beforeAll(async () => {
  build = buildCli('load-kill');
  dir = mkdtempSync(join(tmpdir(), 'evio-load-kill-'));
  src = join(dir, 'events.ndjson');
  writeFileSync(src, [...generateEvents({ count: COUNT, seed: 5 })].map((e) => `${JSON.stringify(e)}\n`).join(''));
  sudoLog = join(dir, 'sudo.json');
  writeFileSync(sudoLog, compactSudoLog(6000));
  writeFileSync(join(dir, 'evio.json'), JSON.stringify({ home: join(dir, 'home') }));
  havePg = await pgAvailable();
}, 120_000);
afterAll(() => {
  build?.cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** sudo's compact JSON log (one event a line) of `pairs` sessions: accept + exit, every tenth a reject. */
function compactSudoLog(pairs: number): string {
  const t = (s: number) => ({ seconds: s, nanoseconds: 0, iso8601: '20261122024459Z', localtime: 'Nov 22 02:44:59 2026' });
  const lines: string[] = [];
  for (let i = 0; i < pairs; i++) {
    const sec = 1795315499 + i * 2;
    const uuid = `${i.toString(16).padStart(8, '0')}-cd94-4a9a-98e0-000000000000`;
    if (i % 10 === 9) {
      lines.push(JSON.stringify({ reject: { uuid, reason: 'command not allowed', server_time: t(sec), submituser: 'bob', command: '/usr/bin/ls', runuser: 'root', submithost: 'vm', runargv: ['ls', 'tab\there'] } }));
      continue;
    }
    lines.push(JSON.stringify({ accept: { uuid, server_time: t(sec), submituser: 'alice', command: '/usr/bin/id', runuser: 'root', submithost: 'vm', runargv: ['id', `-${i}`, 'back\\slash', 'new\nline'] } }));
    lines.push(JSON.stringify({ exit: { uuid, server_time: t(sec + 1), exit_value: i % 7 } }));
  }
  return `${lines.join('\n')}\n`;
}

/** Starts `evio ARGS` and SIGKILLs it once `ready()` answers true (polled); resolves when it is gone. */
async function runUntil(args: string[], ready: () => Promise<boolean>): Promise<RunResult & { killed: boolean }> {
  const { proc, done } = startCli(build, ['--config', join(dir, 'evio.json'), ...args], dir);
  let exited = false;
  void done.then(() => (exited = true));
  let killed = false;
  while (!exited) {
    if (await ready().catch(() => false)) {
      killed = proc.kill('SIGKILL');
      break;
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  return { ...(await done), killed };
}

const run = (args: string[]) => runCli(build, ['--config', join(dir, 'evio.json'), ...args], { cwd: dir, timeoutMs: 120_000 });

// ---- PostgreSQL ----------------------------------------------------------------------------

let schemaSeq = 0;
async function pgSchema(admin: pg.Client): Promise<{ name: string; store: string }> {
  const name = `evio_loadkill_${process.pid}_${++schemaSeq}`;
  await admin.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
  await admin.query(`CREATE SCHEMA ${name}`);
  const u = new URL(PG_URL);
  u.searchParams.set('options', `-c search_path=${name}`);
  return { name, store: `pg:${u.toString()}` };
}

async function pgState(admin: pg.Client, schema: string) {
  const rows = (await admin.query(`SELECT recnum, uniqueid, etype, time, fin_recnum, merged_exitstatus, merged_exittime, exitstatus, exittime, record FROM ${schema}.events ORDER BY recnum`)).rows as unknown[];
  const indexes = (await admin.query('SELECT indexname FROM pg_indexes WHERE schemaname = $1 ORDER BY indexname', [schema])).rows.map((r: { indexname: string }) => r.indexname);
  const meta = (await admin.query(`SELECT meta_key FROM ${schema}.evio_meta ORDER BY meta_key`)).rows.map((r: { meta_key: string }) => r.meta_key);
  return { rows, indexes, meta };
}

async function pgCount(admin: pg.Client, schema: string): Promise<number> {
  return Number((await admin.query(`SELECT count(*) AS n FROM ${schema}.events`)).rows[0].n);
}

async function pgDeferred(admin: pg.Client, schema: string): Promise<boolean> {
  return (await admin.query(`SELECT 1 FROM ${schema}.evio_meta WHERE meta_key = 'deferred_indexes'`)).rows.length > 0;
}

describe('kill -9 during a load into PostgreSQL', () => {
  let admin: pg.Client;
  beforeAll(async () => {
    if (!havePg) return;
    admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
  });
  afterAll(async () => {
    if (!admin) return;
    for (let i = 1; i <= schemaSeq; i++) await admin.query(`DROP SCHEMA IF EXISTS evio_loadkill_${process.pid}_${i} CASCADE`).catch(() => {});
    await admin.end();
  });

  it('events copy: killed once its indexes are deferred, and once rows are committed; re-runs finish with the exact record set', async (ctx) => {
    if (!havePg) return ctx.skip();
    const ref = await pgSchema(admin);
    const r = await run(['events', 'copy', '--from', `ff:${src}`, '--to', ref.store]);
    expect(r.code, r.stderr).toBe(0);
    const reference = await pgState(admin, ref.name);
    expect(reference.rows).toHaveLength(COUNT);
    expect(reference.meta).toEqual(['schema', 'version']);

    const target = await pgSchema(admin);
    const copy = ['events', 'copy', '--from', `ff:${src}`, '--to', target.store];
    // 1. Killed with the indexes dropped and no row written yet.
    const k1 = await runUntil(copy, () => pgDeferred(admin, target.name));
    expect(k1.killed).toBe(true);
    expect(await pgCount(admin, target.name)).toBeLessThan(COUNT);
    // 2. The re-run (its open builds the indexes first) killed once some rows are committed.
    const k2 = await runUntil(copy, async () => (await pgCount(admin, target.name)) > 0);
    expect(k2.killed).toBe(true);
    const part = await pgCount(admin, target.name);
    expect(part).toBeGreaterThan(0);
    expect(part).toBeLessThan(COUNT);
    // 3. Finished: the exact records, links and indexes of the uninterrupted copy.
    const fin = await run(copy);
    expect(fin.code, fin.stderr).toBe(0);
    expect(fin.stderr).toContain(`copied ${COUNT - part} records`);
    const got = await pgState(admin, target.name);
    expect(got.indexes).toEqual(reference.indexes);
    expect(got.meta).toEqual(['schema', 'version']);
    expect(got.rows).toEqual(reference.rows);
    // 4. Once more: nothing is added.
    const again = await run(copy);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`copied 0 records`);
    expect(again.stderr).toContain(`${COUNT} were already present`);
    expect((await pgState(admin, target.name)).rows).toEqual(reference.rows);
  }, 480_000);

  it('events import: killed once a batch is committed; the re-run imports exactly what is missing', async (ctx) => {
    if (!havePg) return ctx.skip();
    const ref = await pgSchema(admin);
    const importArgs = (store: string) => ['events', 'import', '--from', 'sudo-json', sudoLog, '--to', store, '--batch', '1000'];
    const r = await run(importArgs(ref.store));
    expect(r.code, r.stderr).toBe(0);
    const reference = await pgState(admin, ref.name);
    expect(reference.rows).toHaveLength(6000 + 5400);

    const target = await pgSchema(admin);
    const k = await runUntil(importArgs(target.store), async () => (await pgCount(admin, target.name)) >= 1000);
    expect(k.killed).toBe(true);
    const part = await pgCount(admin, target.name);
    expect(part).toBeLessThan(reference.rows.length);
    const fin = await run(importArgs(target.store));
    expect(fin.code, fin.stderr).toBe(0);
    const report = JSON.parse(fin.stdout) as { importedTotal: number; alreadyPresent: number };
    expect(report.importedTotal).toBe(reference.rows.length - part);
    const got = await pgState(admin, target.name);
    expect(got.indexes).toEqual(reference.indexes);
    expect(got.meta).toEqual(['schema', 'version']);
    expect(got.rows).toEqual(reference.rows);
    const again = JSON.parse((await run(importArgs(target.store))).stdout) as { importedTotal: number };
    expect(again.importedTotal).toBe(0);
    expect((await pgState(admin, target.name)).rows).toEqual(reference.rows);
  }, 480_000);
});

// ---- SQLite --------------------------------------------------------------------------------

function sqliteState(path: string) {
  const db = new Database(path, { readonly: true });
  try {
    return {
      rows: db.prepare('SELECT recnum, uniqueid, etype, time, fin_recnum, merged_exitstatus, merged_exittime, exitstatus, exittime, record FROM events ORDER BY recnum').all(),
      indexes: (db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events' ORDER BY name").all() as Array<{ name: string }>).map((r) => r.name),
      meta: (db.prepare('SELECT meta_key FROM evio_meta ORDER BY meta_key').all() as Array<{ meta_key: string }>).map((r) => r.meta_key),
    };
  } finally {
    db.close();
  }
}

function sqliteCount(path: string): number {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

function sqliteDeferred(path: string): boolean {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return db.prepare("SELECT 1 FROM evio_meta WHERE meta_key = 'deferred_indexes'").get() !== undefined;
  } finally {
    db.close();
  }
}

describe('kill -9 during a load into SQLite', () => {
  it('events copy: killed once its indexes are deferred, and once rows are committed; re-runs finish with the exact record set', async () => {
    const refPath = join(dir, 'ref.sqlite');
    const r = await run(['events', 'copy', '--from', `ff:${src}`, '--to', `db:${refPath}`]);
    expect(r.code, r.stderr).toBe(0);
    const reference = sqliteState(refPath);
    expect(reference.rows).toHaveLength(COUNT);
    expect(reference.meta).toEqual(['schema', 'version']);

    const path = join(dir, 'int.sqlite');
    const copy = ['events', 'copy', '--from', `ff:${src}`, '--to', `db:${path}`];
    const k1 = await runUntil(copy, async () => sqliteDeferred(path));
    expect(k1.killed).toBe(true);
    const k2 = await runUntil(copy, async () => sqliteCount(path) > 0);
    expect(k2.killed).toBe(true);
    const part = sqliteCount(path);
    expect(part).toBeGreaterThan(0);
    expect(part).toBeLessThan(COUNT);
    const fin = await run(copy);
    expect(fin.code, fin.stderr).toBe(0);
    expect(fin.stderr).toContain(`copied ${COUNT - part} records`);
    const got = sqliteState(path);
    expect(got.indexes).toEqual(reference.indexes);
    expect(got.meta).toEqual(['schema', 'version']);
    expect(got.rows).toEqual(reference.rows);
    const again = await run(copy);
    expect(again.stderr).toContain(`${COUNT} were already present`);
    expect(sqliteState(path).rows).toEqual(reference.rows);
  }, 480_000);
});
