// The one grammar of a time parameter, for every call of both engines (event `from`, `to`,
// `exittime_from`, `exittime_to`; the I/O-log session list's `from`, `to`; the purge job's `to`):
//
//   1767225600[.5]              Unix seconds
//   2026-01-01[ 10:00[:05[.25]]] or 2026/01/01 …, with T for the space: a wall clock in the
//                               configured zone, or in the zone given by a Z / ±HH:MM suffix
//   now, today, yesterday       the request's clock; today and yesterday are calendar days
//                               in the configured zone
//   -30s -30m -2h -7d -1w       that long before now (m is minutes; d is 24 hours)
//
// A lower bound starts where the text starts. An upper bound covers the whole of the last unit
// written: a date the whole day, HH:MM the whole minute, HH:MM:SS and whole Unix seconds the
// whole second, today and yesterday the whole day; a fraction, now and -N… are exact instants.
// Relative forms are computed from one clock reading that the caller takes once per request.
// Every misspelling is QUERY_BAD_DATE, whichever engine asks.
import { evioError } from '../errors.js';
import { localDate, wallClockToUnix } from './time-zone.js';

/** The last instant of ECMAScript's date range (8.64e15 ms), in seconds. */
export const MAX_UNIX_SECONDS = 8_640_000_000_000;

/** A parsed time: its first instant, and where the unit it names ends (exclusive), if any. */
export interface ParsedTime {
  /** Unix seconds. */
  at: number;
  /** Unix seconds just past the unit the text names (day, minute, second); null when exact. */
  end: number | null;
}

const DATE_RE = /^(\d{4})([/-])(\d{1,2})\2(\d{1,2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s*(Z|[+-]\d{2}:?\d{2})?)?$/i;
const RELATIVE_RE = /^-(\d{1,9})\s*([smhdw])$/i;
const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

export const TIME_GRAMMAR = 'Unix seconds, YYYY-MM-DD[ HH:MM[:SS]] (or with / or T, optionally ending Z or ±HH:MM), now, today, yesterday, or -N followed by s, m, h, d or w';

function bad(param: string, value: string, why = 'is not a time'): never {
  throw evioError('QUERY_BAD_DATE', `${param}="${value.slice(0, 60)}" ${why}: use ${TIME_GRAMMAR}`);
}

/** Reads a time parameter; `now` is the request's clock reading, in Unix seconds. */
export function parseTime(value: string, tz: string, param: string, now: number): ParsedTime {
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) {
    // Unix seconds past the range of a date (which also keeps them far below 2^53, where
    // whole seconds stop being exact) could not be compared or shown faithfully.
    const t = Number(v);
    if (!(t <= MAX_UNIX_SECONDS)) {
      throw evioError('QUERY_TIME_OUT_OF_RANGE', `${param}="${v.slice(0, 40)}" is past ${MAX_UNIX_SECONDS} Unix seconds (the year 275760), the last time a date can hold`);
    }
    return { at: t, end: v.includes('.') ? null : t + 1 };
  }
  const word = v.toLowerCase();
  if (word === 'now') return { at: now, end: null };
  if (word === 'today' || word === 'yesterday') {
    const [y, mo, d] = localDate(now, tz);
    const day = word === 'today' ? d : d - 1;
    return { at: wallClockToUnix(y, mo, day, 0, 0, 0, tz), end: wallClockToUnix(y, mo, day + 1, 0, 0, 0, tz) };
  }
  const rel = RELATIVE_RE.exec(v);
  if (rel) return { at: now - Number(rel[1]) * UNIT_SECONDS[rel[2]!.toLowerCase()]!, end: null };
  const m = DATE_RE.exec(v);
  if (!m) bad(param, value);
  const y = Number(m[1]);
  const mo = Number(m[3]);
  const d = Number(m[4]);
  const hasTime = m[5] !== undefined;
  const h = hasTime ? Number(m[5]) : 0;
  const mi = hasTime ? Number(m[6]) : 0;
  const hasSec = m[7] !== undefined;
  const s = hasSec ? Number(m[7]) : 0;
  const frac = m[8] !== undefined ? Number(`0.${m[8]}`) : 0;
  const valid = mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && h <= 23 && mi <= 59 && s <= 59 && new Date(Date.UTC(y, mo - 1, d)).getUTCDate() === d;
  if (!valid) bad(param, value, 'is not a date (a field is out of range)');
  const zone = m[9];
  let at: number;
  let dayEnd: number;
  if (zone) {
    const offset = zone.toUpperCase() === 'Z' ? 0 : (zone[0] === '-' ? -1 : 1) * (Number(zone.slice(1, 3)) * 3600 + Number(zone.slice(-2)) * 60);
    at = Date.UTC(y, mo - 1, d, h, mi, s) / 1000 - offset;
    dayEnd = Date.UTC(y, mo - 1, d + 1) / 1000 - offset;
  } else {
    at = wallClockToUnix(y, mo, d, h, mi, s, tz);
    dayEnd = hasTime ? 0 : wallClockToUnix(y, mo, d + 1, 0, 0, 0, tz);
  }
  if (m[8] !== undefined) return { at: at + frac, end: null };
  return { at, end: !hasTime ? dayEnd : hasSec ? at + 1 : at + 60 };
}

/**
 * A bound in Unix seconds: a lower bound is the first instant; an upper bound the last instant
 * of its unit (one microsecond before the next unit, the resolution event times are kept at).
 */
export function parseTimeBound(value: string, tz: string, param: string, upper: boolean, now: number): number {
  const t = parseTime(value, tz, param, now);
  return upper && t.end !== null ? t.end - 1e-6 : t.at;
}

/** A bound in whole Unix milliseconds (the session list's createtime), with the same meaning. */
export function parseTimeBoundMs(value: string, tz: string, param: string, upper: boolean, now: number): number {
  const t = parseTime(value, tz, param, now);
  if (!upper) return Math.ceil(Math.round(t.at * 1e6) / 1e3);
  return t.end !== null ? Math.round(t.end * 1000) - 1 : Math.floor(Math.round(t.at * 1e6) / 1e3);
}
