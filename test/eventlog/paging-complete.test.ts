// A page cut by `limit` says so: following `next` until an answer has no `more` gives exactly the
// unpaged answer (no gap, no duplicate) on a flat file, SQLite and PostgreSQL, through the engine,
// over HTTP (GET /REST/v2.0/events, the legacy GET /REST/events, /REST/iolog/list), and through
// the batch commands, which print every match unless --limit caps them and then say how to go on.
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { iologIndex, iologListPage } from '../../src/app/iolog.js';
import type { Engine } from '../../src/engine.js';
import { generateEvents } from '../../src/eventlog/generate.js';
import { NO_LIMIT, newPageEnd, pageBatches, type NextPage } from '../../src/eventlog/paging.js';
import { parseEventQuery } from '../../src/eventlog/query.js';
import { SqliteStore } from '../../src/eventlog/sqlite/index.js';
import { openStore, parseStoreName } from '../../src/eventlog/stores.js';
import type { EventRow, EventStore, StoredEvent } from '../../src/eventlog/types.js';
import type { RunningServer } from '../../src/http/server.js';
import { makeHome, serve, signed, type TestHome } from '../http/server/helpers.js';
import { copyTree, makeEngine, removeDir, SAMPLES, tempDir } from '../iolog/helpers.js';
import { openTestStores, type TestStoreFactory } from './sql/stores.js';

const COUNT = 6000;
const bin = new URL('../../bin/evio.js', import.meta.url).pathname;
const records: StoredEvent[] = [...generateEvents({ count: COUNT, seed: 16 })];
const key = (r: EventRow) => `${r.rec.recnum}/${r.rec.etype}/${r.rec.uniqueid}/${r.exitstatus}`;

type Params = Record<string, string>;

/** One page of the store's answer to `params`, and how it ended. */
async function page(store: EventStore, params: Params) {
  const { query } = parseEventQuery(params);
  const end = newPageEnd();
  const rows: string[] = [];
  for await (const batch of pageBatches(store, query, {}, end)) for (const row of batch) rows.push(key(row));
  return { rows, limit: query.limit, end };
}

/** Follows `next` from `params` to the page without `more`; bounded in pages. */
async function followAll(store: EventStore, params: Params) {
  const all: string[] = [];
  let p = { ...params };
  for (let pages = 1; pages <= 200; pages++) {
    const r = await page(store, p);
    expect(r.rows.length).toBeLessThanOrEqual(r.limit);
    all.push(...r.rows);
    if (!r.end.more) return { all, pages };
    expect(r.rows.length).toBe(r.limit); // a cut page is a full one
    p = { ...p, ...Object.fromEntries(Object.entries(r.end.next!).map(([k, v]) => [k, String(v)])) };
  }
  throw new Error('more than 200 pages');
}

/** The unpaged answer: every match in one query. */
async function everything(store: EventStore, params: Params) {
  const r = await page(store, { ...params, limit: String(NO_LIMIT) });
  expect(r.end.more).toBe(false);
  return r.rows;
}

// Query shapes: filters, the merged exitstatus, dump=1, a first page that skips or bounds.
const COMMON: Params[] = [
  { runuser: 'root', limit: '500' },
  { dump: '1', limit: '997' },
  { exitstatus: '*status 0', etype: 'A,K', limit: '333' },
  { runuser: 'root', verbose: '1' }, // the verbose default page size, 512
];

describe('every page says whether it is complete; following next gives the whole answer', () => {
  let dir: TestHome;
  let factories: TestStoreFactory[] = [];
  const stores: Record<string, { store: EventStore; params: Params }> = {};
  beforeAll(async () => {
    dir = makeHome();
    const file = join(dir.dir, 'paging.ndjson');
    writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    stores.ff = { store: await openStore(dir.engine, parseStoreName(dir.engine, `ff:${file}`)), params: { format: 'ff', file } };
    factories = await openTestStores(['sqlite', 'pg']);
    for (const f of factories) {
      if (f.unavailable) continue;
      const s = await f.make();
      await s.append(records);
      stores[f.name] = { store: s, params: { format: 'db' } };
    }
  }, 120_000);
  afterAll(async () => {
    for (const f of factories) await f.cleanup();
    await dir?.cleanup();
  });

  for (const name of ['ff', 'sqlite', 'pg']) {
    it(`${name}: paged = unpaged, the last page has no more`, async () => {
      const s = stores[name];
      if (!s) throw new Error(`${name} is not available (PostgreSQL at 127.0.0.1:5432, database test)`);
      const shapes = [
        ...COMMON,
        name === 'ff' ? { runuser: 'root', start: '7', limit: '450' } : { runuser: 'root', start: '100', end: '5000', offset: '3', limit: '450' },
        ...(name === 'ff' ? [] : [{ runuser: 'root', order: 'runhost', limit: '300' }, { dump: '1', orderdirection: 'desc', limit: '700' }, { submituser: 'a*', order: 'exitstatus', orderdirection: 'desc', limit: '41' }]),
      ];
      for (const shape of shapes) {
        const params = { ...s.params, ...shape };
        const whole = await everything(s.store, params);
        const paged = await followAll(s.store, params);
        expect(whole.length, JSON.stringify(shape)).toBeGreaterThan(Number(shape.limit ?? 512)); // more than one page
        expect(paged.all, JSON.stringify(shape)).toEqual(whole);
        expect(new Set(paged.all).size).toBe(paged.all.length);
        expect(paged.pages).toBe(Math.ceil(whole.length / Number(shape.limit ?? 512))); // no empty last page
      }
    }, 120_000);
  }

  it('a page that ends exactly at the last match says nothing (the extra record did not come)', async () => {
    const s = stores.ff!;
    const whole = await everything(s.store, { ...s.params, runuser: 'root' });
    const r = await page(s.store, { ...s.params, runuser: 'root', limit: String(whole.length) });
    expect(r.rows).toEqual(whole);
    expect(r.end).toEqual({ more: false, next: null });
    const cut = await page(s.store, { ...s.params, runuser: 'root', limit: String(whole.length - 1) });
    expect(cut.end.more).toBe(true);
  });
});

describe('over HTTP: the envelope says more and next', () => {
  let home: TestHome;
  let server: RunningServer;
  beforeAll(async () => {
    home = makeHome();
    writeFileSync(join(home.dir, 'events.ndjson'), records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const db = new SqliteStore({ path: join(home.dir, 'paged.sqlite') });
    await db.append(records);
    await db.close();
    server = await serve(home);
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await home?.cleanup();
  });

  async function follow(path: string, params: Params, key: (e: Record<string, unknown>) => string) {
    const all: string[] = [];
    let p = { ...params };
    for (let pages = 1; pages <= 100; pages++) {
      const a = await signed(server, 'admin', 'GET', `${path}?${new URLSearchParams(p)}`);
      expect(a.body.status).toBe(0);
      all.push(...(a.body.events as Array<Record<string, unknown>>).map(key));
      if (a.body.more === undefined) return { all, pages, last: a.body };
      expect(a.body.more).toBe(true);
      const next = a.body.next as NextPage;
      p = { ...p, ...Object.fromEntries(Object.entries(next).map(([k, v]) => [k, String(v)])) };
    }
    throw new Error('more than 100 pages');
  }

  const byRecnum = (e: Record<string, unknown>) => `${e.recnum}/${e.uniqueid}/${e.exitstatus}`;

  for (const store of [{ format: 'ff', file: 'events.ndjson' }, { format: 'db', file: 'paged.sqlite' }]) {
    it(`GET /REST/v2.0/events (${store.format}): pages followed by next = the unpaged answer`, async () => {
      const whole = await signed(server, 'admin', 'GET', `/REST/v2.0/events?${new URLSearchParams({ ...store, runuser: 'root', limit: '100000' })}`);
      expect(whole.body.more).toBeUndefined();
      const expected = (whole.body.events as Array<Record<string, unknown>>).map(byRecnum);
      expect(expected.length).toBeGreaterThan(1000);
      const paged = await follow('/REST/v2.0/events', { ...store, runuser: 'root', limit: '400' }, byRecnum);
      expect(paged.all).toEqual(expected);
      expect(paged.pages).toBe(Math.ceil(expected.length / 400));
      expect(paged.last.status).toBe(0);
    }, 60_000);
  }

  it('the first page of the default limit says more when more match', async () => {
    const a = await signed(server, 'admin', 'GET', '/REST/v2.0/events?format=ff&file=events.ndjson&dump=1&verbose=1');
    expect((a.body.events as unknown[]).length).toBe(512);
    expect(a.body.more).toBe(true);
    const last = (a.body.events as Array<{ offset: number }>)[511]!;
    expect(a.body.next).toEqual({ offset: last.offset, start: 0 });
    // `more` and `next` come after the records and before status, which stays last.
    expect(a.text).toMatch(/\],"malformed":0,"more":true,"next":\{"offset":\d+,"start":0\},"status":0\}$/);
  });

  it('the legacy GET /REST/events pages the same way', async () => {
    const legacyKey = (e: Record<string, unknown>) => `${e.id}/${e.event}/${e.date} ${e.time}`;
    const whole = await signed(server, 'admin', 'GET', '/REST/events?file=events.ndjson&reject=0&limit=100000');
    const expected = (whole.body.events as Array<Record<string, unknown>>).map(legacyKey);
    const paged = await follow('/REST/events', { file: 'events.ndjson', reject: '0', limit: '700' }, legacyKey);
    expect(paged.all).toEqual(expected);
    expect(paged.pages).toBe(Math.ceil(expected.length / 700));
  });
});

describe('the batch commands print everything unless --limit caps them', () => {
  let home: TestHome;
  let ff: string;
  let db: string;
  beforeAll(async () => {
    home = makeHome();
    const file = join(home.dir, 'cli.ndjson');
    writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    // More matches than the REST default page (32768) would not keep the test quick; the CLI's
    // point is that no page size applies at all: query more than the verbose default (512) too.
    ff = `ff:${file}`;
    db = `db:${join(home.dir, 'cli.sqlite')}`;
    const s = new SqliteStore({ path: join(home.dir, 'cli.sqlite') });
    await s.append(records);
    await s.close();
  }, 60_000);
  afterAll(async () => {
    await home?.cleanup();
  });

  const run = (args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', cwd: home.dir, env: { ...process.env, EVIO_HOME: home.dir }, timeout: 60_000 });
  const direct = (pred: (r: StoredEvent) => boolean) => records.filter((r) => r.etype !== 'F' && pred(r)).length;

  it('events query without --limit prints every match, with --verbose too', () => {
    const expected = direct((r) => r.runuser === 'root');
    expect(expected).toBeGreaterThan(512);
    for (const extra of [[], ['--verbose']]) {
      for (const store of [ff, db]) {
        const r = run(['events', 'query', store, '--runuser', 'root', ...extra]);
        expect(r.status).toBe(0);
        expect(r.stdout.trim().split('\n').length).toBe(expected);
        expect(r.stderr).toBe('');
      }
    }
  });

  it('--limit N prints N, stderr gives the next command; following it gives every match once', () => {
    for (const store of [ff, db]) {
      const whole = run(['events', 'query', store, '--runuser', 'root']).stdout.trim().split('\n');
      const seen: string[] = [];
      let args = ['events', 'query', store, '--runuser', 'root', '--limit', '250'];
      for (let pages = 1; pages <= 100; pages++) {
        const r = run(args);
        expect(r.status).toBe(0);
        const lines = r.stdout.trim() === '' ? [] : r.stdout.trim().split('\n');
        seen.push(...lines);
        for (const l of lines) JSON.parse(l); // stdout stays pure NDJSON
        if (r.stderr === '') break;
        expect(lines.length).toBe(250);
        const m = /^evio: --limit 250 reached and more records match; continue with (--(offset|start) \d+):\n {2}evio events query (.+)\n$/.exec(r.stderr);
        expect(m, r.stderr).not.toBeNull();
        args = ['events', 'query', ...m![3]!.split(' ')];
        expect(args).toContain(m![1]!.split(' ')[0]!);
      }
      expect(seen).toEqual(whole);
    }
  });

  it('events export writes every match; with --limit it says how to export the rest', () => {
    const expected = direct((r) => r.runuser === 'root');
    const out = join(home.dir, 'all.ndjson');
    const r = run(['events', 'export', db, '--runuser', 'root', '--out', out]);
    expect(r.status).toBe(0);
    expect(readFileSync(out, 'utf8').trim().split('\n').length).toBe(expected);
    const cut = run(['events', 'export', db, '--runuser', 'root', '--limit', '10', '--format', 'csv']);
    expect(cut.status).toBe(0);
    expect(cut.stdout.trim().split('\r\n').length).toBe(11); // header + 10
    expect(cut.stderr).toMatch(/continue with --start \d+:\n {2}evio events export db:\S+ --runuser root --limit 10 --format csv --start \d+\n$/);
  });

  it('evio call prints the envelope with more and next', () => {
    copyFileSync(join(home.dir, 'cli.ndjson'), join(home.dir, 'events.ndjson'));
    const out = execFileSync(process.execPath, [bin, 'call', 'GET', `/REST/v2.0/events?format=ff&file=${join(home.dir, 'events.ndjson')}&runuser=root&limit=3`], { encoding: 'utf8', env: { ...process.env, EVIO_HOME: home.dir } });
    const body = JSON.parse(out) as { events: Array<{ offset: number }>; more: boolean; next: NextPage; status: number };
    expect(body.status).toBe(0);
    expect(body.events.length).toBe(3);
    expect(body.more).toBe(true);
    expect(body.next).toEqual({ offset: body.events[2]!.offset, start: 0 });
  });
});

describe('the I/O-log list says more and next the same way', () => {
  let root: string;
  let engine: Engine;
  beforeAll(() => {
    root = tempDir();
    copyTree(join(SAMPLES, 'sudo-io'), join(root, 'sudo-io'));
    copyTree(join(SAMPLES, 'logsrvd-io'), join(root, 'logsrvd-io'));
    engine = makeEngine([join(root, 'sudo-io'), join(root, 'logsrvd-io')]);
  });
  afterAll(async () => {
    await engine.close();
    removeDir(root);
  });

  it('following next.start gives the whole list; a page that ends at the last session says nothing', async () => {
    await iologIndex(engine);
    const whole = await iologListPage(engine, { refresh: '0', len: '1000' });
    expect(whole.more).toBe(false);
    expect(whole.result.length).toBeGreaterThan(5);
    const seen: unknown[] = [];
    let start = '0';
    let pages = 0;
    for (; pages < 50; ) {
      const p = await iologListPage(engine, { refresh: '0', start, len: '5' });
      pages++;
      seen.push(...p.result);
      if (!p.more) break;
      expect(p.result.length).toBe(5);
      start = String(p.next!.start);
    }
    expect(seen).toEqual(whole.result);
    expect(pages).toBe(Math.ceil(whole.result.length / 5));
    const exact = await iologListPage(engine, { refresh: '0', len: String(whole.result.length) });
    expect(exact).toEqual({ result: whole.result, more: false, next: null });
  });
});

describe('evio events import: a truncated live file exits 0, damaged data 1, as --help says', () => {
  let home: TestHome;
  beforeAll(() => {
    home = makeHome();
  });
  afterAll(async () => {
    await home?.cleanup();
  });
  const run = (args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', cwd: home.dir, env: { ...process.env, EVIO_HOME: home.dir }, timeout: 60_000 });

  it('says which exit status goes with which stop, and does it', () => {
    const help = run(['events', 'import', '--help']).stdout;
    expect(help).toMatch(/^ {2}0 {2}the import finished, including a file that ends inside its last event \(stop\.truncated:/m);
    expect(help).toMatch(/^ {2}1 {2}damaged data \(1703, stop\.truncated false\)/m);
    const text = readFileSync('/work/shared/samples/sudo-json.log', 'utf8');
    const cut = join(home.dir, 'live.json');
    writeFileSync(cut, text.slice(0, 3000)); // ends inside an event: sudo is still writing
    const live = run(['events', 'import', '--from', 'sudo-json', cut, '--to', 'ff:live.ndjson']);
    expect(live.status).toBe(0);
    expect(JSON.parse(live.stdout)).toMatchObject({ status: 0, importedTotal: 2, stop: { truncated: true } });
    expect(live.stderr).toMatch(/stopped at byte 1989 \(line 66\): the file ends inside an event/);
    const bad = join(home.dir, 'bad.json');
    writeFileSync(bad, text.replace('    "reject"', '    nonsense\n    "reject"'));
    const damaged = run(['events', 'import', '--from', 'sudo-json', bad, '--to', 'ff:bad.ndjson']);
    expect(damaged.status).toBe(1);
    expect(JSON.parse(damaged.stdout)).toMatchObject({ status: 1703, stop: { truncated: false } });
  });
});
