// Export: every format, RFC 4180 quoting, a round trip, the temp-file-and-rename output,
// backpressure, and no default limit.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { isEvioError } from '../../src/errors.js';
import { parseCsv } from '../../src/eventlog/export/csv.js';
import { exportText, exportToFile, exportToStream, type ExportCount } from '../../src/eventlog/export/exporter.js';
import { CSV_COLUMNS, CSV_VERBOSE_COLUMNS, parseExportFormat, type ExportFormat } from '../../src/eventlog/export/formats.js';
import { generateEvents } from '../../src/eventlog/generate.js';
import { MemoryStore } from '../../src/eventlog/memory-store.js';
import { parseEventQuery } from '../../src/eventlog/query.js';
import type { EventQuery, EventStore, NewEvent } from '../../src/eventlog/types.js';

const dir = mkdtempSync(join(tmpdir(), 'evio-export-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const NASTY: NewEvent[] = [
  { uniqueid: 'u1', etype: 'A', time: 1767225600, submituser: 'alice', submithost: 'web,01', runuser: 'root', runhost: 'web,01', runcommand: '/bin/sh', runargv: ['sh', '-c', 'echo "a, b"\nexit 0'] },
  { uniqueid: 'u1', etype: 'F', time: 1767225601, exitstatus: 'Command finished with exit status 0', exitcode: 0 },
  { uniqueid: 'u2', etype: 'R', time: 1767225602, submituser: 'bob "the builder"', runcommand: 'C:\\x\r\ny', reason: 'line1\nline2', exitstatus: 'Request rejected: line1\nline2', sudo_fields: { COMMAND: 'x, "y"' } },
  { uniqueid: 'u3', etype: 'K', time: 1767225603, submituser: '=SUM(A1)', runcommand: 'h\u00e9llo \u{1F600}', iolog: '00/00/01' },
];

async function storeWith(events: NewEvent[]): Promise<MemoryStore> {
  const s = new MemoryStore();
  await s.append(events);
  return s;
}

function q(params: Record<string, string>): EventQuery {
  const { query } = parseEventQuery({ format: 'db', ...params });
  if (params.limit === undefined) query.limit = Number.MAX_SAFE_INTEGER;
  return query;
}

async function text(store: EventStore, query: EventQuery, format: ExportFormat): Promise<{ text: string; count: number }> {
  const count: ExportCount = { records: 0 };
  let out = '';
  for await (const piece of exportText(store, query, { format, timezone: 'UTC' }, count)) out += piece;
  return { text: out, count: count.records };
}

describe('formats', () => {
  it('refuses an unknown format', () => {
    expect(() => parseExportFormat('xml')).toThrow(/1704/);
    expect(parseExportFormat(undefined)).toBe('ndjson');
  });

  it('CSV: a header row, fixed columns, commas, quotes, CR and LF quoted as RFC 4180 says', async () => {
    const store = await storeWith(NASTY);
    const { text: csv, count } = await text(store, q({}), 'csv');
    expect(count).toBe(3);
    expect(csv.split('\r\n')[0]).toBe(CSV_COLUMNS.join(','));
    expect(csv).toContain('"bob ""the builder"""');
    expect(csv).toContain('"C:\\x\r\ny"');
    expect(csv.endsWith('\r\n')).toBe(true);
    const rows = parseCsv(csv);
    expect(rows[0]).toEqual([...CSV_COLUMNS]);
    expect(rows.slice(1).map((r) => r.length)).toEqual([10, 10, 10]);
    expect(rows[1]).toEqual(['1', 'u1', 'A', '2026-01-01 00:00:00', 'alice', 'web,01', 'root', 'web,01', '/bin/sh', 'Command finished with exit status 0']);
    expect(rows[2]).toEqual(['3', 'u2', 'R', '2026-01-01 00:00:02', 'bob "the builder"', '', '', '', 'C:\\x\r\ny', 'Request rejected: line1\nline2']);
    // Values are written as they are: no spreadsheet-formula mangling.
    expect(rows[3]![4]).toBe('=SUM(A1)');
    expect(rows[3]![9]).toBe('');
  });

  it('CSV with --verbose 1: the stored fields and an "extra" JSON column', async () => {
    const store = await storeWith(NASTY);
    const rows = parseCsv((await text(store, q({ verbose: '1', dump: '1' }), 'csv')).text);
    expect(rows[0]).toEqual([...CSV_VERBOSE_COLUMNS]);
    const col = (name: string) => CSV_VERBOSE_COLUMNS.indexOf(name as (typeof CSV_VERBOSE_COLUMNS)[number]);
    expect(JSON.parse(rows[1]![col('runargv')]!)).toEqual(['sh', '-c', 'echo "a, b"\nexit 0']);
    expect(rows[2]![col('exitcode')]).toBe('0');
    expect(JSON.parse(rows[3]![col('extra')]!)).toEqual({ sudo_fields: { COMMAND: 'x, "y"' } });
    expect(rows[1]![col('extra')]).toBe('');
  });

  it('round trip: a CSV export reads back to the NDJSON export, value for value', async () => {
    const store = await storeWith([...NASTY, ...generateEvents({ count: 300, seed: 5 })].map((e, i) => ({ ...e, recnum: i + 1 })));
    for (const verbose of ['0', '1']) {
      const query = q({ verbose, dump: '1' });
      const nd = (await text(store, query, 'ndjson')).text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      const rows = parseCsv((await text(store, query, 'csv')).text);
      const cols = rows[0]!;
      expect(rows.length - 1).toBe(nd.length);
      rows.slice(1).forEach((row, i) => {
        const rec = nd[i]!;
        cols.forEach((c, j) => {
          if (c === 'extra') return;
          const v = rec[c];
          const want = v === null || v === undefined ? '' : typeof v === 'string' ? v : typeof v === 'number' ? String(v) : JSON.stringify(v);
          expect(row[j], `${c} of record ${i + 1}`).toBe(want);
        });
      });
    }
  });

  it('round trip: NDJSON with dump=1 and verbose=1 holds every stored record, appendable as it is', async () => {
    const src = await storeWith(NASTY);
    const nd = (await text(src, q({ verbose: '1', dump: '1' }), 'ndjson')).text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const copy = new MemoryStore();
    // The answer's exitstatus is null for records that store none (the query's shape): dropped back.
    // epoch and exittime (and their ISO twins) are renderings of time, not stored fields.
    await copy.append(nd.map(({ epoch: _e, exittime: _x, epoch_iso: _ei, exittime_iso: _xi, ...rec }) => (rec.exitstatus === null ? (({ exitstatus: _s, ...r }) => r)(rec) : rec) as NewEvent));
    expect(copy.all()).toEqual(src.all());
  });

  it('JSON: one array of the same records', async () => {
    const store = await storeWith(NASTY);
    const nd = (await text(store, q({ verbose: '1' }), 'ndjson')).text.trim().split('\n').map((l) => JSON.parse(l));
    expect(JSON.parse((await text(store, q({ verbose: '1' }), 'json')).text)).toEqual(nd);
    expect((await text(new MemoryStore(), q({}), 'json')).text).toBe('[]\n');
  });

  it('applies every query filter and no default limit', async () => {
    const store = await storeWith([...generateEvents({ count: 40_000, seed: 2 })].map(({ recnum: _r, ...e }) => e));
    const everything = await text(store, q({ dump: '1' }), 'ndjson');
    expect(everything.count).toBe(40_000);
    const rejects = await text(store, q({ etype: 'R', submituser: 'a*' }), 'ndjson');
    const want = store.all().filter((r) => r.etype === 'R' && String(r.submituser).startsWith('a')).length;
    expect(rejects.count).toBe(want);
    expect((await text(store, q({ limit: '7' }), 'csv')).count).toBe(7);
  });
});

describe('outputs', () => {
  it('a file appears whole, through a temporary name in its folder', async () => {
    const store = await storeWith(NASTY);
    const out = join(dir, 'out.csv');
    writeFileSync(out, 'old content');
    const count: ExportCount = { records: 0 };
    const seen: string[] = [];
    async function* watched() {
      for await (const piece of exportText(store, q({}), { format: 'csv', timezone: 'UTC' }, count)) {
        seen.push(readFileSync(out, 'utf8'));
        yield piece;
      }
    }
    const bytes = await exportToFile(out, watched());
    expect(seen.every((s) => s === 'old content')).toBe(true);
    expect(readFileSync(out).length).toBe(bytes);
    expect(readdirSync(dir).filter((n) => n.includes('.tmp-'))).toEqual([]);
  });

  it('a failed export leaves the old file and no temporary file', async () => {
    const out = join(dir, 'kept.json');
    writeFileSync(out, 'previous');
    async function* failing() {
      yield '[';
      throw new Error('the store went away');
    }
    await expect(exportToFile(out, failing())).rejects.toThrow(/1705|went away/);
    expect(readFileSync(out, 'utf8')).toBe('previous');
    expect(readdirSync(dir).filter((n) => n.includes('.tmp-'))).toEqual([]);
    await expect(exportToFile(join(dir, 'no/such/dir/x.csv'), failing())).rejects.toSatisfy((e: unknown) => isEvioError(e, 'EXPORT_OUTPUT'));
    expect(existsSync(join(dir, 'no'))).toBe(false);
  });

  it('waits for a slow stream to drain (backpressure) and delivers every byte', async () => {
    const store = await storeWith([...generateEvents({ count: 5000, seed: 9 })].map(({ recnum: _r, ...e }) => e));
    let received = 0;
    let maxBuffered = 0;
    const slow = new Writable({
      highWaterMark: 1024,
      write(chunk: Buffer, _enc, cb) {
        received += chunk.length;
        setImmediate(cb);
      },
    });
    const count: ExportCount = { records: 0 };
    const pieces = exportText(store, q({ dump: '1' }), { format: 'ndjson', timezone: 'UTC' }, count);
    async function* measured() {
      for await (const p of pieces) {
        maxBuffered = Math.max(maxBuffered, slow.writableLength);
        yield p;
      }
    }
    const bytes = await exportToStream(slow, measured());
    await new Promise<void>((r) => slow.end(r));
    expect(received).toBe(bytes);
    expect(count.records).toBe(5000);
    // Never more than one piece waits in the stream's buffer.
    expect(maxBuffered).toBeLessThanOrEqual(128 * 1024);
  });
});
