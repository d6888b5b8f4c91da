// The flat-file store answers exactly as the naive in-memory reference: same rows, same order,
// same merged exit values, for random logs and random queries; same effect for deletes.
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { FlatFileStore } from '../../../src/eventlog/flatfile/flatfile-store.js';
import { MemoryStore } from '../../../src/eventlog/memory-store.js';
import type { NewEvent } from '../../../src/eventlog/types.js';
import { arbLog, arbQuery, collect, comparable, describeQuery, filterOf, query, tempDir } from './helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());
let n = 0;

async function pair(log: NewEvent[], readSize?: number) {
  const ff = new FlatFileStore({ path: join(tmp.dir, `log-${n++}.ndjson`), ...(readSize ? { readSize } : {}) });
  const mem = new MemoryStore();
  // Two appends: the second one exercises the tail read.
  const cut = Math.floor(log.length / 2);
  for (const part of [log.slice(0, cut), log.slice(cut)]) {
    const a = await ff.append(part);
    const b = await mem.append(part);
    expect(a).toEqual(b);
  }
  return { ff, mem };
}

describe('flat file = memory reference', () => {
  it('random logs, random queries (seeded)', async () => {
    await fc.assert(
      fc.asyncProperty(arbLog, fc.array(arbQuery, { minLength: 1, maxLength: 6 }), fc.constantFrom(undefined, 7, 64), async (log, queries, readSize) => {
        const { ff, mem } = await pair(log, readSize);
        for (const q of queries) {
          const want = comparable(await collect(mem.query(q)));
          const got = await collect(ff.query(q));
          expect(comparable(got), describeQuery(q)).toEqual(want);
          // Resuming at any returned offset gives the rows after that record.
          if (got.length > 0 && q.skip === 0) {
            const i = Math.floor(got.length / 2);
            const rest = await collect(ff.query({ ...q, byteOffset: got[i]!.offset! }));
            const wantRest = comparable(await collect(mem.query({ ...q, recnumMin: Math.max(q.recnumMin ?? 0, got[i]!.rec.recnum + 1) })));
            expect(comparable(rest), `resume ${describeQuery(q)}`).toEqual(wantRest);
          }
        }
        expect(await ff.lastRecnum()).toBe(await mem.lastRecnum());
        expect(ff.stats.malformed).toBe(0);
      }),
      { seed: 20240601, numRuns: 150 },
    );
  }, 180_000);

  it('random deletes have the same effect (seeded)', async () => {
    await fc.assert(
      fc.asyncProperty(arbLog, arbQuery, fc.constantFrom(undefined, 13), async (log, q, readSize) => {
        const { ff, mem } = await pair(log, readSize);
        const f = filterOf(q);
        const a = await ff.delete(f);
        const b = await mem.delete(f);
        expect(a, describeQuery(q)).toEqual(b);
        const all = query({ dump: true });
        expect(comparable(await collect(ff.query(all))), describeQuery(q)).toEqual(comparable(await collect(mem.query(all))));
        expect(await ff.lastRecnum()).toBe(await mem.lastRecnum());
        // Appends after a delete continue the recnums.
        const more = [{ uniqueid: 'z', etype: 'A' as const, time: 5 }];
        expect(await ff.append(more)).toEqual(await mem.append(more));
      }),
      { seed: 777, numRuns: 150 },
    );
  }, 180_000);
});
