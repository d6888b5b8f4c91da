// Edge values a hostile or careless client can send, and files other tools write:
// - numbers past 2^53 - 1 (paging, byte positions) and Unix seconds past the range of a date are
//   refused with their own codes (1117, 1118; I/O-log start: 1401) instead of being rounded;
// - a UTF-8 byte order mark at the start of a flat file or of a file to import is skipped: the
//   first record is read, appends continue its recnums, a delete keeps the mark.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FlatFileStore } from '../../src/eventlog/flatfile/index.js';
import { parseEventDelete, parseEventQuery, parseLegacyQuery } from '../../src/eventlog/query.js';
import { nonNegativeInt } from '../../src/iolog/params.js';
import { codeOfCall } from '../helpers/errors.js';
import { collect, filter, query, tempDir } from '../eventlog/flatfile/helpers.js';
import { contents, fixture, importToMemory } from '../eventlog/import/helpers.js';

const tmp = tempDir('evio-sec-edge-');
afterAll(() => tmp.cleanup());

const TOO_BIG = '9007199254740993'; // 2^53 + 1: reads as 2^53 in a double
const MAX = '9007199254740991'; // 2^53 - 1

describe('numbers past 2^53 - 1 are refused, not rounded', () => {
  it('event query paging (offset, start, end, limit) on flat files and databases: 1117', () => {
    for (const key of ['offset', 'start', 'end', 'limit']) {
      expect({ key, ff: codeOfCall(() => parseEventQuery({ format: 'ff', file: 'x', [key]: TOO_BIG })) }).toEqual({ key, ff: 1117 });
      expect({ key, db: codeOfCall(() => parseEventQuery({ format: 'db', [key]: TOO_BIG })) }).toEqual({ key, db: 1117 });
      expect({ key, huge: codeOfCall(() => parseEventQuery({ format: 'db', [key]: '1'.repeat(400) })) }).toEqual({ key, huge: 1117 });
      expect({ key, max: codeOfCall(() => parseEventQuery({ format: 'ff', file: 'x', [key]: MAX })) }).toEqual({ key, max: 'ok' });
    }
    expect(codeOfCall(() => parseEventDelete({ format: 'ff', file: 'x', end: TOO_BIG }))).toBe(1117);
    expect(codeOfCall(() => parseLegacyQuery({ file: 'x', offset: TOO_BIG }))).toBe(1117);
    // Not a number at all keeps its own code.
    expect(codeOfCall(() => parseEventQuery({ format: 'db', limit: '1e3' }))).toBe(1106);
  });

  it('times given as Unix seconds past the range of a date: 1118', () => {
    for (const key of ['from', 'to', 'exittime_from', 'exittime_to']) {
      expect({ key, code: codeOfCall(() => parseEventQuery({ format: 'db', [key]: '99999999999999999999' })) }).toEqual({ key, code: 1118 });
      expect({ key, code: codeOfCall(() => parseEventQuery({ format: 'db', [key]: '8640000000001' })) }).toEqual({ key, code: 1118 });
    }
    const { query: q } = parseEventQuery({ format: 'db', from: '8640000000000', to: '8640000000000.0' });
    expect([q.from, q.to]).toEqual([8_640_000_000_000, 8_640_000_000_000]);
  });

  it('I/O-log start past 2^53 - 1: 1401; len above its maximum still reads as the maximum', () => {
    expect(codeOfCall(() => nonNegativeInt({ start: TOO_BIG }, 'start', 0))).toBe(1401);
    expect(nonNegativeInt({ start: MAX }, 'start', 0)).toBe(Number.MAX_SAFE_INTEGER);
    expect(nonNegativeInt({ len: '99999999999999999999999999' }, 'len', 65536, 1 << 20)).toBe(1 << 20);
  });
});

const BOM = '\ufeff';
const line = (recnum: number | null, uid: string, etype = 'A') =>
  JSON.stringify({ ...(recnum === null ? {} : { recnum }), uniqueid: uid, etype, time: 1_700_000_000 + (recnum ?? 0), submituser: 'alice', submithost: 'h', runuser: 'root', runhost: 'h', runcommand: '/bin/true' }) + '\n';

describe('a UTF-8 byte order mark at the start of a flat file', () => {
  it('queries read the first record (with and without a recnum), not a malformed line', async () => {
    for (const first of [line(1, 'a'), line(null, 'a')]) {
      const path = join(tmp.dir, `q-${first.length}.ndjson`);
      writeFileSync(path, BOM + first + line(2, 'b'));
      const store = new FlatFileStore({ path, readSize: 5 });
      const rows = await collect(store.query(query({ dump: true })));
      expect(rows.map((r) => [r.rec.recnum, r.rec.uniqueid])).toEqual([[1, 'a'], [2, 'b']]);
      expect(store.stats.malformed).toBe(0);
      // The first row's offset resumes after it.
      const rest = await collect(store.query(query({ dump: true, byteOffset: rows[0]!.offset! })));
      expect(rest.map((r) => r.rec.uniqueid)).toEqual(['b']);
    }
  });

  it('an append continues the recnums of a one-line file that starts with the mark', async () => {
    const path = join(tmp.dir, 'append.ndjson');
    writeFileSync(path, BOM + line(7, 'a'));
    const store = new FlatFileStore({ path });
    expect(await store.lastRecnum()).toBe(7);
    expect(await store.append([{ uniqueid: 'b', etype: 'A', time: 1 }])).toMatchObject({ first: 8, last: 8, count: 1 });
    const rows = await collect(store.query(query({ dump: true })));
    expect(rows.map((r) => r.rec.recnum)).toEqual([7, 8]);
    expect(store.stats.malformed).toBe(0);
  });

  it('an append to a file holding only the mark adds no empty line', async () => {
    const path = join(tmp.dir, 'only-bom.ndjson');
    writeFileSync(path, BOM);
    const store = new FlatFileStore({ path });
    expect(await store.append([{ uniqueid: 'a', etype: 'A', time: 1 }])).toMatchObject({ first: 1, count: 1 });
    const rows = await collect(store.query(query({ dump: true })));
    expect(rows.map((r) => r.rec.uniqueid)).toEqual(['a']);
    expect(store.stats.malformed).toBe(0);
    expect(readFileSync(path, 'utf8').split('\n').length).toBe(2);
  });

  it('a delete matches the first record and keeps the mark in front of the rewritten file', async () => {
    const path = join(tmp.dir, 'delete.ndjson');
    writeFileSync(path, BOM + line(1, 'a') + line(2, 'b') + line(3, 'c'));
    const store = new FlatFileStore({ path, readSize: 4 });
    expect(await store.delete(filter({ dump: true, recnumMax: 1 }))).toEqual({ deleted: 1 });
    expect(readFileSync(path, 'utf8')).toBe(BOM + line(2, 'b') + line(3, 'c'));
    expect(await store.delete(filter({ dump: true, recnumMin: 3 }))).toEqual({ deleted: 1 });
    expect(readFileSync(path, 'utf8')).toBe(BOM + line(2, 'b'));
  });

  it('imports read the first event of a sudo JSON log and of a sudo text log that start with it', async () => {
    for (const [format, name] of [['sudo-json', 'sudo-json3.log'], ['sudo-text', 'sudo-text4.log']] as const) {
      const plain = await importToMemory(format, fixture(name));
      const withBom = join(tmp.dir, `bom-${name}`);
      writeFileSync(withBom, Buffer.concat([Buffer.from(BOM), readFileSync(fixture(name))]));
      const marked = await importToMemory(format, withBom);
      expect({ format, n: marked.records.length }).toEqual({ format, n: plain.records.length });
      expect(contents(marked.records)).toEqual(contents(plain.records));
    }
  });
});
