// SQLite store (the embedded default): the reference comparison, plus what is SQLite's own:
// WAL mode, the file and schema created on first use, foreign and newer schemas refused, reads
// beside a running append, cancellation, errors naming the file.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isEvioError } from '../../../src/errors.js';
import { SqliteStore } from '../../../src/eventlog/sqlite/index.js';
import type { EventRow, NewEvent } from '../../../src/eventlog/types.js';
import { describeAgainstReference } from './against-reference.js';
import { DUMP_ALL, MERGED_ALL } from './model.js';
import { openTestStores, type TestStoreFactory } from './stores.js';

let factory: TestStoreFactory | undefined;
beforeAll(async () => {
  [factory] = await openTestStores(['sqlite']);
});
afterAll(async () => {
  await factory?.cleanup();
});

describeAgainstReference('sqlite', () => factory, { numRuns: 120, seed: 5101 });

const dir = mkdtempSync(join(tmpdir(), 'evio-sqlite-own-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(dir, `sub${n}`, `events-${n++}.sqlite`);
/** A path whose folder exists (for files a test writes itself). */
const freshInFolder = () => {
  const p = fresh();
  mkdirSync(dirname(p), { recursive: true });
  return p;
};

async function collect(it: AsyncIterable<EventRow>): Promise<number[]> {
  const out: number[] = [];
  for await (const r of it) out.push(r.rec.recnum);
  return out;
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    return isEvioError(err) ? err.errorName : `not an EvioError: ${String(err)}`;
  }
}

describe('SqliteStore specifics', () => {
  it('creates the file (and its folder) with the versioned schema, in WAL mode', async () => {
    const path = fresh();
    const s = new SqliteStore(path);
    expect(s.kind).toBe('sqlite');
    expect(s.name).toBe(`db:${path}`);
    await s.append([{ uniqueid: 'a', etype: 'A', time: 1 }]);
    await s.close();
    const db = new Database(path, { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.prepare('SELECT meta_key, meta_value FROM evio_meta ORDER BY meta_key').all()).toEqual([
      { meta_key: 'schema', meta_value: 'evio-events' },
      { meta_key: 'version', meta_value: '1' },
    ]);
    const indexes = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events'").all() as { name: string }[]).map((r) => r.name);
    for (const c of ['uniqueid', 'etype', 'time', 'submituser', 'submithost', 'runuser', 'runhost', 'runcommand', 'exitstatus', 'merged_exitstatus', 'merged_exittime', 'fin_recnum']) {
      expect(indexes).toContain(`events_${c}`);
    }
    db.close();
  });

  it('works in memory (":memory:", one connection)', async () => {
    const s = new SqliteStore(':memory:');
    await s.append([{ uniqueid: 'm', etype: 'A', time: 1 }, { uniqueid: 'm', etype: 'F', time: 3, exitstatus: 'ok' }]);
    const rows: EventRow[] = [];
    for await (const r of s.query(MERGED_ALL)) rows.push(r);
    expect(rows.map((r) => [r.rec.recnum, r.exitstatus, r.exittime])).toEqual([[1, 'ok', 3]]);
    expect((await s.delete({ ...MERGED_ALL, patterns: {} })).deleted).toBe(2);
    await s.close();
  });

  it('keeps its data across reopening', async () => {
    const path = fresh();
    const a = new SqliteStore(path);
    await a.append([{ uniqueid: 'x', etype: 'A', time: 1 }, { uniqueid: 'x', etype: 'F', time: 2, exitstatus: 'done' }]);
    await a.close();
    const b = new SqliteStore(path);
    const rows: EventRow[] = [];
    for await (const r of b.query(MERGED_ALL)) rows.push(r);
    expect(rows.map((r) => [r.rec.recnum, r.exitstatus, r.exittime])).toEqual([[1, 'done', 2]]);
    expect(await b.lastRecnum()).toBe(2);
    await b.close();
  });

  it('refuses a foreign schema and a newer evio schema with STORE_SCHEMA', async () => {
    const foreign = freshInFolder();
    const db = new Database(foreign);
    db.exec('CREATE TABLE events (id INTEGER PRIMARY KEY, what TEXT)');
    db.close();
    const s = new SqliteStore(foreign);
    expect(await codeOf(s.lastRecnum())).toBe('STORE_SCHEMA');
    await s.close();

    const newer = fresh();
    const t = new SqliteStore(newer);
    await t.open();
    await t.close();
    const db2 = new Database(newer);
    db2.prepare("UPDATE evio_meta SET meta_value = '99' WHERE meta_key = 'version'").run();
    db2.close();
    const u = new SqliteStore(newer);
    await expect(u.query(DUMP_ALL)[Symbol.asyncIterator]().next()).rejects.toThrow(/^1208 .*version 99 is newer/);
    await u.close();
  });

  it('answers STORE_SQLITE naming the file for a file that is not a database', async () => {
    const path = freshInFolder();
    writeFileSync(path, 'this is not an SQLite database, just text '.repeat(200));
    const s = new SqliteStore(path);
    const err = await s.lastRecnum().catch((e: unknown) => e);
    expect(isEvioError(err, 'STORE_SQLITE')).toBe(true);
    expect((err as Error).message).toContain(path);
    expect((err as Error).message).not.toMatch(/\n\s+at /); // no stack trace in the message
    await s.close();
    expect(readFileSync(path, 'utf8')).toMatch(/^this is not/); // left as it was
  });

  it('streams a large answer in batches while an append runs beside it', async () => {
    const s = new SqliteStore({ path: fresh(), streamBatch: 100 });
    const many = (from: number, count: number): NewEvent[] => Array.from({ length: count }, (_, i) => ({ uniqueid: `u${from + i}`, etype: 'A', time: from + i }));
    await s.append(many(0, 3000));
    let seen = 0;
    let appended = false;
    for await (const _ of s.query({ ...DUMP_ALL, limit: 3000 })) {
      if (++seen === 500) {
        // A write while the reader's statement is open: WAL lets both go on.
        const r = await s.append(many(3000, 10));
        appended = r.count === 10;
      }
    }
    expect(seen).toBe(3000); // the reader's snapshot does not see the later append
    expect(appended).toBe(true);
    expect(await s.lastRecnum()).toBe(3010);
    await s.close();
  });

  it('lets the event loop run while a query streams', async () => {
    const s = new SqliteStore({ path: fresh(), streamBatch: 50 });
    await s.append(Array.from({ length: 2000 }, (_, i) => ({ uniqueid: `u${i}`, etype: 'A' as const, time: i })));
    // Counts event-loop turns (a chain of setImmediate), not time: the answer is the same on a
    // fast or a loaded machine.
    let ticks = 0;
    let stop = false;
    const tick = () => {
      ticks++;
      if (!stop) setImmediate(tick);
    };
    setImmediate(tick);
    let rows = 0;
    // A consumer that never awaits anything else: only the store's own yields let the chain run.
    for await (const _ of s.query(DUMP_ALL)) rows++;
    stop = true;
    expect(rows).toBe(2000);
    // 2000 rows in batches of 50: a turn of the loop after each of the 40 batches.
    expect(ticks).toBeGreaterThanOrEqual(39);
    await s.close();
  });

  it('stops a query when its signal aborts, and the next query works', async () => {
    const s = new SqliteStore({ path: fresh(), streamBatch: 10 });
    await s.append(Array.from({ length: 500 }, (_, i) => ({ uniqueid: `u${i}`, etype: 'A' as const, time: i })));
    const ac = new AbortController();
    let seen = 0;
    const run = (async () => {
      for await (const _ of s.query(DUMP_ALL, { signal: ac.signal })) if (++seen === 25) ac.abort();
    })();
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen).toBeLessThan(500);
    expect((await collect(s.query({ ...DUMP_ALL, limit: 3 }))).length).toBe(3);
    await s.close();
  });

  it('refuses text a database cannot hold (NUL, unpaired surrogate), after writing the records before it', async () => {
    const s = new SqliteStore(fresh());
    const err = await s.append([{ uniqueid: 'ok', etype: 'A', time: 1 }, { uniqueid: 'bad', etype: 'A', time: 2, submituser: 'a\u0000b' }]).catch((e: unknown) => e);
    expect(isEvioError(err, 'STORE_BAD_RECORD')).toBe(true);
    expect(await s.lastRecnum()).toBe(1);
    expect(await codeOf(s.append([{ uniqueid: '\uD800', etype: 'A', time: 1 }]))).toBe('STORE_BAD_RECORD');
    await s.close();
  });

  it('takes a recnum below the last one when it is free (and links it to a later finish)', async () => {
    const s = new SqliteStore(fresh());
    await s.append([{ recnum: 10, uniqueid: 'x', etype: 'F', time: 10, exitstatus: 'exit 3' }]);
    const r = await s.append([{ recnum: 4, uniqueid: 'x', etype: 'A', time: 4 }, { recnum: 10, uniqueid: 'x', etype: 'F', time: 10 }]);
    expect(r).toEqual({ first: 4, last: 4, count: 1, skipped: 1 });
    const rows: EventRow[] = [];
    for await (const row of s.query(MERGED_ALL)) rows.push(row);
    expect(rows.map((x) => [x.rec.recnum, x.exitstatus, x.exittime])).toEqual([[4, 'exit 3', 10]]);
    await s.close();
  });
});
