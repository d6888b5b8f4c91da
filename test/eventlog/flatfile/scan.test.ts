// The scanner on its own: chunk boundaries at every position, lines written by other tools,
// malformed and torn lines, lines without recnum, offsets, and prefilter on/off equivalence.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isEvioError } from '../../../src/errors.js';
import type { ByteSource } from '../../../src/eventlog/flatfile/line-reader.js';
import { checkByteOffset, scanRows } from '../../../src/eventlog/flatfile/scan.js';
import { eachRow } from '../../../src/eventlog/row-batches.js';
import { MemoryStore } from '../../../src/eventlog/memory-store.js';
import type { EventQuery, EventRow, NewEvent, StoredEvent } from '../../../src/eventlog/types.js';
import { foreignJson, arbMalformed, MALFORMED_LINES } from './foreign-lines.js';
import { arbEvent, arbQuery, collect, comparable, describeQuery, patterns, query } from './helpers.js';

/** Bytes in memory, read in pieces that never cross the given cut positions. */
function bufferSource(data: Buffer, cuts: number[] = []): ByteSource {
  return {
    async read(buf, off, len, pos) {
      let n = Math.min(len, data.length - pos);
      for (const c of cuts) if (c > pos && c < pos + n) n = c - pos;
      if (n <= 0) return 0;
      data.copy(buf, off, pos, pos + n);
      return n;
    },
  };
}

interface Built {
  data: Buffer;
  records: StoredEvent[];
  malformed: number;
}

/** A file from a list of line specs; records get recnum = line number (explicit or implied). */
function build(lines: Array<{ ev: NewEvent; style: 'canonical' | 'norecnum' | 'foreign'; seed: number } | { bad: string }>, torn?: string): Built {
  const text: string[] = [];
  const records: StoredEvent[] = [];
  let malformed = 0;
  lines.forEach((l, i) => {
    const recnum = i + 1;
    if ('bad' in l) {
      text.push(l.bad);
      malformed++;
      return;
    }
    const rec = { recnum, ...l.ev } as StoredEvent;
    const { recnum: _r, ...without } = rec;
    if (l.style === 'canonical') text.push(JSON.stringify(rec));
    else if (l.style === 'norecnum') text.push(JSON.stringify(without));
    else text.push(foreignJson(l.seed % 2 ? rec : without, l.seed));
    records.push(JSON.parse(JSON.stringify(rec)) as StoredEvent);
  });
  let s = text.map((t) => t + '\n').join('');
  if (torn !== undefined) {
    s += torn;
    malformed++;
  }
  return { data: Buffer.from(s, 'utf8'), records, malformed };
}

async function reference(records: StoredEvent[]): Promise<MemoryStore> {
  const m = new MemoryStore();
  await m.append(records);
  return m;
}

async function scan(data: Buffer, q: EventQuery, opts: { cuts?: number[]; readSize?: number; noPrefilter?: boolean; maxOpenAccepts?: number; packAfter?: number } = {}) {
  const stats = { malformed: 0 };
  const rows = await collect(
    eachRow(
      scanRows(bufferSource(data, opts.cuts), q, {
        sizeHint: data.length - q.byteOffset,
        maxOpenAccepts: opts.maxOpenAccepts ?? 1e6,
        stats,
        ...(opts.readSize ? { readSize: opts.readSize } : {}),
        ...(opts.noPrefilter ? { noPrefilter: true } : {}),
        ...(opts.packAfter !== undefined ? { packAfter: opts.packAfter } : {}),
      }),
    ),
  );
  return { rows, stats };
}

const SAMPLE: NewEvent[] = [
  { uniqueid: 'u1', etype: 'A', time: 1000, submituser: 'alice', runcommand: '/usr/bin/vim', runargv: ['vim'] },
  { uniqueid: 'u2', etype: 'K', time: 1001, submituser: 'bob', runcommand: '/bin/ls', iolog: '/io/1' },
  { uniqueid: 'u3', etype: 'R', time: 1002, submituser: 'a/b', runcommand: '/bin/ls', exitstatus: 'rejected' },
  { uniqueid: 'u1', etype: 'F', time: 1003, submituser: 'alice', exitstatus: 'exit 0' },
  { uniqueid: 'é"q', etype: 'A', time: 1004, submituser: 'Ωmega', runcommand: '/usr/bin/vim' },
  { uniqueid: 'é"q', etype: 'F', time: 1005, exitstatus: 'exit 1' },
];

describe('line scanner', () => {
  const built = build(
    [
      { ev: SAMPLE[0]!, style: 'canonical', seed: 1 },
      { bad: MALFORMED_LINES[1]! },
      { ev: SAMPLE[1]!, style: 'norecnum', seed: 2 },
      { ev: SAMPLE[2]!, style: 'foreign', seed: 3 },
      { bad: '' },
      { ev: SAMPLE[3]!, style: 'foreign', seed: 4 },
      { ev: SAMPLE[4]!, style: 'canonical', seed: 5 },
      { bad: MALFORMED_LINES[3]! },
      { ev: SAMPLE[5]!, style: 'norecnum', seed: 6 },
    ],
    '{"recnum":99,"uniqueid":"u9","etype":"A","ti',
  );
  const queries: EventQuery[] = [
    query({ dump: true }),
    query(),
    query({ patterns: patterns({ submituser: 'alice' }) }),
    query({ patterns: patterns({ runcommand: '*/vim' }), dump: true }),
    query({ patterns: patterns({ submituser: 'a/b' }) }),
    query({ etypes: ['K'] }),
    query({ skip: 1, limit: 2 }),
  ];

  it('gives the same rows for a read cut at every byte position', async () => {
    const mem = await reference(built.records);
    for (const q of queries) {
      const want = comparable(await collect(mem.query(q)));
      const whole = await scan(built.data, q);
      expect(comparable(whole.rows), describeQuery(q)).toEqual(want);
      // The file arrives in two chunks split at k, for every k.
      for (let k = 1; k < built.data.length; k++) {
        const cut = await scan(built.data, q, { cuts: [k] });
        expect(comparable(cut.rows), `${describeQuery(q)} cut at ${k}`).toEqual(want);
        expect(cut.rows.map((r) => r.offset)).toEqual(whole.rows.map((r) => r.offset));
        expect(cut.stats.malformed).toBe(whole.stats.malformed);
      }
      // Tiny reads: a boundary everywhere, and the buffer grows and compacts.
      for (const readSize of [1, 2, 3, 5, 8, 13]) {
        const small = await scan(built.data, q, { readSize });
        expect(comparable(small.rows), `${describeQuery(q)} readSize ${readSize}`).toEqual(want);
        expect(small.rows.map((r) => r.offset)).toEqual(whole.rows.map((r) => r.offset));
        expect(small.stats.malformed).toBe(whole.stats.malformed);
      }
    }
  }, 180_000);

  it('counts malformed lines, the torn last line included', async () => {
    const { stats } = await scan(built.data, query({ dump: true }));
    expect(stats.malformed).toBe(built.malformed);
    expect(built.malformed).toBe(4);
  });

  it('offsets are line ends; resuming at each one gives the rest, with line numbers for lines without recnum', async () => {
    const q = query({ dump: true });
    const { rows } = await scan(built.data, q);
    for (const [i, r] of rows.entries()) {
      expect(built.data[r.offset! - 1]).toBe(10);
      for (const readSize of [4, 1 << 20]) {
        const rest = await scan(built.data, { ...q, byteOffset: r.offset! }, { readSize });
        expect(comparable(rest.rows)).toEqual(comparable(rows.slice(i + 1)));
      }
    }
  });

  it('refuses offsets that are not line starts or past the end', async () => {
    const src = bufferSource(built.data);
    await expect(checkByteOffset(src, built.data.length, 5, 'f')).rejects.toSatisfy((e) => isEvioError(e, 'QUERY_BAD_OFFSET'));
    await expect(checkByteOffset(src, built.data.length, built.data.length + 1, 'f')).rejects.toSatisfy((e) => isEvioError(e, 'QUERY_BAD_OFFSET'));
    await expect(checkByteOffset(src, built.data.length, 0, 'f')).resolves.toBeUndefined();
    const firstEnd = built.data.indexOf(10) + 1;
    await expect(checkByteOffset(src, built.data.length, firstEnd, 'f')).resolves.toBeUndefined();
  });

  it('skips a line longer than the bound as malformed and goes on', async () => {
    const long = JSON.stringify({ recnum: 2, uniqueid: 'x', etype: 'A', time: 1, pad: 'y'.repeat(5000) });
    const data = Buffer.from(`${JSON.stringify({ recnum: 1, uniqueid: 'a', etype: 'A', time: 1 })}\n${long}\n${JSON.stringify({ recnum: 3, uniqueid: 'b', etype: 'A', time: 1 })}\n`);
    const stats = { malformed: 0 };
    const rows = await collect(eachRow(scanRows(bufferSource(data), query({ dump: true }), { maxOpenAccepts: 10, stats, readSize: 100, maxLineBytes: 1000 })));
    expect(rows.map((r) => r.rec.recnum)).toEqual([1, 3]);
    expect(stats.malformed).toBe(1);
  });

  it('fuzzed files: prefilter on and off, any read size, equal the reference', async () => {
    const arbLine = fc.oneof(
      { arbitrary: fc.record({ ev: arbEvent, style: fc.constantFrom('canonical' as const, 'norecnum' as const, 'foreign' as const), seed: fc.integer({ min: 1, max: 1e9 }) }), weight: 6 },
      { arbitrary: arbMalformed.map((bad) => ({ bad })), weight: 1 },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(arbLine, { maxLength: 40 }), fc.option(fc.string(), { nil: undefined }), fc.array(arbQuery, { minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 300 }), fc.constantFrom(0, 2, 1024), async (lines, torn, qs, readSize, packAfter) => {
        const b = build(lines, torn?.includes('\n') ? undefined : torn || undefined);
        const mem = await reference(b.records);
        for (const q of qs) {
          const want = comparable(await collect(mem.query(q)));
          const on = await scan(b.data, q, { readSize, packAfter });
          const off = await scan(b.data, q, { readSize, noPrefilter: true, packAfter });
          expect(comparable(on.rows), describeQuery(q)).toEqual(want);
          expect(comparable(off.rows), describeQuery(q)).toEqual(want);
        }
        const all = await scan(b.data, query({ dump: true }), { readSize });
        expect(all.stats.malformed).toBe(b.malformed);
      }),
      { seed: 4242, numRuns: 300 },
    );
  }, 180_000);
});

describe('finish merge in the scan', () => {
  const lines = (evs: NewEvent[]) => Buffer.from(evs.map((e, i) => JSON.stringify({ recnum: i + 1, ...e }) + '\n').join(''));
  const rowsOf = (rows: EventRow[]) => rows.map((r) => [r.rec.recnum, r.exitstatus, r.exittime]);

  it('merges the first F after an accept; an F before it does not count', async () => {
    const data = lines([
      { uniqueid: 'a', etype: 'F', time: 1, exitstatus: 'early' },
      { uniqueid: 'a', etype: 'A', time: 2 },
      { uniqueid: 'a', etype: 'K', time: 3 },
      { uniqueid: 'b', etype: 'A', time: 4 },
      { uniqueid: 'a', etype: 'F', time: 5, exitstatus: 'first' },
      { uniqueid: 'a', etype: 'F', time: 6, exitstatus: 'second' },
      { uniqueid: 'c', etype: 'R', time: 7, exitstatus: 'rejected' },
    ]);
    const { rows } = await scan(data, query());
    expect(rowsOf(rows)).toEqual([
      [2, 'first', 5],
      [3, 'first', 5],
      [4, null, null],
      [7, 'rejected', null],
    ]);
  });

  it('skip and limit with accepts that wait: rows leave in order as they resolve', async () => {
    const data = lines([
      { uniqueid: 'a', etype: 'A', time: 1 },
      { uniqueid: 'b', etype: 'A', time: 2 },
      { uniqueid: 'c', etype: 'A', time: 3 },
      { uniqueid: 'c', etype: 'F', time: 4, exitstatus: 'c done' },
      { uniqueid: 'b', etype: 'F', time: 5, exitstatus: 'b done' },
    ]);
    expect(rowsOf((await scan(data, query({ skip: 1, limit: 1 }))).rows)).toEqual([[2, 'b done', 5]]);
    expect(rowsOf((await scan(data, query({ limit: 2 }))).rows)).toEqual([
      [1, null, null],
      [2, 'b done', 5],
    ]);
  });

  it('exit filters see the merged values', async () => {
    const data = lines([
      { uniqueid: 'a', etype: 'A', time: 1 },
      { uniqueid: 'b', etype: 'A', time: 2 },
      { uniqueid: 'c', etype: 'A', time: 3 },
      { uniqueid: 'b', etype: 'F', time: 10, exitstatus: 'exit 1' },
      { uniqueid: 'a', etype: 'F', time: 20, exitstatus: 'exit 0' },
    ]);
    expect(rowsOf((await scan(data, query({ patterns: patterns({ exitstatus: '*0' }) }))).rows)).toEqual([[1, 'exit 0', 20]]);
    expect(rowsOf((await scan(data, query({ exitFrom: 5, exitTo: 15 }))).rows)).toEqual([[2, 'exit 1', 10]]);
    expect(rowsOf((await scan(data, query({ exitFrom: 5, limit: 1 }))).rows)).toEqual([[1, 'exit 0', 20]]);
  });

  it('refuses to hold more than maxOpenAccepts rows', async () => {
    const data = lines(Array.from({ length: 20 }, (_, i) => ({ uniqueid: `u${i}`, etype: 'A' as const, time: i })));
    await expect(scan(data, query(), { maxOpenAccepts: 5 })).rejects.toSatisfy((e) => isEvioError(e, 'STORE_TOO_MANY_OPEN'));
    // Without a finish to wait for (dump=1) the same query streams.
    expect((await scan(data, query({ dump: true }), { maxOpenAccepts: 5 })).rows).toHaveLength(20);
    // A limit bounds what is held.
    expect((await scan(data, query({ limit: 3 }), { maxOpenAccepts: 5 })).rows).toHaveLength(3);
  });

  it('rows resolved as non-members do not count against maxOpenAccepts behind an accept that never finishes', async () => {
    const evs: NewEvent[] = [{ uniqueid: 'never', etype: 'A', time: 1 }];
    for (let i = 0; i < 3000; i++) evs.push({ uniqueid: `u${i}`, etype: 'A', time: 2 }, { uniqueid: `u${i}`, etype: 'F', time: 3, exitstatus: i % 1000 === 0 ? 'exit 3' : 'exit 0' });
    const data = lines(evs);
    const { rows } = await scan(data, query({ patterns: patterns({ exitstatus: '*3' }) }), { maxOpenAccepts: 10, readSize: 512 });
    expect(rows.map((r) => r.rec.uniqueid)).toEqual(['u0', 'u1000', 'u2000']);
  });

  it('yields a row as soon as it is resolved and stops reading when the answer is complete', async () => {
    const evs: NewEvent[] = [{ uniqueid: 'a', etype: 'A', time: 1 }, { uniqueid: 'a', etype: 'F', time: 2, exitstatus: 'ok' }];
    for (let i = 0; i < 5000; i++) evs.push({ uniqueid: `z${i}`, etype: 'R', time: 3 });
    const data = lines(evs);
    let readTo = 0;
    const src = bufferSource(data);
    const counting: ByteSource = { read: async (b, o, l, p) => { const n = await src.read(b, o, l, p); readTo = Math.max(readTo, p + n); return n; } };
    const rows = await collect(eachRow(scanRows(counting, query({ limit: 1 }), { maxOpenAccepts: 10, stats: { malformed: 0 }, readSize: 4096 })));
    expect(rows.map((r) => r.exitstatus)).toEqual(['ok']);
    expect(readTo).toBeLessThan(data.length / 10);
  });

  it('stops at the abort signal', async () => {
    const data = lines(Array.from({ length: 2000 }, (_, i) => ({ uniqueid: `u${i}`, etype: 'R' as const, time: i })));
    const ac = new AbortController();
    const it = eachRow(scanRows(bufferSource(data), query({ dump: true }), { maxOpenAccepts: 10, stats: { malformed: 0 }, readSize: 1024, signal: ac.signal }));
    let n = 0;
    await expect(
      (async () => {
        for await (const _ of it) if (++n === 3) ac.abort();
      })(),
    ).rejects.toThrow();
    expect(n).toBeLessThan(2000);
  });
});
