import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FlatFileStore } from '../../../src/eventlog/flatfile/index.js';
import { recordLine } from '../../../src/eventlog/generate.js';
import { MemoryStore } from '../../../src/eventlog/memory-store.js';
import { parseEventDelete, parseEventQuery } from '../../../src/eventlog/query.js';
import type { EventQuery, EventStore, StoredEvent } from '../../../src/eventlog/types.js';
import { FIXTURE } from './fixture.js';
import { runPropertyTest } from '../property/run.js';
import { runConformance } from './run.js';

let n = 0;
const flatfile = () => ({
  format: 'ff' as const,
  params: { file: 'conformance.ndjson' },
  async make(records: import('../../../src/eventlog/types.js').StoredEvent[]) {
    const dir = mkdtempSync(join(tmpdir(), 'evio-ff-conf-'));
    // A small read size makes every scan cross many chunk boundaries.
    const s = new FlatFileStore({ path: join(dir, `log-${n++}.ndjson`), readSize: 97 });
    await s.append(records);
    return s;
  },
});

runConformance('flat file', flatfile);
runPropertyTest('flat file', flatfile, 40);

// Logs another program wrote: the same records in another key order (recnum last, or no recnum:
// the reader numbers lines), each read with the skip index on (built over small blocks, so that
// the planner and the index scan see many) and off. The same table must hold for all of them.
for (const order of ['recnum-last', 'no-recnum'] as const) {
  // The index as the planner uses it (index-plan.ts: on files this small it mostly scans), the
  // index whenever valid, and no index.
  for (const indexed of ['auto', 'index', false] as const) {
    const foreign = () => ({
      format: 'ff' as const,
      params: { file: 'conformance.ndjson' },
      async make(records: StoredEvent[]) {
        const dir = mkdtempSync(join(tmpdir(), 'evio-ff-foreign-'));
        const path = join(dir, `log-${n++}.ndjson`);
        // no-recnum numbers lines: the records must be numbered 1, 2, 3 ... to be the same.
        writeFileSync(path, records.map((r, i) => recordLine(order === 'no-recnum' ? { ...r, recnum: i + 1 } : r, order) + '\n').join(''));
        return new FlatFileStore({ path, readSize: 97, index: { enabled: indexed !== false, cacheDir: null, budgetMs: 60_000, blockBytes: 256, ...(indexed === 'index' ? { plan: 'index' as const } : {}) } });
      },
    });
    runConformance(`flat file, ${order}, index ${indexed === false ? 'off' : indexed === 'auto' ? 'on (planner)' : 'on (always)'}`, foreign);
  }
}

// Files evio writes have strictly increasing recnums; files of other writers need not. `end` is
// a bound on the recnum like every filter (it does not stop the scan at the first recnum above
// it), so such a file answers exactly as the reference store holding the same records in the
// same order — queries and deletes alike.
describe('flat file with recnums out of order (another writer): end= agrees with the reference', () => {
  // The fixture's lines in their order, numbered out of order (backwards at several places).
  const RENUMBER = [3, 1, 2, 9, 4, 5, 15, 6, 7, 8, 14, 10, 11, 12, 13];
  const records: StoredEvent[] = FIXTURE.map((r, i) => ({ ...r, recnum: RENUMBER[i]! }));
  const text = records.map((r) => JSON.stringify(r) + '\n').join('');
  /** The reference store holding `records` as they are (its append would refuse the order). */
  const reference = () => {
    const m = new MemoryStore();
    (m as unknown as { records: StoredEvent[] }).records = records.map((r) => ({ ...r }));
    return m;
  };
  const file = () => {
    const path = join(mkdtempSync(join(tmpdir(), 'evio-ff-order-')), 'foreign.ndjson');
    writeFileSync(path, text);
    return new FlatFileStore({ path, readSize: 61 });
  };
  const rowsOf = async (s: EventStore, q: EventQuery) => {
    const out: Array<[number, string | null]> = [];
    for await (const r of s.query(q)) out.push([r.rec.recnum, r.exitstatus]);
    return out;
  };

  it('queries with end=, with and without dump, paging and filters', async () => {
    const ff = file();
    const mem = reference();
    for (let end = 0; end <= 16; end++) {
      const extras: Array<Record<string, string>> = [{}, { dump: '1' }, { limit: '2' }, { start: '1', limit: '3' }, { etype: 'A' }, { submituser: 'alice' }, { exitstatus: '*status 0' }];
      for (const extra of extras) {
        const params: Record<string, string> = { end: String(end), ...extra };
        const ffq = parseEventQuery({ format: 'ff', file: 'x', ...params }).query;
        // The same rows on the reference: flat-file `start` (a skip) is a database `offset`.
        const { start, ...rest } = params;
        const dbq = parseEventQuery({ format: 'db', ...rest, ...(start ? { offset: start } : {}) }).query;
        expect({ params, rows: await rowsOf(ff, ffq) }).toEqual({ params, rows: await rowsOf(mem, dbq) });
      }
    }
    expect(ff.stats.malformed).toBe(0);
  });

  it('a query with end= below some later lines still finds them (the scan does not stop at a greater recnum)', async () => {
    const ff = file();
    const q = parseEventQuery({ format: 'ff', file: 'x', end: '5', dump: '1' }).query;
    // Lines 2 and 3 (recnums 1, 2) follow recnum 3; recnums 4 and 5 follow recnum 9.
    expect((await rowsOf(ff, q)).map(([n]) => n)).toEqual([3, 1, 2, 4, 5]);
  });

  it('deletes with end= remove what the reference removes', async () => {
    for (const params of [{ end: '5' }, { end: '5', dump: '1' }, { end: '8', exitstatus: '*status 0' }, { end: '12', etype: 'R' }]) {
      const ff = file();
      const mem = reference();
      const f = parseEventDelete({ format: 'ff', file: 'x', ...params }).filter;
      expect({ params, res: await ff.delete(f) }).toEqual({ params, res: await mem.delete(f) });
      const all = parseEventQuery({ format: 'ff', file: 'x', dump: '1' }).query;
      expect({ params, left: await rowsOf(ff, all) }).toEqual({ params, left: await rowsOf(mem, all) });
    }
  });
});
