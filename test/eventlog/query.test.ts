import fc from 'fast-check';
import { queryFromSearch } from '../../src/app/query-params.js';
import { describe, expect, it } from 'vitest';
import { parseEventDelete, parseEventQuery, parseLegacyQuery } from '../../src/eventlog/query.js';
import { formatEpoch, parseQueryDate } from '../../src/eventlog/time.js';
import { codeOfCall as code } from '../helpers/errors.js';


describe('parseEventQuery: stores and paging', () => {
  it('defaults to the configured database, recnum order, 32768 records', () => {
    const { store, query } = parseEventQuery({});
    expect(store).toEqual({ format: 'db', file: null });
    expect(query).toMatchObject({ skip: 0, byteOffset: 0, limit: 32768, order: 'recnum', direction: 'asc', dump: false, verbose: false, etypes: null });
  });
  it('verbose lowers the default limit to 512', () => {
    expect(parseEventQuery({ verbose: '1' }).query.limit).toBe(512);
    expect(parseEventQuery({ verbose: '1', limit: '9' }).query.limit).toBe(9);
  });
  it('flat file: start skips, offset is a byte position, end bounds recnums', () => {
    const { store, query } = parseEventQuery({ format: 'flatfile', file: 'a.ndjson', start: '5', offset: '120', end: '9' });
    expect(store).toEqual({ format: 'ff', file: 'a.ndjson' });
    expect(query).toMatchObject({ skip: 5, byteOffset: 120, recnumMin: null, recnumMax: 9 });
  });
  it('database: start/end bound recnums, offset skips', () => {
    expect(parseEventQuery({ format: 'db', start: '5', end: '9', offset: '2' }).query).toMatchObject({ skip: 2, byteOffset: 0, recnumMin: 5, recnumMax: 9 });
  });
  it('odbc needs a dsn; ff needs a file; formats are checked', () => {
    expect(parseEventQuery({ format: 'odbc', dsn: 'x' }).store).toEqual({ format: 'odbc', dsn: 'x' });
    expect(code(() => parseEventQuery({ format: 'odbc' }))).toBe(1102);
    expect(code(() => parseEventQuery({ format: 'file' }))).toBe(1101);
    expect(code(() => parseEventQuery({ format: 'csv' }))).toBe(1100);
  });
  it('refuses repeated, NUL-carrying and over-long parameters', () => {
    expect(code(() => parseEventQuery({ limit: ['1', '2'] }))).toBe(1009);
    expect(code(() => parseEventQuery({ submituser: 'a\u0000b' }))).toBe(1009);
    expect(code(() => parseEventQuery({ runcommand: 'x'.repeat(5000) }))).toBe(1009);
  });
  it('joins repeated etype values; knows nothing of the signature parameters, which the doors strip', () => {
    expect(parseEventQuery({ etype: ['A', 'r'] }).query.etypes).toEqual(['A', 'R']);
    expect(() => parseEventQuery({ etype: 'A', appid: 'x' })).toThrow(/^1114 /);
    const q = queryFromSearch(new URLSearchParams('etype=A&etype=r&appid=x&timestamp=1&hmac=y&nonce=n'));
    expect(Object.keys(q)).toEqual(['etype']);
    expect(parseEventQuery(q).query.etypes).toEqual(['A', 'R']);
  });
  it('reads dates in the configured zone', () => {
    const q = parseEventQuery({ from: '2026/07/01 12:00' }, 'Europe/Paris').query;
    expect(q.from).toBe(Date.UTC(2026, 6, 1, 10, 0, 0) / 1000);
  });
});

describe('parseEventDelete', () => {
  it('needs a filter or all=1', () => {
    expect(code(() => parseEventDelete({}))).toBe(1111);
    expect(parseEventDelete({ all: '1' }).filter.dump).toBe(true);
    expect(parseEventDelete({ runuser: 'root' }).filter.patterns.runuser?.map((w) => w.source)).toEqual(['root']);
  });
  it('refuses paging and order that do not apply to a delete', () => {
    expect(code(() => parseEventDelete({ runuser: 'root', limit: '5' }))).toBe(1114);
    expect(code(() => parseEventDelete({ runuser: 'root', order: 'recnum' }))).toBe(1114);
    expect(code(() => parseEventDelete({ format: 'ff', file: 'x', start: '3', runuser: 'r' }))).toBe(1114);
    expect(code(() => parseEventDelete({ format: 'db', offset: '3', runuser: 'r' }))).toBe(1114);
  });
  it('treats recnum bounds as filters', () => {
    expect(parseEventDelete({ format: 'db', start: '3', end: '4' }).filter).toMatchObject({ recnumMin: 3, recnumMax: 4 });
  });
});

describe('parseLegacyQuery', () => {
  it('ORs the accept, reject and keystroke flags on a flat file', () => {
    expect(parseLegacyQuery({ file: 'f', reject: '0' }).query.etypes).toEqual(['A', 'K']);
    expect(parseLegacyQuery({ file: 'f', accept: '0', keystroke: '0' }).query.etypes).toEqual(['R']);
    expect(parseLegacyQuery({ file: 'f', accept: '0', keystroke: '0', reject: '0' }).query.limit).toBe(0);
    expect(code(() => parseLegacyQuery({}))).toBe(1101);
  });
});

describe('dates', () => {
  it('renders epoch in a zone, across DST', () => {
    expect(formatEpoch(1767225600, 'UTC')).toBe('2026-01-01 00:00:00');
    expect(formatEpoch(1767225600.9, 'America/New_York')).toBe('2025-12-31 19:00:00');
    expect(formatEpoch(Date.UTC(2026, 6, 1, 12) / 1000, 'America/New_York')).toBe('2026-07-01 08:00:00');
  });
  it('renders epoch like Intl does, in any order, any zone (the per-hour cache is invisible)', () => {
    const intl = new Map<string, Intl.DateTimeFormat>();
    const reference = (sec: number, tz: string) => {
      let f = intl.get(tz);
      if (!f) intl.set(tz, (f = new Intl.DateTimeFormat('en-CA', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' })));
      const p = Object.fromEntries(f.formatToParts(new Date(Math.floor(sec) * 1000)).map((x) => [x.type, x.value]));
      return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
    };
    const zones = ['UTC', 'Europe/Paris', 'America/St_Johns', 'Asia/Kathmandu', 'Australia/Lord_Howe'];
    // Times near each other (same hour, neighbour hours, DST edges of 2026) and far apart.
    const near = fc.integer({ min: 1_774_000_000, max: 1_775_000_000 });
    const far = fc.integer({ min: 0, max: 4_102_444_800 });
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.oneof(near, far), fc.double({ min: 0, max: 0.999, noNaN: true }), fc.constantFrom(...zones)), { minLength: 1, maxLength: 40 }), (items) => {
        for (const [s, frac, tz] of items) expect(formatEpoch(s + frac, tz)).toBe(reference(s, tz));
      }),
      { seed: 20261122, numRuns: 300 },
    );
  });
  it('reads a wall-clock time in a zone across a DST change', () => {
    expect(parseQueryDate('2026-03-29 03:30', 'Europe/Paris', 'from')).toBe(Date.UTC(2026, 2, 29, 1, 30) / 1000);
    expect(parseQueryDate('2026-03-28 03:30', 'Europe/Paris', 'from')).toBe(Date.UTC(2026, 2, 28, 2, 30) / 1000);
  });
  it('treats a bare date as the whole day at the end of a range', () => {
    expect(parseQueryDate('2026/01/01', 'UTC', 'to', true)).toBeCloseTo(1767311999.999999, 5);
    expect(parseQueryDate('2026/01/01 10:00', 'UTC', 'to', true)).toBeCloseTo(1767261659.999999, 5);
    expect(parseQueryDate('2026/01/01 10:00:05', 'UTC', 'to', true)).toBeCloseTo(1767261605.999999, 5);
  });
});
