// Bulk inserts: the COPY text encoding (escapes, NULL, numbers) and, on the real databases, rows
// holding every character COPY and SQL treat specially stored and read back exactly — through
// COPY on PostgreSQL and the prepared-statement loop on SQLite — plus the terminal progress text.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rateText } from '../../../src/cli/load-rate.js';
import { copyTextChunks, copyTextLine, copyTextValue } from '../../../src/eventlog/postgres/copy-text.js';
import { dumpQuery } from '../../../src/eventlog/query.js';
import type { NewEvent, StoredEvent } from '../../../src/eventlog/types.js';
import { openTestStores, type TestStoreFactory } from './stores.js';

describe('COPY text format', () => {
  it('escapes backslash, tab, newline and carriage return; writes NULL as \\N', () => {
    expect(copyTextValue('a\tb\nc\rd\\e')).toBe('a\\tb\\nc\\rd\\\\e');
    expect(copyTextValue('\\N')).toBe('\\\\N');
    expect(copyTextValue(null)).toBe('\\N');
    expect(copyTextValue(undefined)).toBe('\\N');
    expect(copyTextValue(1767225603.521)).toBe('1767225603.521');
    expect(copyTextValue(42)).toBe('42');
    expect(copyTextValue('plain ünïcode ✓')).toBe('plain ünïcode ✓');
    expect(copyTextLine([1, null, 'x\ty'])).toBe('1\t\\N\tx\\ty\n');
  });

  it('cuts rows into chunks at row boundaries', () => {
    const rows = Array.from({ length: 50 }, (_, i) => [i, `row ${i}`]);
    const chunks = [...copyTextChunks(rows, 40)];
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.join('')).toBe(rows.map((r) => copyTextLine(r)).join(''));
    for (const c of chunks) expect(c.endsWith('\n')).toBe(true);
  });
});

describe('load progress text', () => {
  it('gives records/s and the time left from the fraction read', () => {
    expect(rateText(10_000, 2000, 0.25)).toBe('5,000 records/s, ETA 0:06');
    expect(rateText(10_000, 2000, null)).toBe('5,000 records/s');
    expect(rateText(0, 0, 0)).toBe('0 records/s');
    expect(rateText(600_000, 60_000, 0.5)).toBe('10,000 records/s, ETA 1:00');
  });
});

const NASTY = ['tab\there', 'new\nline', 'cr\rreturn', 'back\\slash', '\\N', 'quote\'s "double"', 'comma,semi;', 'ünïcode ✓ 𝄞', '', ' '];

function nastyLog(): NewEvent[] {
  const out: NewEvent[] = [];
  NASTY.forEach((s, i) => {
    const uid = `u${i}\t${s}`;
    out.push({ recnum: i * 3 + 1, uniqueid: uid, etype: 'A', time: 1000 + i + 0.125, submituser: s, submithost: `h${s}`, runuser: 'root', runhost: s, runcommand: `/bin/${s}`, runargv: [s, 'x'], cwd: s });
    out.push({ recnum: i * 3 + 2, uniqueid: uid, etype: 'F', time: 1001 + i, submituser: s, submithost: `h${s}`, runuser: 'root', runhost: s, runcommand: `/bin/${s}`, exitstatus: `exit ${s}`, exitcode: i });
    out.push({ recnum: i * 3 + 3, uniqueid: `r${i}`, etype: 'R', time: 1002 + i, submituser: s, submithost: 'h', runuser: 'root', runhost: 'h', runcommand: s, reason: s, exitstatus: s });
  });
  return out;
}

describe.each(['sqlite', 'pg'] as const)('bulk insert round trip (%s)', (name) => {
  let factory: TestStoreFactory | undefined;
  beforeAll(async () => {
    [factory] = await openTestStores([name]);
  }, 120_000);
  afterAll(async () => {
    await factory?.cleanup();
  });

  it('stores fields with tabs, newlines, backslashes and \\N exactly, finishes linked', async (ctx) => {
    if (!factory || factory.unavailable) return ctx.skip();
    const store = await factory.make({ batchSize: 4 });
    const log = nastyLog();
    await store.bulkLoad!(async () => {
      await store.append(log.slice(0, 13));
      await store.append(log.slice(13));
    });
    const back: StoredEvent[] = [];
    for await (const r of store.query(dumpQuery())) back.push(r.rec);
    expect(back.map((r) => ({ ...r }))).toEqual(log.map((r) => ({ ...r })));
    const merged = [];
    for await (const r of store.query({ ...dumpQuery(), dump: false })) merged.push([r.rec.recnum, r.exitstatus]);
    expect(merged).toEqual(NASTY.flatMap((s, i) => [[i * 3 + 1, `exit ${s}`], [i * 3 + 3, s]]));
    await store.close();
  });
});
