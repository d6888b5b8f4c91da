// Runs the conformance table against one adapter. The adapter factory gets the fixture records
// and returns a fresh store holding them, plus the REST `format` its parameters use.
import { describe, expect, it } from 'vitest';
import { isEvioError } from '../../../src/errors.js';
import { parseEventDelete, parseEventQuery } from '../../../src/eventlog/query.js';
import { dumpQuery } from '../../../src/eventlog/query.js';
import { shapeEvent } from '../../../src/eventlog/shape.js';
import type { EventRow, EventStore, StoredEvent } from '../../../src/eventlog/types.js';
import { FIXTURE } from './fixture.js';
import { CONFORMANCE_NOW, DELETE_CASES, QUERY_CASES } from './table.js';

export interface AdapterUnderTest {
  format: 'ff' | 'db' | 'odbc';
  make(records: StoredEvent[]): Promise<EventStore>;
  /** Extra REST parameters naming the store (file=, dsn=); parse needs them for ff/odbc. */
  params?: Record<string, string>;
  /** Only queries apply (a log family: deletes act on its live file alone). */
  queriesOnly?: boolean;
}

async function collect(store: EventStore, params: Record<string, string | string[]>, fmt: AdapterUnderTest, summary = false): Promise<EventRow[]> {
  const { query } = parseEventQuery({ format: fmt.format, ...(fmt.params ?? {}), ...params }, 'UTC', CONFORMANCE_NOW);
  // The contract's batched path (every layer above reads it); `query` is eachRow over it.
  const rows: EventRow[] = [];
  for await (const batch of store.queryBatches(query, { summary })) {
    expect(batch.length).toBeGreaterThan(0);
    rows.push(...batch);
  }
  return rows;
}

/** The non-verbose answer, as the service renders it. */
const summaryShape = (rows: EventRow[]) => rows.map((r) => shapeEvent(r, false, 'Europe/Paris'));

async function codeOf(p: Promise<unknown>): Promise<number | 'ok'> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    if (isEvioError(err)) return err.code;
    throw err;
  }
}

export function runConformance(name: string, adapter: () => AdapterUnderTest | null): void {
  const kind = (a: AdapterUnderTest) => (a.format === 'ff' ? 'ff' : 'db');
  describe(`conformance: ${name}`, () => {
    describe('queries', () => {
      let store: EventStore | null = null;
      const get = async (a: AdapterUnderTest) => (store ??= await a.make(FIXTURE));
      for (const c of QUERY_CASES) {
        it(c.name, async (ctx) => {
          const a = adapter();
          if (!a) return ctx.skip();
          if (c.on && c.on !== kind(a)) return ctx.skip();
          const s = await get(a);
          const params = { ...c.params };
          if (c.offsetOf !== undefined) {
            const first = await collect(s, { dump: '1' }, a);
            params.offset = String(first.find((r) => r.rec.recnum === c.offsetOf)!.offset);
          }
          if ('error' in c.expect) {
            expect(await codeOf(collect(s, params, a))).toBe(c.expect.error);
            return;
          }
          const rows = await collect(s, params, a);
          expect(rows.map((r) => r.rec.recnum)).toEqual(c.expect);
          for (const [rn, st] of Object.entries(c.exitstatus ?? {})) {
            expect({ recnum: Number(rn), exitstatus: rows.find((r) => r.rec.recnum === Number(rn))?.exitstatus }).toEqual({ recnum: Number(rn), exitstatus: st });
          }
          // The non-verbose answer is the same when the store may read it from its columns.
          expect(summaryShape(await collect(s, params, a, true))).toEqual(summaryShape(rows));
        });
      }

      it('returns records in the documented shape', async (ctx) => {
        const a = adapter();
        if (!a) return ctx.skip();
        const s = await get(a);
        const rows = await collect(s, { uniqueid: 'u6' }, a);
        const shaped = shapeEvent(rows[0]!, false, 'UTC');
        delete shaped.offset;
        expect(shaped).toEqual({
          recnum: 6, uniqueid: 'u6', etype: 'K', epoch: '2026-01-02 00:01:00', submituser: 'alice', submithost: 'db1',
          runuser: 'root', runhost: 'db1', runcommand: '/usr/bin/vim', exitstatus: 'Command killed by signal 9',
        });
        const verbose = shapeEvent((await collect(s, { uniqueid: 'u8', verbose: '1' }, a))[0]!, true, 'UTC');
        expect(verbose).toMatchObject({ recnum: 8, note: { nested: ['kept', 1] }, runargv: ['printf'], epoch: '2026-01-02 00:02:00', exitstatus: null });
        const withExit = shapeEvent((await collect(s, { uniqueid: 'u1', verbose: '1' }, a))[0]!, true, 'Europe/Paris');
        expect(withExit).toMatchObject({ epoch: '2026-01-01 01:00:00', exittime: '2026-01-01 01:03:00', cwd: '/home/alice', ttyname: '/dev/pts/0' });
      });

      it('keeps stored fields exactly (round trip of every record)', async (ctx) => {
        const a = adapter();
        if (!a) return ctx.skip();
        const s = await get(a);
        const rows: StoredEvent[] = [];
        for await (const r of s.query(dumpQuery())) rows.push(r.rec);
        expect(rows).toEqual(FIXTURE);
      });
    });

    describe('deletes', () => {
      for (const c of DELETE_CASES) {
        it(c.name, async (ctx) => {
          const a = adapter();
          if (!a || a.queriesOnly) return ctx.skip();
          const s = await a.make(FIXTURE);
          const run = async () => s.delete(parseEventDelete({ format: a.format, ...(a.params ?? {}), ...c.params }, 'UTC', CONFORMANCE_NOW).filter);
          if ('error' in c.remaining) {
            expect(await codeOf(run())).toBe(c.remaining.error);
            return;
          }
          const res = await run();
          if (c.deleted !== undefined) expect(res.deleted).toBe(c.deleted);
          const left = await collect(s, { dump: '1' }, a);
          expect(left.map((r) => r.rec.recnum)).toEqual(c.remaining);
          if (c.exitstatus) {
            const merged = await collect(s, {}, a);
            for (const [rn, st] of Object.entries(c.exitstatus)) {
              expect({ recnum: Number(rn), exitstatus: merged.find((r) => r.rec.recnum === Number(rn))?.exitstatus }).toEqual({ recnum: Number(rn), exitstatus: st });
            }
          }
          // Appends after a delete continue the numbering.
          const ap = await s.append([{ uniqueid: 'new', etype: 'A', time: 1767500000, submituser: 'zed' }]);
          expect(ap.first).toBeGreaterThan(left.length ? left[left.length - 1]!.rec.recnum : 0);
          await s.close();
        });
      }
    });
  });
}
