// Random logs, queries and filters for comparing the SQL stores with the reference store. They
// aim at the places SQL and memory could disagree: NULLs (absent fields) in filters and order,
// ties in the order key, code-point order of unicode (astral vs BMP), LIKE/GLOB metacharacters,
// finishes without exitstatus, finishes before or without their accepts, several accepts
// sharing one finish, exit filters on merged and stored values, etype F with and without dump.
import fc from 'fast-check';
import { compileWildcard, type Wildcard } from '../../../src/common/wildcard.js';
import { ORDER_FIELDS, PATTERN_FIELDS, type EType, type EventFilter, type EventQuery, type PatternField, type StoredEvent } from '../../../src/eventlog/types.js';

export const T0 = 1767225600;

const TEXT = ['alice', 'Alice', 'bob', 'b%b', 'b_b', 'x[1]', 'a\\b', 'é', 'ﬀ', '😀x', 'zz', '', 'a b', '[]', '-^'];
const STATUSES = ['Command finished with exit status 0', 'Command finished with exit status 1', 'Command killed by signal 9', ''];
const UIDS = ['u1', 'u2', 'u3', 'u4', 'ü5', 'u%6'];

const optionalText = fc.option(fc.constantFrom(...TEXT), { nil: undefined, freq: 4 });

const recordArb = fc.record({
  uid: fc.constantFrom(...UIDS),
  etype: fc.constantFrom<EType>('A', 'A', 'K', 'R', 'F', 'F'),
  dt: fc.constantFrom(0, 0, 1, 2.5, 7, 0.125, 1 / 3),
  submituser: optionalText,
  submithost: optionalText,
  runuser: optionalText,
  runhost: optionalText,
  runcommand: optionalText,
  status: fc.option(fc.constantFrom(...STATUSES), { nil: undefined, freq: 5 }),
  gap: fc.integer({ min: 1, max: 3 }),
  note: fc.option(fc.constantFrom({ nested: [1, 'two', null] }, 'text', 42), { nil: undefined, freq: 6 }),
});

/** A log in recnum order (recnums with gaps, times non-decreasing with ties). */
export const logArb = fc.array(recordArb, { maxLength: 50, size: 'max' }).map((items) => {
  let t = T0;
  let recnum = 0;
  return items.map((x): StoredEvent => {
    t += x.dt;
    recnum += x.gap;
    const rec: StoredEvent = { recnum, uniqueid: x.uid, etype: x.etype, time: t };
    for (const f of ['submituser', 'submithost', 'runuser', 'runhost', 'runcommand'] as const) if (x[f] !== undefined) rec[f] = x[f];
    if ((x.etype === 'F' || x.etype === 'R') && x.status !== undefined) rec.exitstatus = x.status;
    if (x.note !== undefined) rec.note = x.note;
    return rec;
  });
});

const TEXT_PATTERNS = ['*', '?*', '[!z]*', '*[a-z]*', '*[!a]*', 'a*', '*b*', '?ob', '[ab]*', '[!a]*', '[^a-z]*', '[a-z]*', 'b\\%b', 'b%b', 'b_b', 'b?b', 'x\\[1]', 'x[[]1]', '[]]*', '*[]b]*', '*😀*', '?x', '[é-😀]*', '*-^', '\\[]', 'A*', '*e'];
const UID_PATTERNS = ['u?', 'u[0-9]', 'u[!1-3]', 'ü*', 'u%*', 'u\\%6', '*', '[uü]*', '?%?', '*[2-4]'];
const STATUS_PATTERNS = ['*', '*status 0', 'Command*', '*[19]', 'Command finished with exit status ?', '*signal*', '[!C]*', '?*'];
const valuePattern = (values: string[], patterns: string[]) => fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...patterns) }, { weight: 1, arbitrary: fc.constantFrom(...values.filter((v) => v !== '')) });
const patternFor = (field: PatternField): fc.Arbitrary<Wildcard> =>
  (field === 'uniqueid' ? valuePattern(UIDS, UID_PATTERNS) : field === 'exitstatus' ? valuePattern(STATUSES, STATUS_PATTERNS) : valuePattern(TEXT, TEXT_PATTERNS)).map((p) => compileWildcard(p));
const patternEntry = fc.constantFrom<PatternField>(...PATTERN_FIELDS).chain((f) => patternFor(f).map((w) => [f, w] as const));

const timeArb = fc.integer({ min: -2, max: 90 }).map((d) => T0 + d / 2);

/** Present about one time in `every` (fc.option's freq is the other way round: the odds of nil). */
function sometimes<T>(arb: fc.Arbitrary<T>, every: number): fc.Arbitrary<T | null> {
  return fc.oneof({ weight: every - 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: arb });
}

export const filterArb: fc.Arbitrary<EventFilter> = fc
  .record({
    dump: fc.boolean(),
    etypes: sometimes(fc.subarray<EType>(['A', 'F', 'K', 'R'], { minLength: 1 }), 3),
    from: sometimes(timeArb, 5),
    to: sometimes(timeArb, 5),
    exitFrom: sometimes(timeArb, 5),
    exitTo: sometimes(timeArb, 5),
    recnumMin: sometimes(fc.integer({ min: 0, max: 60 }), 6),
    recnumMax: sometimes(fc.integer({ min: 0, max: 120 }), 6),
    patterns: fc.oneof(
      { weight: 3, arbitrary: fc.constant([]) },
      { weight: 2, arbitrary: fc.array(patternEntry, { minLength: 1, maxLength: 1 }) },
      { weight: 1, arbitrary: fc.array(patternEntry, { minLength: 2, maxLength: 3 }) },
    ),
  })
  // Entries naming the same field are its alternatives (a repeated parameter: OR).
  .map((f) => {
    const patterns: Partial<Record<PatternField, Wildcard[]>> = {};
    for (const [field, w] of f.patterns) (patterns[field] ??= []).push(w);
    return { ...f, patterns };
  });

export const queryArb: fc.Arbitrary<EventQuery> = fc
  .record({
    filter: filterArb,
    skip: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 12 })),
    limit: fc.oneof(fc.integer({ min: 0, max: 25 }), fc.constant(32768)),
    order: fc.constantFrom(...ORDER_FIELDS),
    direction: fc.constantFrom<'asc' | 'desc'>('asc', 'desc'),
  })
  .map(({ filter, ...rest }) => ({ ...filter, ...rest, byteOffset: 0, verbose: false }));

/** Every row as stored, in recnum order. */
export const DUMP_ALL: EventQuery = {
  etypes: null, from: null, to: null, exitFrom: null, exitTo: null, patterns: {}, recnumMin: null, recnumMax: null,
  dump: true, skip: 0, byteOffset: 0, limit: Number.MAX_SAFE_INTEGER, verbose: true, order: 'recnum', direction: 'asc',
};
/** Every row with the finish merge. */
export const MERGED_ALL: EventQuery = { ...DUMP_ALL, dump: false };
/** A delete of everything (what all=1 sends). */
export const DELETE_ALL: EventFilter = { etypes: null, from: null, to: null, exitFrom: null, exitTo: null, patterns: {}, recnumMin: null, recnumMax: null, dump: true };

/** A query, printable in a failure report (patterns by their source). */
export function describeQuery(q: EventFilter): Record<string, unknown> {
  return { ...q, patterns: Object.fromEntries(Object.entries(q.patterns).map(([k, w]) => [k, w!.map((x) => x.source)])) };
}
