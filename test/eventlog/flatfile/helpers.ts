// Shared helpers of the flat-file tests: temp dirs, queries, random logs and random queries.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import type { EType, EventFilter, EventQuery, EventRow, NewEvent, PatternField, StoredEvent } from '../../../src/eventlog/types.js';
import { compileWildcard } from '../../../src/common/wildcard.js';

export function tempDir(prefix = 'evio-ff-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function query(over: Partial<EventQuery> = {}): EventQuery {
  return {
    etypes: null,
    from: null,
    to: null,
    exitFrom: null,
    exitTo: null,
    patterns: {},
    recnumMin: null,
    recnumMax: null,
    dump: false,
    skip: 0,
    byteOffset: 0,
    limit: 32768,
    verbose: false,
    order: 'recnum',
    direction: 'asc',
    ...over,
  };
}

export function filter(over: Partial<EventFilter> = {}): EventFilter {
  const { skip: _s, byteOffset: _b, limit: _l, verbose: _v, order: _o, direction: _d, ...f } = query(over);
  return f;
}

export function patterns(p: Partial<Record<PatternField, string>>): EventFilter['patterns'] {
  const out: EventFilter['patterns'] = {};
  for (const [k, v] of Object.entries(p)) out[k as PatternField] = [compileWildcard(v as string, k)];
  return out;
}

export async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** What every store must agree on: the record and its merged exit values (not the ff offset). */
export function comparable(rows: EventRow[]): Array<{ rec: StoredEvent; exitstatus: string | null; exittime: number | null }> {
  return rows.map((r) => ({ rec: r.rec, exitstatus: r.exitstatus, exittime: r.exittime }));
}

// ---- random logs: small alphabets so that uniqueids repeat, finishes come before and after
// their accepts, and values need JSON escapes ('"', '\\', '/', non-ASCII).
const UIDS = ['u1', 'u2', 'u3', 'u4', 'x/y', 'é"q', 'b\\s'];
const USERS = ['alice', 'bob', 'al*ce', 'Ωmega', 'a/b'];
const COMMANDS = ['/bin/ls', '/usr/bin/vim', 'ls', '/usr/bin/vim-tiny'];
const STATUSES = ['exit 0', 'exit 1', 'killed by signal 9', 'Command finished with exit status 0'];

export const arbEvent: fc.Arbitrary<NewEvent> = fc
  .record({
    uniqueid: fc.constantFrom(...UIDS),
    etype: fc.constantFrom<EType>('A', 'A', 'K', 'R', 'F', 'F'),
    time: fc.oneof(fc.integer({ min: 1000, max: 1100 }), fc.integer({ min: 10000, max: 11000 }).map((n) => n / 10)),
    submituser: fc.constantFrom(...USERS),
    submithost: fc.constantFrom('h1', 'h2'),
    runuser: fc.constantFrom('root', 'www'),
    runhost: fc.constantFrom('h1', 'h2'),
    runcommand: fc.constantFrom(...COMMANDS),
    exitstatus: fc.constantFrom(...STATUSES),
    extra: fc.boolean(),
  })
  .map(({ exitstatus, extra, ...r }) => {
    const ev: NewEvent = { ...r, runargv: [r.runcommand.split('/').pop()!] };
    if (r.etype === 'F' || r.etype === 'R') ev.exitstatus = exitstatus;
    if (r.etype === 'R') ev.reason = 'not allowed';
    if (extra) ev.cwd = '/home/x';
    return ev;
  });

export const arbLog = fc.array(arbEvent, { maxLength: 80, size: 'max' });

const PATTERNS: Record<PatternField, string[]> = {
  uniqueid: ['u1', 'u*', 'x/y', '*/*', 'é"q', 'b\\\\s', '?2'],
  submituser: ['alice', 'a*', '*ce', '?ob', 'al\\*ce', 'Ω*', '*/b', '[ab]*'],
  submithost: ['h1', 'h?'],
  runuser: ['root', 'w*'],
  runhost: ['h2', '*'],
  runcommand: ['/bin/ls', '*/vim*', 'ls', '*tiny', '/usr/*'],
  exitstatus: ['exit 0', 'exit*', '*1', '*9', '*status*'],
};

/** null three times out of four: each filter is present in a quarter of the queries. */
function maybe<T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | null> {
  return fc.oneof({ arbitrary: fc.constant(null), weight: 3 }, { arbitrary: arb, weight: 1 });
}

export const arbQuery: fc.Arbitrary<EventQuery> = fc
  .record({
    dump: fc.boolean(),
    etypes: maybe(fc.subarray<EType>(['A', 'R', 'K', 'F'], { minLength: 1 })),
    from: maybe(fc.integer({ min: 990, max: 1110 })),
    span: maybe(fc.integer({ min: 0, max: 80 })),
    exitFrom: maybe(fc.integer({ min: 990, max: 1110 })),
    exitSpan: maybe(fc.integer({ min: 0, max: 80 })),
    pats: fc.oneof(fc.constant([] as PatternField[]), fc.subarray(Object.keys(PATTERNS) as PatternField[], { maxLength: 2 })).chain((fields) =>
      fc.tuple(...fields.map((f) => fc.constantFrom(...PATTERNS[f]).map((p) => [f, p] as const))),
    ),
    recnumMin: maybe(fc.integer({ min: 1, max: 40 })),
    recnumMax: maybe(fc.integer({ min: 1, max: 70 })),
    skip: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 8 })),
    limit: fc.oneof(fc.constant(32768), fc.integer({ min: 0, max: 12 })),
  })
  .map((r) => {
    let etypes = r.etypes;
    if (etypes && !r.dump) etypes = etypes.filter((t) => t !== 'F');
    return query({
      dump: r.dump,
      etypes: etypes && etypes.length ? etypes : null,
      from: r.from,
      to: r.from !== null && r.span !== null ? r.from + r.span : null,
      exitFrom: r.exitFrom,
      exitTo: r.exitFrom !== null && r.exitSpan !== null ? r.exitFrom + r.exitSpan : null,
      patterns: patterns(Object.fromEntries(r.pats)),
      recnumMin: r.recnumMin,
      recnumMax: r.recnumMax,
      skip: r.skip,
      limit: r.limit,
    });
  });

/** A query's filter part, for deletes. */
export function filterOf(q: EventQuery): EventFilter {
  const { skip: _s, byteOffset: _b, limit: _l, verbose: _v, order: _o, direction: _d, ...f } = q;
  return f;
}

/** Readable description of a query for failure messages. */
export function describeQuery(q: EventQuery): string {
  const pats = Object.fromEntries(Object.entries(q.patterns).map(([k, w]) => [k, w!.map((x) => x.source)]));
  return JSON.stringify({ ...q, patterns: pats });
}
