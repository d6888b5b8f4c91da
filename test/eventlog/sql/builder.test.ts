// The shared SQL builder on its own: values always travel as bound parameters, the order
// column comes from the whitelist, each DBMS family gets its paging and NULL-order syntax, and
// the recnum and schema rules are the documented ones.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isEvioError } from '../../../src/errors.js';
import { eventColumnValues, linkAppendBatch, linkedRowValues, linkedValues, planBatch, prepareEvent, recnumsToCheck } from '../../../src/eventlog/sql/append-plan.js';
import { normalizeNewEvent } from '../../../src/eventlog/record.js';
import { deleteStatements, filterPredicate } from '../../../src/eventlog/sql/delete-plan.js';
import { sqlProfile, type SqlFlavor } from '../../../src/eventlog/sql/profile.js';
import { decideSchema, SCHEMA_VERSION } from '../../../src/eventlog/sql/schema.js';
import { buildSelect } from '../../../src/eventlog/sql/select.js';
import { compileWildcard } from '../../../src/common/wildcard.js';
import type { NewEvent } from '../../../src/eventlog/types.js';
import { filterArb, MERGED_ALL, queryArb } from './model.js';

const FLAVORS: SqlFlavor[] = ['sqlite', 'pg', 'mssql', 'oracle', 'mysql', 'generic'];
const profiles = FLAVORS.flatMap((f) => (['native', 'odbc'] as const).map((driver) => sqlProfile(f, { driver })));

/** Placeholders in SQL text that has no quoted literal holding `?` or `$`. */
function placeholders(sql: string, style: 'question' | 'dollar'): number {
  if (style === 'question') return (sql.match(/\?/g) ?? []).length;
  const nums = [...sql.matchAll(/\$(\d+)/g)].map((m) => Number(m[1]));
  return nums.length ? Math.max(...nums) : 0;
}

describe('queries are parameterised for every DBMS family', () => {
  it('binds every value (no pattern, time or recnum reaches the SQL text) and counts match', () => {
    fc.assert(
      fc.property(queryArb, fc.constantFrom(...profiles), (q, p) => {
        const plan = buildSelect(q, p);
        expect(placeholders(plan.sql, p.placeholders)).toBe(plan.params.length);
        for (const w of Object.values(q.patterns).flat()) if (w!.source.length > 2) expect(plan.sql).not.toContain(w!.source);
        // Only whitelisted identifiers and fixed keywords: no quotes but the ESCAPE clause's.
        expect(plan.sql.replace(/ESCAPE '\\'/g, '').replace(/printf\('%!\.17g', /g, '')).not.toMatch(/'/);
      }),
      { numRuns: 800, seed: 99 },
    );
  });

  it('binds the delete predicates too, however often a statement repeats them', () => {
    fc.assert(
      fc.property(filterArb, fc.constantFrom(...profiles.filter((p) => p.wildcard !== 'like')), (f, p) => {
        const where = filterPredicate(f, p)!;
        for (const st of deleteStatements(p, where, f.dump)) expect(placeholders(st.sql, p.placeholders)).toBe(st.params.length);
      }),
      { numRuns: 300, seed: 98 },
    );
  });

  it('orders by the whitelisted column, NULLs smallest, ties by recnum ascending', () => {
    const pg = sqlProfile('pg', { driver: 'native' });
    expect(buildSelect({ ...MERGED_ALL, order: 'exittime', direction: 'desc' }, pg).sql).toMatch(/ORDER BY merged_exittime DESC NULLS LAST, recnum ASC LIMIT \$4 OFFSET \$5$/);
    expect(buildSelect({ ...MERGED_ALL, dump: true, order: 'exitstatus' }, pg).sql).toMatch(/ORDER BY exitstatus ASC NULLS FIRST, recnum ASC/);
    expect(buildSelect({ ...MERGED_ALL, order: 'epoch', direction: 'desc' }, pg).sql).toMatch(/ORDER BY time DESC, recnum ASC/);
    expect(buildSelect({ ...MERGED_ALL, order: 'recnum', direction: 'desc' }, pg).sql).toMatch(/ORDER BY recnum DESC LIMIT/);
    const sqlite = sqlProfile('sqlite', { driver: 'native' });
    expect(buildSelect({ ...MERGED_ALL, order: 'submituser', direction: 'desc' }, sqlite).sql).toMatch(/ORDER BY submituser DESC, recnum ASC LIMIT \? OFFSET \?$/);
    const generic = sqlProfile('generic', { driver: 'odbc' });
    const g = buildSelect({ ...MERGED_ALL, order: 'runhost' }, generic);
    expect(g.sql).toMatch(/ORDER BY CASE WHEN runhost IS NULL THEN 0 ELSE 1 END ASC, runhost ASC, recnum ASC$/);
    expect(g.memoryPaging).toEqual({ skip: 0, limit: MERGED_ALL.limit });
  });

  it("uses each family's paging syntax, and pages in memory when a filter is finished there", () => {
    const q = { ...MERGED_ALL, skip: 5, limit: 10 };
    expect(buildSelect(q, sqlProfile('mssql', { driver: 'odbc' })).sql).toMatch(/OFFSET \? ROWS FETCH NEXT \? ROWS ONLY$/);
    expect(buildSelect(q, sqlProfile('oracle', { driver: 'odbc' })).params.slice(-2)).toEqual([5, 10]);
    const withClass = { ...q, patterns: { submituser: [compileWildcard('[ab]*')] } };
    const mysql = buildSelect(withClass, sqlProfile('mysql', { driver: 'odbc' }));
    expect(mysql.residual).toEqual(['submituser']);
    expect(mysql.memoryPaging).toEqual({ skip: 5, limit: 10 });
    expect(mysql.sql).not.toMatch(/LIMIT/);
    expect(buildSelect(withClass, sqlProfile('pg', { driver: 'native' })).sql).toMatch(/submituser ~ \$\d/);
    expect(buildSelect(withClass, sqlProfile('sqlite', { driver: 'odbc' })).sql).toMatch(/submituser GLOB \?/);
    // SQL Server's LIKE would read a literal [ as a class.
    const bracket = buildSelect({ ...q, patterns: { runcommand: [compileWildcard('x\\[1]*')] } }, sqlProfile('mssql', { driver: 'odbc' }));
    expect(bracket.residual).toEqual(['runcommand']);
  });

  it('reads exit columns merged with dump=0 and as stored with dump=1; doubles exactly through the SQLite ODBC driver', () => {
    const p = sqlProfile('sqlite', { driver: 'odbc' });
    expect(buildSelect(MERGED_ALL, p).sql).toMatch(/^SELECT recnum, record, merged_exitstatus AS x_exitstatus, CASE WHEN merged_exittime IS NULL THEN NULL ELSE printf\('%!\.17g', merged_exittime\) END AS x_exittime/);
    expect(buildSelect({ ...MERGED_ALL, dump: true }, sqlProfile('pg', { driver: 'native' })).sql).toMatch(/^SELECT recnum, record, exitstatus AS x_exitstatus, exittime AS x_exittime/);
  });
});

describe('recnums on append (planBatch)', () => {
  const ev = (recnum?: number): NewEvent => ({ ...(recnum === undefined ? {} : { recnum }), uniqueid: 'u', etype: 'A', time: 1 });
  it('assigns last + 1, skips present recnums (also repeated within a batch), takes free lower ones', () => {
    const batch = [ev(), ev(12), ev(), ev(12), ev(3), ev(5), ev(4)];
    expect(recnumsToCheck(batch, 10)).toEqual([3, 5, 4]);
    const plan = planBatch(batch, 10, new Set([5]));
    expect(plan.rows.map((r) => r.recnum)).toEqual([11, 12, 13, 3, 4]);
    expect(plan.skipped).toBe(2);
    expect(plan.rows[0]).toEqual({ recnum: 11, uniqueid: 'u', etype: 'A', time: 1 });
    expect(Object.keys(plan.rows[1]!)[0]).toBe('recnum');
  });

  it('refuses text a database cannot hold, as STORE_BAD_RECORD', () => {
    for (const bad of ['a\u0000b', 'x\uDC00', '\uD800']) {
      let err: unknown;
      try {
        prepareEvent({ uniqueid: 'u', etype: 'A', time: 1, runcommand: bad }, 4);
      } catch (e) {
        err = e;
      }
      expect(isEvioError(err, 'STORE_BAD_RECORD')).toBe(true);
      expect((err as Error).message).toMatch(/^1203 record 5: runcommand /);
    }
    expect(prepareEvent({ uniqueid: '😀', etype: 'A', time: 1, runargv: ['a\u0000b'] }, 0).uniqueid).toBe('😀');
  });
});

describe('records stored without a copy (bulk loads)', () => {
  const json = (v: unknown) => JSON.stringify(v);
  it('keeps a record in canonical order as it is, and stores exactly what the copy would', () => {
    const canonical = { recnum: 7, uniqueid: 'u', etype: 'A', time: 1.5, submituser: 'x', runargv: ['a', 'b'], ['__proto__']: 1 } as unknown as NewEvent;
    Object.defineProperty(canonical, '__proto__', { value: 1, enumerable: true, writable: true, configurable: true });
    const others: unknown[] = [
      { uniqueid: 'u', recnum: 7, etype: 'A', time: 1.5 }, // recnum not first
      { recnum: 7, uniqueid: 'u', etype: 'A', time: 1.5, cwd: undefined }, // an undefined field
      { 2: 'n', recnum: 7, uniqueid: 'u', etype: 'A', time: 1.5 }, // an integer key goes first
      Object.assign(Object.create({ inherited: 1 }), { recnum: 7, uniqueid: 'u', etype: 'A', time: 1.5 }),
    ];
    const prepared = prepareEvent(canonical, 0);
    expect(prepared).toBe(canonical);
    expect(json(prepared)).toBe(json(normalizeNewEvent(canonical)));
    expect(planBatch([prepared], 6, new Set()).rows[0]).toBe(canonical);
    for (const ev of others) {
      const p = prepareEvent(ev as NewEvent, 0);
      expect(p).not.toBe(ev);
      expect(json(p)).toBe(json(normalizeNewEvent(ev as NewEvent)));
    }
    // Without a recnum: kept as it is when prepared, stored as a copy with its new recnum first.
    const fresh = { uniqueid: 'u', etype: 'F', time: 2, exitstatus: '0' } as NewEvent;
    expect(prepareEvent(fresh, 0)).toBe(fresh);
    const [stored] = planBatch([prepareEvent(fresh, 0)], 6, new Set()).rows;
    expect(json(stored)).toBe('{"recnum":7,"uniqueid":"u","etype":"F","time":2,"exitstatus":"0"}');
    expect(fresh).not.toHaveProperty('recnum');
  });

  it('still refuses what normalizeNewEvent refuses', () => {
    for (const bad of [{ recnum: 1, uniqueid: 'u', etype: 'X', time: 1 }, { recnum: 1, uniqueid: 'u', etype: 'A', time: -1 }, { recnum: 1, uniqueid: 'u', etype: 'A', time: 1, runargv: [1] }]) {
      expect(() => prepareEvent(bad as unknown as NewEvent, 0)).toThrow();
    }
  });

  it('gives the linked column values row by row (one array refilled) as the arrays would be', () => {
    const evs = [
      { recnum: 11, uniqueid: 'a', etype: 'A', time: 1 },
      { recnum: 12, uniqueid: 'b', etype: 'K', time: 2 },
      { recnum: 13, uniqueid: 'a', etype: 'F', time: 3, exitstatus: '1' },
      { recnum: 14, uniqueid: 'c', etype: 'R', time: 4, exitstatus: '2' },
    ] as NewEvent[];
    const plan = planBatch(evs.map((e, i) => prepareEvent(e, i)), 10, new Set());
    const linked = linkAppendBatch(plan.rows, 10)!;
    const arrays = linkedValues(linked);
    expect([...linkedRowValues(linked)].length).toBe(4);
    expect(Array.from(linkedRowValues(linked), (v) => [...v])).toEqual(arrays);
    expect(arrays[0]!.slice(11, 14)).toEqual([13, '1', 3]);
    expect(arrays[1]).toEqual(eventColumnValues(plan.rows[1]!));
    expect(arrays[3]![12]).toBe('2');
    expect(linked.finishes).toEqual([{ uniqueid: 'a', recnum: 13, exitstatus: '1', time: 3 }]);
    expect(linkAppendBatch(plan.rows, 11)).toBeNull();
  });
});

describe('schema decisions', () => {
  const meta = (m: Record<string, string>) => new Map(Object.entries(m));
  it('creates an empty database, accepts its own version, refuses newer, foreign and broken ones', () => {
    expect(decideSchema({ hasEvents: false, hasMeta: false, meta: null }, 'db:x')).toEqual({ action: 'create' });
    expect(decideSchema({ hasEvents: true, hasMeta: true, meta: meta({ schema: 'evio-events', version: String(SCHEMA_VERSION) }) }, 'db:x')).toEqual({ action: 'ok' });
    const refused = [
      { hasEvents: true, hasMeta: false, meta: null },
      { hasEvents: true, hasMeta: true, meta: meta({ schema: 'other', version: '1' }) },
      { hasEvents: true, hasMeta: true, meta: meta({ schema: 'evio-events', version: String(SCHEMA_VERSION + 1) }) },
      { hasEvents: true, hasMeta: true, meta: meta({ schema: 'evio-events', version: 'x' }) },
      { hasEvents: false, hasMeta: true, meta: meta({ schema: 'evio-events', version: '1' }) },
    ];
    for (const state of refused) expect(() => decideSchema(state, 'pg:central')).toThrow(/^1208 pg:central: /);
  });
});
