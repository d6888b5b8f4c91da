// One table of query cases, run against every adapter. Expectations are written by hand from
// FIXTURE: recnums in answer order, or the error code. `on` limits a case to flat files or to
// databases where the REST parameters themselves differ (paging, order). A repeated parameter
// is a list. Relative times are read against CONFORMANCE_NOW, the clock every case is given.
import { T0 } from './fixture.js';

/** The request clock of every case: 2026-01-03 03:00:00 UTC (after the last fixture record). */
export const CONFORMANCE_NOW = T0 + 183_600;

export interface QueryCase {
  name: string;
  params: Record<string, string | string[]>;
  expect: number[] | { error: number };
  on?: 'ff' | 'db';
  /** Flat files: set `offset` to the offset returned for this recnum first. */
  offsetOf?: number;
  /** Also check the merged exit status of these recnums. */
  exitstatus?: Record<number, string | null>;
}

const ALL_MERGED = [1, 2, 3, 5, 6, 8, 10, 12, 14];

export const QUERY_CASES: QueryCase[] = [
  { name: 'default: accepts, keystrokes and rejects, finishes merged', params: {}, expect: ALL_MERGED, exitstatus: { 1: 'Command finished with exit status 0', 2: 'Command finished with exit status 1', 3: 'Request rejected: command not allowed', 6: 'Command killed by signal 9', 8: null, 10: null, 14: 'Command finished with exit status 2' } },
  { name: 'dump=1 returns every record as stored', params: { dump: '1' }, expect: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15], exitstatus: { 1: null, 4: 'Command finished with exit status 0', 3: 'Request rejected: command not allowed' } },
  { name: 'etype=A', params: { etype: 'A' }, expect: [1, 5, 8, 10, 14] },
  { name: 'etype=K', params: { etype: 'K' }, expect: [2, 6] },
  { name: 'etype by name', params: { etype: 'Keystroke' }, expect: [2, 6] },
  { name: 'etype comma list, any case', params: { etype: 'a,Reject' }, expect: [1, 3, 5, 8, 10, 12, 14] },
  { name: 'etype=F with dump=1', params: { etype: 'F', dump: '1' }, expect: [4, 7, 9, 11, 13, 15] },
  { name: 'etype=F without dump is an error', params: { etype: 'F' }, expect: { error: 1104 } },
  { name: 'unknown etype', params: { etype: 'X' }, expect: { error: 1103 } },
  { name: 'exact user', params: { submituser: 'alice' }, expect: [1, 6, 14] },
  { name: 'prefix wildcard', params: { submituser: 'a*' }, expect: [1, 6, 14] },
  { name: 'infix wildcard', params: { submituser: '*o*' }, expect: [2, 3, 5, 12] },
  { name: '? matches one unicode character', params: { submituser: 'd?vid' }, expect: [8] },
  { name: 'escaped metacharacters', params: { runcommand: '/opt/odd\\[1\\]/run\\*me' }, expect: [14] },
  { name: 'bracketed metacharacters', params: { runcommand: '/opt/odd[[]1]/run*' }, expect: [14] },
  { name: 'character class at the end', params: { runcommand: '*[ls]' }, expect: [5, 10] },
  { name: 'negated class', params: { submithost: '[!w]*' }, expect: [2, 6] },
  { name: 'host filter', params: { submithost: 'web1' }, expect: [1, 3, 8, 10, 14] },
  { name: 'runhost filter', params: { runhost: 'web2' }, expect: [5, 12] },
  { name: 'two filters combine with AND', params: { runuser: 'root', submithost: 'db1' }, expect: [6] },
  // A repeated wildcard parameter: any of its values (OR), still AND-ed with the other filters.
  { name: 'repeated exact values (IN)', params: { runuser: ['root', 'postgres'] }, expect: [1, 2, 3, 6, 8, 10, 12, 14] },
  { name: 'repeated wildcards', params: { submituser: ['a*', 'b*'] }, expect: [1, 2, 6, 12, 14] },
  { name: 'repeated, one with a class', params: { runcommand: ['*[ls]', '/bin/bash'] }, expect: [2, 5, 10] },
  { name: 'repeated exact and wildcard', params: { uniqueid: ['u1', 'u1?'] }, expect: [1, 10, 12, 14] },
  { name: 'repeated merged exit status', params: { exitstatus: ['*status 0', 'Request*'] }, expect: [1, 3, 5, 12] },
  { name: 'repeated field AND another field', params: { submithost: ['web1', 'web2'], runuser: 'root' }, expect: [1, 3, 8, 10, 12, 14] },
  { name: 'an empty alternative is ignored', params: { submituser: ['alice', ''] }, expect: [1, 6, 14] },
  { name: 'repeated etype', params: { etype: ['A', 'R'] }, expect: [1, 3, 5, 8, 10, 12, 14] },
  { name: 'a repeated non-list parameter is refused', params: { limit: ['1', '2'] }, expect: { error: 1009 } },
  { name: 'case-sensitive', params: { submituser: 'Alice' }, expect: [] },
  { name: 'merged exit status', params: { exitstatus: '*status 0' }, expect: [1, 5] },
  { name: 'reject exit status', params: { exitstatus: 'Request*' }, expect: [3, 12] },
  { name: 'exitstatus=* means any known status', params: { exitstatus: '*' }, expect: [1, 2, 3, 5, 6, 12, 14] },
  { name: 'exit status on stored values with dump=1', params: { exitstatus: '*status 0', dump: '1' }, expect: [4, 11, 13] },
  { name: 'from a date', params: { from: '2026/01/02' }, expect: [5, 6, 8, 10, 12, 14] },
  { name: 'to a date includes the whole day', params: { to: '2026/01/01' }, expect: [1, 2, 3] },
  { name: 'minute bounds, dashed dates', params: { from: '2026-01-02 00:01', to: '2026-01-02 23:59' }, expect: [6, 8] },
  { name: 'Unix seconds', params: { from: '1767312000' }, expect: [5, 6, 8, 10, 12, 14] },
  { name: 'ISO 8601', params: { from: '2026-01-02T00:00:00Z', to: '2026-01-02T01:00:00+01:00' }, expect: [5] },
  { name: 'seconds precision, inclusive', params: { from: '2026/01/02 00:01:00', to: '2026/01/02 00:02:00' }, expect: [6, 8] },
  { name: 'exit time from', params: { exittime_from: '2026/01/02' }, expect: [2, 5, 6, 14] },
  { name: 'exit time to', params: { exittime_to: '2026/01/01' }, expect: [1] },
  { name: 'bad month', params: { from: '2026/13/01' }, expect: { error: 1105 } },
  { name: 'not a date', params: { to: 'last tuesday' }, expect: { error: 1105 } },
  // Relative times, from the one clock reading of the request (CONFORMANCE_NOW).
  { name: 'from today (a calendar day in the zone)', params: { from: 'today' }, expect: [10, 12, 14] },
  { name: 'yesterday as both bounds is the whole day', params: { from: 'yesterday', to: 'yesterday' }, expect: [5, 6, 8] },
  { name: 'from -2h', params: { from: '-2h' }, expect: [14] },
  { name: 'from -30h', params: { from: '-30h' }, expect: [5, 6, 8, 10, 12, 14] },
  { name: 'to -3000m (minutes) is an exact instant', params: { to: '-3000m' }, expect: [1, 2, 3] },
  { name: 'to now', params: { to: 'now' }, expect: ALL_MERGED },
  { name: 'to -1w', params: { to: '-1w' }, expect: [] },
  { name: 'exit time to yesterday', params: { exittime_to: 'yesterday' }, expect: [1, 2, 6] },
  { name: 'relative range inverted', params: { from: '-1h', to: '-2h' }, expect: { error: 1115 } },
  { name: 'unknown relative unit', params: { from: '-7x' }, expect: { error: 1105 } },
  { name: 'relative without its minus', params: { from: '7d' }, expect: { error: 1105 } },
  { name: 'Feb 30', params: { from: '2026-02-30' }, expect: { error: 1105 } },
  { name: 'inverted range', params: { from: '2026/01/03', to: '2026/01/02' }, expect: { error: 1115 } },
  { name: 'uniqueid wildcard', params: { uniqueid: 'u1*' }, expect: [1, 10, 12, 14] },
  { name: 'end recnum', params: { end: '5' }, expect: [1, 2, 3, 5] },
  { name: 'limit', params: { limit: '2' }, expect: [1, 2] },
  { name: 'limit=0', params: { limit: '0' }, expect: [] },
  { name: 'verbose keeps the default answer set', params: { verbose: '1' }, expect: ALL_MERGED },
  { name: 'negative limit', params: { limit: '-1' }, expect: { error: 1106 } },
  { name: 'non-numeric end', params: { end: 'ten' }, expect: { error: 1106 } },
  { name: 'bad flag', params: { verbose: '2' }, expect: { error: 1110 } },
  { name: 'unknown parameter', params: { colour: 'red' }, expect: { error: 1114 } },
  { name: 'over-long pattern', params: { runcommand: 'x'.repeat(1025) }, expect: { error: 1113 } },
  // Flat-file paging: start skips matches, offset resumes after a returned record.
  { name: 'ff start skips matching records', params: { start: '2', limit: '3' }, expect: [3, 5, 6], on: 'ff' },
  { name: 'ff offset resumes after a record', params: {}, offsetOf: 3, expect: [5, 6, 8, 10, 12, 14], on: 'ff' },
  { name: 'ff offset with filters and start', params: { submithost: 'web1', start: '1' }, offsetOf: 3, expect: [10, 14], on: 'ff' },
  { name: 'ff offset not at a record boundary', params: { offset: '1' }, expect: { error: 1112 }, on: 'ff' },
  { name: 'ff order is refused', params: { order: 'recnum' }, expect: { error: 1107 }, on: 'ff' },
  // Database paging: offset skips matches, start/end bound recnums; order and direction.
  { name: 'db offset skips matching records', params: { offset: '2', limit: '3' }, expect: [3, 5, 6], on: 'db' },
  { name: 'db start..end recnums', params: { start: '5', end: '10' }, expect: [5, 6, 8, 10], on: 'db' },
  { name: 'db start after end', params: { start: '6', end: '5' }, expect: { error: 1115 }, on: 'db' },
  { name: 'db order by user, ties by recnum', params: { order: 'submituser' }, expect: [1, 6, 14, 2, 12, 5, 8, 10, 3], on: 'db' },
  { name: 'db order by exit time desc, nulls last', params: { order: 'exittime', orderdirection: 'desc' }, expect: [14, 5, 6, 2, 1, 3, 8, 10, 12], on: 'db' },
  { name: 'db order by exit time asc, nulls first', params: { order: 'exittime', orderdirection: 'asc', limit: '5' }, expect: [3, 8, 10, 12, 1], on: 'db' },
  { name: 'db order by epoch desc with offset', params: { order: 'epoch', orderdirection: 'DESC', offset: '1', limit: '3' }, expect: [12, 10, 8], on: 'db' },
  { name: 'db order by exit status', params: { order: 'exitstatus', etype: 'A,R' }, expect: [8, 10, 1, 5, 14, 3, 12], on: 'db' },
  { name: 'db unknown order field', params: { order: 'password' }, expect: { error: 1108 }, on: 'db' },
  { name: 'db order injection is refused', params: { order: 'recnum; DROP TABLE events' }, expect: { error: 1108 }, on: 'db' },
  { name: 'db bad direction', params: { orderdirection: 'up' }, expect: { error: 1109 }, on: 'db' },
];

export interface DeleteCase {
  name: string;
  params: Record<string, string | string[]>;
  /** Recnums left afterwards (dump=1 view), or the error. */
  remaining: number[] | { error: number };
  deleted?: number;
  /** After the delete, the merged exit status of these recnums. */
  exitstatus?: Record<number, string | null>;
}

export const DELETE_CASES: DeleteCase[] = [
  { name: 'no filter is refused', params: {}, remaining: { error: 1111 } },
  { name: 'dump alone is not a filter', params: { dump: '1' }, remaining: { error: 1111 } },
  { name: 'all=1 removes everything', params: { all: '1' }, remaining: [], deleted: 15 },
  { name: 'accepts go with their finishes', params: { etype: 'A', submituser: 'alice' }, remaining: [2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 13], deleted: 4 },
  { name: 'repeated user: either one, with finishes', params: { submituser: ['eve', 'carol'] }, remaining: [1, 2, 3, 4, 6, 7, 8, 9, 11, 12, 14, 15], deleted: 3 },
  { name: 'by relative time', params: { to: '-3000m' }, remaining: [5, 6, 8, 9, 10, 11, 12, 13, 14, 15], deleted: 5 },
  { name: 'by merged exit status', params: { exitstatus: '*status 0' }, remaining: [2, 3, 6, 7, 8, 9, 10, 11, 12, 14, 15], deleted: 4 },
  { name: 'by time: matching accepts take their finishes, even later ones', params: { to: '2026/01/01' }, remaining: [5, 6, 8, 9, 10, 11, 12, 13, 14, 15], deleted: 5 },
  { name: 'finishes only (dump=1) leave their accepts unfinished', params: { etype: 'F', dump: '1', exitstatus: '*status 0' }, remaining: [1, 2, 3, 5, 6, 7, 8, 9, 10, 12, 14, 15], deleted: 3, exitstatus: { 1: null, 5: null, 2: 'Command finished with exit status 1' } },
  { name: 'nothing matches', params: { submituser: 'nobody-at-all' }, remaining: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15], deleted: 0 },
];
