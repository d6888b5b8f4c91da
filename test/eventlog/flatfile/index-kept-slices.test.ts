// A long-lived process keeps the index column slices it checked (index-kept-slices.ts): later
// queries answer from them, the same as a scan, also when the index file is damaged or
// replaced afterwards, and the kept bytes stay within the budget.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { FlatFileStore } from '../../../src/eventlog/flatfile/flatfile-store.js';
import { buildIndexes } from '../../../src/eventlog/flatfile/index-files.js';
import { KEPT_BUDGET_BYTES, keptBytesTotal, keptSliceStats, setKeptBudget } from '../../../src/eventlog/flatfile/index-kept-slices.js';
import { parseEventQuery } from '../../../src/eventlog/query.js';
import { collect, comparable, tempDir } from './helpers.js';
import { answers, lines, makeLog, reference } from './index-cases.js';

const tmp = tempDir('evio-kept-');
afterAll(() => tmp.cleanup());
afterEach(() => setKeptBudget(KEPT_BUDGET_BYTES));

const log = makeLog(4000, 11);
const KEEP = { enabled: true, cacheDir: null, budgetMs: 0, blockBytes: 2048, plan: 'index' as const, keepColumns: true };
let n = 0;

async function indexedLog(records = log): Promise<string> {
  const path = join(tmp.dir, `log-${n++}.ndjson`);
  writeFileSync(path, lines(records));
  const [rep] = await buildIndexes(path, { cacheDir: null, family: false, blockBytes: 2048 });
  expect(rep!.outcome).toBe('built');
  return path;
}

describe('kept index column slices', () => {
  it('later queries answer from kept slices, as a scan does', async () => {
    setKeptBudget(KEPT_BUDGET_BYTES);
    const path = await indexedLog();
    const want = await reference(log);
    const s = new FlatFileStore({ path, index: KEEP });
    expect(await answers(s)).toEqual(want);
    const kept = keptSliceStats.kept;
    const hits = keptSliceStats.hits;
    expect(kept).toBeGreaterThan(0);
    expect(await answers(s)).toEqual(want);
    // The second round reused what the first kept, and checked nothing new.
    expect(keptSliceStats.hits).toBeGreaterThan(hits);
    expect(keptSliceStats.kept).toBe(kept);
  });

  it('a slice damaged in the file after it was kept: the kept copy answers; a new store falls back to the lines', async () => {
    const path = await indexedLog();
    const want = await reference(log);
    const s = new FlatFileStore({ path, index: KEEP });
    expect(await answers(s)).toEqual(want);
    // Flip bytes all over the index body (same size, same inode): its slices fail their checks.
    const idx = `${path}.evidx`;
    const b = readFileSync(idx);
    for (let i = Math.floor(b.length / 2); i < b.length - 8; i += 97) b[i] = b[i]! ^ 0x5a;
    writeFileSync(idx, b);
    expect(await answers(s)).toEqual(want);
    expect(await answers(new FlatFileStore({ path, index: KEEP }))).toEqual(want);
  });

  it('an index rebuilt over other records never answers from the old one\'s slices', async () => {
    const path = await indexedLog();
    const s = new FlatFileStore({ path, index: KEEP });
    expect(await answers(s)).toEqual(await reference(log));
    // Another log of the same size under the same path, its index rebuilt.
    const other = makeLog(4000, 12);
    writeFileSync(path, lines(other));
    await buildIndexes(path, { cacheDir: null, family: false, blockBytes: 2048 });
    expect(await answers(s)).toEqual(await reference(other));
  });

  it('evicts the index used least recently, counting the uses answered from memory', async () => {
    const q = parseEventQuery({ format: 'ff', file: 'x', submituser: 'user3', dump: '1' }).query;
    const [a, b, c] = await Promise.all([30, 31, 32].map(async (seed) => new FlatFileStore({ path: await indexedLog(makeLog(4000, seed)), index: KEEP })));
    setKeptBudget(KEPT_BUDGET_BYTES);
    await collect(a!.query(q));
    const one = keptBytesTotal();
    expect(one).toBeGreaterThan(0);
    // Room for two of the three answers' slices.
    setKeptBudget(Math.floor(one * 2.5));
    await collect(a!.query(q));
    await collect(b!.query(q));
    await collect(a!.query(q)); // all from memory: a is now the most recently used
    let before = keptSliceStats.kept;
    await collect(c!.query(q)); // evicts b, not a
    expect(keptSliceStats.kept).toBeGreaterThan(before);
    before = keptSliceStats.kept;
    await collect(a!.query(q));
    expect(keptSliceStats.kept).toBe(before);
    await collect(b!.query(q));
    expect(keptSliceStats.kept).toBeGreaterThan(before);
  });

  it('stays within the budget, the least recently used index going first', async () => {
    const budget = 40_000;
    setKeptBudget(budget);
    const q = parseEventQuery({ format: 'ff', file: 'x', submituser: 'user3', dump: '1' }).query;
    const stores: FlatFileStore[] = [];
    for (let i = 0; i < 3; i++) stores.push(new FlatFileStore({ path: await indexedLog(makeLog(4000, 20 + i)), index: KEEP }));
    for (const s of stores) {
      await collect(s.query(q));
      expect(keptBytesTotal()).toBeGreaterThan(0);
      expect(keptBytesTotal()).toBeLessThanOrEqual(budget);
    }
    // Answers stay right whatever was evicted.
    for (let i = 0; i < 3; i++) expect(comparable(await collect(stores[i]!.query(q)))).toEqual(comparable(await collect(new FlatFileStore({ path: stores[i]!.path, index: { enabled: false } }).query(q))));
    expect(keptBytesTotal()).toBeLessThanOrEqual(budget);
  });
});
