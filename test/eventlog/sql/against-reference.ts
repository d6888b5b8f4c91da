// The SQL stores against the reference (MemoryStore) on random logs: queries (every filter,
// order field and direction, paging, dump on and off, exit filters), deletes, appends with
// repeats and assigned recnums, and out-of-order copies. Seeded and bounded, so a failure
// replays; small batch sizes make every append cross transaction and INSERT boundaries.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../src/eventlog/memory-store.js';
import type { EventQuery, EventRow, EventStore, NewEvent, StoredEvent } from '../../../src/eventlog/types.js';
import { DELETE_ALL, DUMP_ALL, MERGED_ALL, describeQuery, filterArb, logArb, queryArb } from './model.js';
import type { TestStoreFactory } from './stores.js';

interface Comparable {
  recnum: number;
  exitstatus: string | null;
  exittime: number | null;
  rec: StoredEvent;
}

async function rows(store: EventStore, q: EventQuery): Promise<Comparable[]> {
  const out: Comparable[] = [];
  for await (const r of store.query(q) as AsyncIterable<EventRow>) out.push({ recnum: r.rec.recnum, exitstatus: r.exitstatus, exittime: r.exittime, rec: r.rec });
  return out;
}

async function sameAnswer(store: EventStore, ref: MemoryStore, q: EventQuery): Promise<void> {
  const query = describeQuery(q);
  expect({ query, rows: await rows(store, q) }).toEqual({ query, rows: await rows(ref, q) });
}

async function sameContents(store: EventStore, ref: MemoryStore): Promise<void> {
  await sameAnswer(store, ref, DUMP_ALL);
  await sameAnswer(store, ref, MERGED_ALL);
  expect(await store.lastRecnum()).toBe(await ref.lastRecnum());
}

/** Cuts a log into consecutive pieces at the given fractions. */
function pieces<T>(items: T[], cuts: number[]): T[][] {
  const at = [...new Set(cuts.map((c) => Math.floor(c * items.length)))].sort((a, b) => a - b);
  const out: T[][] = [];
  let prev = 0;
  for (const c of [...at, items.length]) {
    if (c > prev) out.push(items.slice(prev, c));
    prev = Math.max(prev, c);
  }
  return out;
}

export interface ReferenceSuiteOptions {
  numRuns: number;
  seed: number;
}

/** Registers the comparison tests for one store factory (skipped while it is unavailable). */
export function describeAgainstReference(label: string, get: () => TestStoreFactory | undefined, o: ReferenceSuiteOptions): void {
  describe(`${label} answers as the reference store`, () => {
    // One store per test, emptied between runs (which exercises delete-all as well).
    const withStore = (name: string, body: (store: EventStore) => Promise<void>, timeout = 240_000) =>
      it(name, async (ctx) => {
        const f = get();
        if (!f || f.unavailable) return ctx.skip();
        const store = await f.make({ batchSize: 7, insertRows: 3 });
        try {
          await body(store);
        } finally {
          await store.close();
        }
      }, timeout);

    const reset = async (store: EventStore) => {
      await store.delete(DELETE_ALL);
      expect(await store.lastRecnum()).toBe(0);
    };

    withStore('random logs and random queries', async (store) => {
      await fc.assert(
        fc.asyncProperty(logArb, fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 2 }), fc.array(queryArb, { minLength: 1, maxLength: 8 }), async (log, cuts, queries) => {
          await reset(store);
          const ref = new MemoryStore();
          await ref.append(log);
          for (const piece of pieces(log, cuts)) await store.append(piece);
          for (const q of queries) await sameAnswer(store, ref, q);
          await sameContents(store, ref);
        }),
        { numRuns: o.numRuns, seed: o.seed, endOnFailure: true },
      );
    });

    withStore('bulk loads (indexes built after the rows of an empty store) end as plain appends do', async (store) => {
      await fc.assert(
        fc.asyncProperty(logArb, fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 3 }), fc.array(queryArb, { maxLength: 3 }), async (log, cuts, queries) => {
          await reset(store);
          const ref = new MemoryStore();
          await ref.append(log);
          const load = async () => {
            for (const piece of pieces(log, cuts)) await store.append(piece);
          };
          await (store.bulkLoad ? store.bulkLoad(load) : load());
          for (const q of queries) await sameAnswer(store, ref, q);
          await sameContents(store, ref);
          // A second load into the store that now has records changes nothing.
          await store.bulkLoad?.(async (l) => {
            if (log.length > 0) expect(l.emptyAtStart).toBe(false);
            await store.append(log);
          });
          await sameContents(store, ref);
        }),
        { numRuns: Math.ceil(o.numRuns * 0.5), seed: o.seed + 5, endOnFailure: true },
      );
    });

    withStore('random deletes (dump on and off) leave what the reference leaves', async (store) => {
      await fc.assert(
        fc.asyncProperty(logArb, fc.array(filterArb, { minLength: 1, maxLength: 2 }), async (log, filters) => {
          await reset(store);
          const ref = new MemoryStore();
          await ref.append(log);
          await store.append(log);
          for (const f of filters) {
            const [mine, theirs] = [await store.delete(f), await ref.delete(f)];
            expect({ filter: describeQuery(f), deleted: mine.deleted }).toEqual({ filter: describeQuery(f), deleted: theirs.deleted });
            await sameContents(store, ref);
          }
          // Appends after a delete go on from the last recnum left, as the reference does.
          const more: NewEvent[] = [{ uniqueid: 'u1', etype: 'F', time: 1, exitstatus: 'late finish' }, { uniqueid: 'u9', etype: 'A', time: 2 }];
          expect(await store.append(more)).toEqual(await ref.append(more));
          await sameContents(store, ref);
        }),
        { numRuns: Math.ceil(o.numRuns * 0.75), seed: o.seed + 1, endOnFailure: true },
      );
    });

    withStore('appends: repeated copies are skipped, missing recnums are assigned', async (store) => {
      await fc.assert(
        fc.asyncProperty(logArb, fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 3 }), fc.array(fc.nat(), { maxLength: 3 }), fc.boolean(), async (log, cuts, repeats, assign) => {
          await reset(store);
          const ref = new MemoryStore();
          const input: NewEvent[] = assign ? log.map(({ recnum: _r, ...rest }) => rest) : log;
          const parts = pieces(input, cuts);
          const calls: NewEvent[][] = [];
          parts.forEach((p, i) => {
            calls.push(p);
            // Re-send an earlier piece (a copy run again): every record is skipped.
            if (!assign && repeats[i] !== undefined) calls.push(parts[repeats[i]! % (i + 1)]!);
          });
          for (const c of calls) expect(await store.append(c)).toEqual(await ref.append(c));
          await sameContents(store, ref);
        }),
        { numRuns: Math.ceil(o.numRuns * 0.75), seed: o.seed + 2, endOnFailure: true },
      );
    });

    withStore('out-of-order copies end as if the records had arrived in recnum order', async (store) => {
      await fc.assert(
        fc.asyncProperty(
          logArb.chain((log) => fc.tuple(fc.constant(log), fc.shuffledSubarray(log, { minLength: log.length, maxLength: log.length }))),
          fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 3 }),
          fc.array(queryArb, { maxLength: 3 }),
          async ([log, shuffled], cuts, queries) => {
            await reset(store);
            const ref = new MemoryStore();
            await ref.append(log);
            let skipped = 0;
            for (const piece of pieces(shuffled, cuts)) skipped += (await store.append(piece)).skipped;
            expect(skipped).toBe(0);
            await sameContents(store, ref);
            for (const q of queries) await sameAnswer(store, ref, q);
          },
        ),
        { numRuns: Math.ceil(o.numRuns * 0.5), seed: o.seed + 3, endOnFailure: true },
      );
    });
  });
}
