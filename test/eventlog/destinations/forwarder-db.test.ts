// The forwarder into a database destination (SQLite, real files): every record of the flat-file
// spool arrives with its recnum, in batches; a close part-way and a new start deliver the rest
// exactly once; a cursor behind the database (a crash between a delivery and the cursor's write)
// delivers again what the database then skips; rotated files are read; a record of an append
// that is still writing (and may be undone) is never passed on.
import { appendFileSync, readFileSync, truncateSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileLock } from '../../../src/common/file-lock.js';
import { cursorFile } from '../../../src/eventlog/destinations/cursor.js';
import { Forwarder } from '../../../src/eventlog/destinations/forwarder.js';
import type { Sink } from '../../../src/eventlog/destinations/sink.js';
import type { Spool } from '../../../src/eventlog/destinations/spool.js';
import { storeSink } from '../../../src/eventlog/destinations/store-sink.js';
import { rotateFlatFile } from '../../../src/eventlog/flatfile/rotate.js';
import { dumpQuery } from '../../../src/eventlog/query.js';
import { SqliteStore } from '../../../src/eventlog/sqlite/index.js';
import type { AppendResult, EventStore, StoredEvent } from '../../../src/eventlog/types.js';
import { FAST, flatFileWith, records, spoolOf, tempDir, until } from './helpers.js';

async function dump(store: EventStore): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const row of store.query(dumpQuery())) out.push(row.rec);
  return out;
}

/** A store sink that counts what the database took and skipped. */
function countingSink(db: EventStore, counts: { appended: number; skipped: number; batches: number }, after?: (n: number) => void): Sink {
  const counting: EventStore = Object.create(db) as EventStore;
  counting.append = async (evs, o) => {
    const r: AppendResult = await db.append(evs, o);
    counts.appended += r.count;
    counts.skipped += r.skipped;
    counts.batches++;
    after?.(counts.batches);
    return r;
  };
  return storeSink(async () => counting);
}

describe('forwarder into SQLite', () => {
  let t: ReturnType<typeof tempDir>;
  let spool: Spool;
  let db: SqliteStore;
  const log: string[] = [];
  beforeEach(() => {
    t = tempDir();
    db = new SqliteStore({ path: join(t.dir, 'dest.sqlite') });
    log.length = 0;
  });
  afterEach(async () => {
    await spool?.close();
    await db.close();
    t.cleanup();
  });

  const forwarder = (sink: Sink, cursor = join(t.dir, 'spool', 'db.cursor')) =>
    new Forwarder({ name: 'db', target: 'dest.sqlite', sink, spool, cursor: cursorFile(cursor, 'dest.sqlite'), log: (l) => log.push(l), batch: { records: 300, bytes: 1 << 20 }, backoff: FAST });

  it('delivers every record with its recnum, in batches, and says where it stands', async () => {
    const recs = records(2500);
    const path = join(t.dir, 'events.ndjson');
    await flatFileWith(path, recs);
    spool = spoolOf(path);
    const counts = { appended: 0, skipped: 0, batches: 0 };
    const f = forwarder(countingSink(db, counts)).start();
    await until(async () => (await db.lastRecnum()) === 2500, 'the database to hold recnum 2500');
    expect(await dump(db)).toEqual(recs);
    expect(counts).toEqual({ appended: 2500, skipped: 0, batches: 9 });
    expect(f.figures.maxBatchRecords).toBe(300);
    await until(() => f.status().pendingSince === undefined, 'the forwarder to find nothing more');
    expect(f.status()).toEqual({ name: 'db', target: 'dest.sqlite', deliveredRecnum: 2500, failures: 0 });
    expect(JSON.parse(readFileSync(join(t.dir, 'spool', 'db.cursor'), 'utf8'))).toMatchObject({ recnum: 2500, target: 'dest.sqlite' });
    // Appended later: wake() delivers them.
    const more = records(2600).slice(2500);
    const ff = await flatFileWith(path, []);
    const res = await ff.append(more);
    f.wake(res.last!);
    await until(async () => (await db.lastRecnum()) === 2600, 'the database to hold recnum 2600');
    await f.close();
    expect(await dump(db)).toEqual([...recs, ...more]);
  });

  it('closed part-way and started again, delivers the rest exactly once', async () => {
    const recs = records(2000);
    const path = join(t.dir, 'events.ndjson');
    await flatFileWith(path, recs);
    spool = spoolOf(path);
    const counts = { appended: 0, skipped: 0, batches: 0 };
    let first!: Forwarder;
    first = forwarder(countingSink(db, counts, (n) => (n === 3 ? void first.close() : undefined))).start();
    await until(() => counts.batches >= 3, 'three batches');
    await first.close();
    const cut = await db.lastRecnum();
    expect(cut).toBeGreaterThanOrEqual(900);
    expect(cut).toBeLessThan(2000);
    const second = forwarder(countingSink(db, counts)).start();
    await until(async () => (await db.lastRecnum()) === 2000, 'the database to hold recnum 2000');
    await second.close();
    expect(counts.appended).toBe(2000);
    expect(counts.skipped).toBe(0);
    expect(await dump(db)).toEqual(recs);
  });

  it('a cursor behind the database (crash before the cursor was written) delivers again what the database skips', async () => {
    const recs = records(1000);
    const path = join(t.dir, 'events.ndjson');
    await flatFileWith(path, recs);
    spool = spoolOf(path);
    const counts = { appended: 0, skipped: 0, batches: 0 };
    const a = forwarder(countingSink(db, counts)).start();
    await until(async () => (await db.lastRecnum()) === 1000, 'the first delivery');
    await a.close();
    // The cursor write of the last two batches "did not happen".
    writeFileSync(join(t.dir, 'spool', 'db.cursor'), '{"recnum":600}\n');
    const b = forwarder(countingSink(db, counts)).start();
    await until(() => b.status().deliveredRecnum === 1000, 'the second forwarder to catch up');
    await b.close();
    expect(counts).toMatchObject({ appended: 1000, skipped: 400 });
    expect(await dump(db)).toEqual(recs);
  });

  it('a damaged cursor restarts a database destination from the first record, keeping the damaged file', async () => {
    const recs = records(700);
    const path = join(t.dir, 'events.ndjson');
    await flatFileWith(path, recs);
    spool = spoolOf(path);
    const counts = { appended: 0, skipped: 0, batches: 0 };
    const a = forwarder(countingSink(db, counts)).start();
    await until(async () => (await db.lastRecnum()) === 700, 'the first delivery');
    await a.close();
    const cursor = join(t.dir, 'spool', 'db.cursor');
    writeFileSync(cursor, '{"recnum":70'); // cut short
    const b = forwarder(countingSink(db, counts)).start();
    await until(() => b.status().deliveredRecnum === 700, 'the second forwarder to catch up');
    await b.close();
    expect(counts).toMatchObject({ appended: 700, skipped: 700 });
    expect(readFileSync(`${cursor}.damaged`, 'utf8')).toBe('{"recnum":70');
    expect(log.some((l) => l.includes('1260') && l.includes('delivering again from the first record'))).toBe(true);
  });

  it('reads records a rotation moved into a rotated file while the destination was behind', async () => {
    const recs = records(1200);
    const path = join(t.dir, 'events.ndjson');
    const ff = await flatFileWith(path, recs.slice(0, 800));
    spool = spoolOf(path);
    writeFileSync(join(t.dir, 'spool.cursor'), '{"recnum":300}\n');
    const r = await rotateFlatFile({ path });
    expect(r.rotated).toBe(true);
    await ff.append(recs.slice(800));
    const counts = { appended: 0, skipped: 0, batches: 0 };
    const f = forwarder(countingSink(db, counts), join(t.dir, 'spool.cursor')).start();
    await until(() => f.status().deliveredRecnum === 1200, 'delivery up to recnum 1200');
    await f.close();
    expect(await dump(db)).toEqual(recs.slice(300));
    expect(counts.appended).toBe(900);
  });

  it('never passes on a record of an append still writing: an undone append leaves nothing behind', async () => {
    const recs = records(50);
    const path = join(t.dir, 'events.ndjson');
    await flatFileWith(path, recs);
    spool = spoolOf(path);
    let committedReads = 0;
    const watched: Spool = { ...spool, readCommitted: (...a) => (committedReads++, spool.readCommitted(...a)) };
    const f = new Forwarder({ name: 'db', target: 'dest.sqlite', sink: storeSink(async () => db), spool: watched, cursor: cursorFile(join(t.dir, 'db.cursor'), 'x'), log: (l) => log.push(l), backoff: FAST }).start();
    await until(async () => (await db.lastRecnum()) === 50, 'the first 50');
    // An append holds the writers' lock and has written its line, not yet fsynced...
    const lock = await new FileLock(path, { timeoutMs: 10_000 }).acquire();
    const size = statSync(path).size;
    appendFileSync(path, `${JSON.stringify({ recnum: 51, uniqueid: 'phantom', etype: 'A', time: 1767225600, submituser: 'ghost' })}\n`);
    const before = committedReads;
    f.wake(); // (another process's append: no recnum known to be acknowledged)
    // (A forwarder that passed it on would put it into the database now.)
    await until(async () => committedReads > before || (await db.lastRecnum()) === 51, 'the forwarder to wait for the writers\' lock');
    // ...and fails: the file is cut back, the lock released.
    truncateSync(path, size);
    await lock.release();
    // The append sent again holds another record under recnum 51.
    const real = { ...recs[0]!, recnum: 51, uniqueid: 'real' };
    const ff = await flatFileWith(path, []);
    const res = await ff.append([real]);
    f.wake(res.last!);
    await until(async () => (await db.lastRecnum()) === 51, 'recnum 51 in the database');
    await f.close();
    const got = await dump(db);
    expect(got.at(-1)).toEqual(real);
    expect(got.some((r) => r.uniqueid === 'phantom')).toBe(false);
  });
});
