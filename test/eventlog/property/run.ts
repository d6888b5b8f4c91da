// Random logs and random queries must give identical answers from an adapter and from the naive
// reference (MemoryStore): same recnums in the same order, same merged exit status and time.
// Deletes must leave the same records behind.
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { MemoryStore } from '../../../src/eventlog/memory-store.js';
import { parseEventDelete, parseEventQuery } from '../../../src/eventlog/query.js';
import type { EventRow, EventStore, StoredEvent } from '../../../src/eventlog/types.js';
import type { AdapterUnderTest } from '../conformance/run.js';

const USERS = ['alice', 'bob', 'Bob', 'dåvid', 'e_v%e', 'x[1]'];
const HOSTS = ['web1', 'web2', 'db1', 'h*st'];
const CMDS = ['/bin/ls', '/usr/bin/id', '/bin/bash', '/opt/a b/c'];
const STATUSES = ['Command finished with exit status 0', 'Command finished with exit status 1', 'Command killed by signal 9'];

const recordArb = fc.record({
  uid: fc.integer({ min: 1, max: 12 }),
  etype: fc.constantFrom('A', 'A', 'K', 'R', 'F', 'F'),
  dt: fc.integer({ min: 0, max: 5000 }),
  user: fc.constantFrom(...USERS),
  host: fc.constantFrom(...HOSTS),
  runuser: fc.constantFrom('root', 'postgres', 'nobody'),
  cmd: fc.constantFrom(...CMDS),
  status: fc.constantFrom(...STATUSES),
  gap: fc.integer({ min: 1, max: 3 }),
});

export const logArb = fc.array(recordArb, { minLength: 0, maxLength: 60 }).map((items) => {
  let t = 1767225600;
  let recnum = 0;
  return items.map((x): StoredEvent => {
    t += x.dt;
    recnum += x.gap; // recnums need not be dense
    const rec: StoredEvent = {
      recnum, uniqueid: `u${x.uid}`, etype: x.etype as StoredEvent['etype'], time: t + (x.dt % 7) / 8,
      submituser: x.user, submithost: x.host, runuser: x.runuser, runhost: x.host, runcommand: x.cmd, runargv: [x.cmd],
    };
    if (x.etype === 'F' || x.etype === 'R') rec.exitstatus = x.etype === 'R' ? 'Request rejected' : x.status;
    return rec;
  });
});

const wild = (vals: string[]) => fc.oneof(fc.constantFrom(...vals), fc.constantFrom('*', 'a*', '*o*', '?ob', '[bB]*', '[!a]*', '*1', 'x\\[1]', 'e_v%e', 'h\\*st', '*status 0', 'Command*', '*[19]'));

export const queryArb = (format: 'ff' | 'db' | 'odbc') =>
  fc.record(
    {
      etype: fc.constantFrom('A', 'K', 'R', 'A,K', 'A,R,K'),
      submituser: wild(USERS),
      submithost: wild(HOSTS),
      runuser: fc.constantFrom('root', 'r*', 'nobody'),
      runcommand: wild(CMDS),
      uniqueid: fc.constantFrom('u1', 'u1*', 'u?'),
      exitstatus: wild(STATUSES),
      from: fc.integer({ min: 1767225600, max: 1767225600 + 150000 }).map(String),
      to: fc.integer({ min: 1767225600 + 100000, max: 1767225600 + 400000 }).map(String),
      exittime_from: fc.integer({ min: 1767225600, max: 1767225600 + 200000 }).map(String),
      end: fc.integer({ min: 1, max: 150 }).map(String),
      limit: fc.integer({ min: 0, max: 30 }).map(String),
      dump: fc.constantFrom('0', '1'),
      skip: fc.integer({ min: 0, max: 10 }).map(String),
      start: fc.integer({ min: 1, max: 60 }).map(String),
      order: format === 'ff' ? fc.constant('') : fc.constantFrom('recnum', 'epoch', 'submituser', 'exitstatus', 'exittime', 'runcommand', 'etype', 'uniqueid'),
      orderdirection: format === 'ff' ? fc.constant('') : fc.constantFrom('asc', 'desc'),
    },
    { requiredKeys: [] },
  ).map((q) => {
    const p: Record<string, string> = {};
    for (const [k, v] of Object.entries(q)) if (v !== '' && v !== undefined) p[k] = v;
    if (p.dump === '1' && p.etype) p.etype += ',F';
    // Paging parameters differ by format (ff: start = skip; db: start = lowest recnum, offset =
    // skip); the reference answers the same normalised query either way.
    if (format === 'ff') delete p.start;
    if (p.skip !== undefined) {
      if (format === 'ff') p.start = p.skip;
      else p.offset = p.skip;
      delete p.skip;
    }
    return p;
  });

async function rows(store: EventStore, q: ReturnType<typeof parseEventQuery>['query']): Promise<Array<[number, string | null, number | null]>> {
  const out: Array<[number, string | null, number | null]> = [];
  for await (const r of store.query(q) as AsyncIterable<EventRow>) out.push([r.rec.recnum, r.exitstatus, r.exittime]);
  return out;
}

export function runPropertyTest(name: string, adapter: () => AdapterUnderTest | null, numRuns = 40): void {
  it(`${name}: random logs and queries answer as the reference does`, async (ctx) => {
    const a = adapter();
    if (!a) return ctx.skip();
    await fc.assert(
      fc.asyncProperty(logArb, fc.array(queryArb(a.format), { minLength: 1, maxLength: 12 }), async (log, queries) => {
        const ref = new MemoryStore();
        await ref.append(log);
        const store = await a.make(log);
        try {
          for (const params of queries) {
            const full = { format: a.format, ...(a.params ?? {}), ...params };
            let parsed;
            try {
              parsed = parseEventQuery(full);
            } catch {
              continue; // invalid combinations (from > to, ...) are the conformance table's business
            }
            expect({ params, rows: await rows(store, parsed.query) }).toEqual({ params, rows: await rows(ref, parsed.query) });
          }
        } finally {
          await store.close();
        }
      }),
      { numRuns, seed: 20261122, endOnFailure: true },
    );
  });

  it(`${name}: random deletes leave what the reference leaves`, async (ctx) => {
    const a = adapter();
    if (!a || a.queriesOnly) return ctx.skip();
    await fc.assert(
      fc.asyncProperty(logArb, queryArb(a.format), async (log, params) => {
        delete params.limit;
        delete params.offset;
        delete params.order;
        delete params.orderdirection;
        if (a.format === 'ff') delete params.start;
        let filter;
        try {
          filter = parseEventDelete({ format: a.format, ...(a.params ?? {}), ...params }).filter;
        } catch {
          return;
        }
        const ref = new MemoryStore();
        await ref.append(log);
        const store = await a.make(log);
        try {
          const [x, y] = [await store.delete(filter), await ref.delete(filter)];
          expect(x.deleted).toBe(y.deleted);
          const all = parseEventQuery({ format: a.format, ...(a.params ?? {}), dump: '1' }).query;
          expect(await rows(store, all)).toEqual(await rows(ref, all));
        } finally {
          await store.close();
        }
      }),
      { numRuns: Math.ceil(numRuns / 2), seed: 4242, endOnFailure: true },
    );
  });
}
