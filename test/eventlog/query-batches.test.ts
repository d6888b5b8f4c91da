// The batched query path (EventStore.queryBatches) on every store: batches are never empty,
// their rows in order are exactly the per-row answer and the reference's, an abort stops the
// answer within one batch, and leaving early frees the store for the next query. A flat file is
// read both by scan and through its skip index (forced), the databases through their cursors
// (small fetch sizes, so an answer spans many batches) and as one-statement pages.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FlatFileStore } from '../../src/eventlog/flatfile/flatfile-store.js';
import { buildIndexes } from '../../src/eventlog/flatfile/index-files.js';
import { generateEvents } from '../../src/eventlog/generate.js';
import { MemoryStore } from '../../src/eventlog/memory-store.js';
import { dumpQuery } from '../../src/eventlog/query.js';
import { eachRow } from '../../src/eventlog/row-batches.js';
import type { EventQuery, EventRow, EventStore, StoredEvent } from '../../src/eventlog/types.js';
import { tempDir } from './flatfile/helpers.js';
import { openTestStores, type TestStoreFactory } from './sql/stores.js';

const COUNT = 4000;
const records: StoredEvent[] = [...generateEvents({ count: COUNT, seed: 23 })];
const tmp = tempDir('evio-batches-');
const key = (r: EventRow) => `${r.rec.recnum}/${r.rec.etype}/${r.exitstatus}/${r.exittime}`;

const QUERIES: Array<[string, EventQuery]> = [
  ['every record (dump)', dumpQuery()],
  ['merged answer, no filter', { ...dumpQuery(), dump: false, verbose: false }],
  ['a selective type', dumpQuery({ etypes: ['R'] })],
  ['a page of 700 after 100', { ...dumpQuery(), skip: 100, limit: 700 }],
];

type Made = { name: string; store: EventStore };
const made: Made[] = [];
let factories: TestStoreFactory[] = [];
let reference: MemoryStore;

beforeAll(async () => {
  reference = new MemoryStore();
  await reference.append(records);
  made.push({ name: 'memory', store: reference });
  const path = join(tmp.dir, 'events.ndjson');
  writeFileSync(path, records.map((r) => `${JSON.stringify(r)}\n`).join(''));
  made.push({ name: 'flat file, scanned', store: new FlatFileStore({ path, index: { enabled: false }, readSize: 4096 }) });
  const [rep] = await buildIndexes(path, { cacheDir: null, family: false, blockBytes: 16 << 10 });
  expect(rep!.outcome).toBe('built');
  made.push({ name: 'flat file, through its index', store: new FlatFileStore({ path, index: { enabled: true, cacheDir: null, budgetMs: 0, plan: 'index' } }) });
  factories = await openTestStores();
  for (const f of factories) {
    if (f.unavailable) continue;
    const store = await f.make({ stream: 128 });
    await store.append(records);
    made.push({ name: f.name, store });
  }
}, 240_000);

afterAll(async () => {
  for (const f of factories) await f.cleanup();
  tmp.cleanup();
});

async function batchesOf(store: EventStore, q: EventQuery): Promise<EventRow[][]> {
  const out: EventRow[][] = [];
  for await (const b of store.queryBatches(q)) out.push(b);
  return out;
}

describe('EventStore.queryBatches', () => {
  it('every store under test is here (the databases run in CI)', () => {
    expect(made.map((m) => m.name).slice(0, 4)).toEqual(['memory', 'flat file, scanned', 'flat file, through its index', ...(made.length > 3 ? [made[3]!.name] : [])]);
    if (process.env.CI) expect(made.length).toBe(3 + factories.length);
  });

  for (const [label, q] of QUERIES) {
    it(`${label}: batches are never empty, and are the per-row answer and the reference's`, async () => {
      const want: string[] = [];
      for await (const r of reference.query(q)) want.push(key(r));
      expect(want.length).toBeGreaterThan(0);
      for (const { name, store } of made) {
        const batches = await batchesOf(store, q);
        expect({ name, empty: batches.filter((b) => b.length === 0).length }).toEqual({ name, empty: 0 });
        expect({ name, rows: batches.flat().map(key) }).toEqual({ name, rows: want });
        const perRow: string[] = [];
        for await (const r of store.query(q)) perRow.push(key(r));
        expect({ name, rows: perRow }).toEqual({ name, rows: want });
        // The streaming stores answer a large result in several batches, not one array.
        if (name !== 'memory' && want.length > 1000) expect({ name, several: batches.length > 1 }).toEqual({ name, several: true });
      }
    });
  }

  it('an abort after the first batch stops the answer within one more batch, and the store answers the next query', async () => {
    for (const { name, store } of made) {
      const ac = new AbortController();
      let batches = 0;
      const run = (async () => {
        for await (const _ of store.queryBatches(dumpQuery(), { signal: ac.signal })) if (++batches === 1) ac.abort();
      })();
      await expect(run, name).rejects.toMatchObject({ name: 'AbortError' });
      expect({ name, batches: batches <= 2 }).toEqual({ name, batches: true });
      const next = await batchesOf(store, { ...dumpQuery(), limit: 3 });
      expect({ name, rows: next.flat().length }).toEqual({ name, rows: 3 });
    }
  });

  it('leaving after the first batch closes the scan or cursor (many times over, nothing leaks)', async () => {
    for (const { name, store } of made) {
      for (let i = 0; i < 20; i++) {
        for await (const b of store.queryBatches(dumpQuery())) {
          expect(b.length).toBeGreaterThan(0);
          break;
        }
      }
      const all = await batchesOf(store, dumpQuery({ etypes: ['K'] }));
      expect({ name, rows: all.flat().length }).toEqual({ name, rows: records.filter((r) => r.etype === 'K').length });
    }
  });

  it('eachRow gives the rows of the batches in order', async () => {
    async function* three() {
      yield [1, 2];
      yield [3];
      yield [4, 5, 6];
    }
    const out: number[] = [];
    for await (const x of eachRow(three())) out.push(x);
    expect(out).toEqual([1, 2, 3, 4, 5, 6]);
  });
});
