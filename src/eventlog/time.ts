// Dates in queries and answers. Query dates are read in the configured zone; `epoch` renders
// Unix seconds as `YYYY-MM-DD HH:MM:SS` in that zone. UTC takes a fast path with no Intl call;
// other zones cache the zone offset per hour, so rendering a million records stays cheap.
import { evioError } from '../errors.js';

const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`);

function utcParts(ms: number): [number, number, number, number, number, number] {
  const d = new Date(ms);
  return [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds()];
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(tz, f);
  }
  return f;
}

const offsetCache = new Map<string, number>();
/** Offset of `tz` from UTC at instant `ms`, in ms (cached per zone and UTC hour). */
export function zoneOffsetMs(tz: string, ms: number): number {
  if (tz === 'UTC' || tz === 'Etc/UTC') return 0;
  const hour = Math.floor(ms / 3_600_000);
  const key = `${tz}\u0000${hour}`;
  let off = offsetCache.get(key);
  if (off === undefined) {
    const parts = formatter(tz).formatToParts(new Date(hour * 3_600_000));
    const get = (t: string) => Number(parts.find((p) => p.type === t)!.value);
    const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
    off = asUtc - hour * 3_600_000;
    if (offsetCache.size > 100_000) offsetCache.clear();
    offsetCache.set(key, off);
  }
  return off;
}

// Records come in time order, so consecutive ones nearly always share their local hour: its
// `YYYY-MM-DD HH:` is built once (one Date) and only minutes and seconds are added per record.
let lastHour = Number.NaN;
let lastHourPrefix = '';

/** `YYYY-MM-DD HH:MM:SS` of Unix seconds in `tz` (fractions truncated). */
export function formatEpoch(seconds: number, tz: string): string {
  const ms = Math.floor(seconds) * 1000;
  const local = ms + zoneOffsetMs(tz, ms);
  const hour = Math.floor(local / 3_600_000);
  if (hour !== lastHour) {
    const [y, mo, d, h] = utcParts(hour * 3_600_000);
    lastHourPrefix = `${y}-${pad2(mo)}-${pad2(d)} ${pad2(h)}:`;
    lastHour = hour;
  }
  const inHour = (local - hour * 3_600_000) / 1000;
  const mi = Math.floor(inHour / 60);
  return `${lastHourPrefix}${pad2(mi)}:${pad2(inHour - mi * 60)}`;
}

/** `[YYYY/MM/DD, HH:MM:SS]` for the legacy listing. */
export function formatLegacyDateTime(seconds: number, tz: string): [string, string] {
  const ms = Math.floor(seconds) * 1000;
  const [y, mo, d, h, mi, s] = utcParts(ms + zoneOffsetMs(tz, ms));
  return [`${y}/${pad2(mo)}/${pad2(d)}`, `${pad2(h)}:${pad2(mi)}:${pad2(s)}`];
}

/** Unix seconds of a wall-clock time in `tz` (the earlier instant when a DST fold repeats it). */
export function wallClockToUnix(y: number, mo: number, d: number, h: number, mi: number, s: number, tz: string): number {
  const guess = Date.UTC(y, mo - 1, d, h, mi, s);
  // Two passes settle the offset across a DST change.
  let t = guess - zoneOffsetMs(tz, guess);
  t = guess - zoneOffsetMs(tz, t);
  return t / 1000;
}

/** The last instant of ECMAScript's date range (8.64e15 ms), in seconds. */
export const MAX_UNIX_SECONDS = 8_640_000_000_000;

const LOCAL_RE = /^(\d{4})([/-])(\d{1,2})\2(\d{1,2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2}))?)?$/;
const ISO_RE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

/**
 * Reads a query date: Unix seconds (fraction allowed), `YYYY/MM/DD[ HH:MM[:SS]]`,
 * `YYYY-MM-DD[ HH:MM[:SS]]` (also with `T`) in `tz`, or ISO 8601 with a zone. With `endOfRange`,
 * a date without a time means the end of that day and a time without seconds the end of that
 * minute, so `to=2026/11/22` includes the whole day.
 */
export function parseQueryDate(value: string, tz: string, param: string, endOfRange = false): number {
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) {
    // Unix seconds past the range of a date (which also keeps them far below 2^53, where
    // whole seconds stop being exact) could not be compared or shown faithfully.
    const t = Number(v);
    if (!(t <= MAX_UNIX_SECONDS)) {
      throw evioError('QUERY_TIME_OUT_OF_RANGE', `${param}="${v.slice(0, 40)}" is past ${MAX_UNIX_SECONDS} Unix seconds (the year 275760), the last time a date can hold`);
    }
    return t;
  }
  const iso = ISO_RE.exec(v);
  if (iso) {
    const ms = Date.parse(v);
    if (Number.isFinite(ms)) return ms / 1000;
  }
  const m = LOCAL_RE.exec(v);
  if (m) {
    const y = Number(m[1]);
    const mo = Number(m[3]);
    const d = Number(m[4]);
    const hasTime = m[5] !== undefined;
    const h = hasTime ? Number(m[5]) : 0;
    const mi = hasTime ? Number(m[6]) : 0;
    const hasSec = m[7] !== undefined;
    const s = hasSec ? Number(m[7]) : 0;
    const valid =
      mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && h <= 23 && mi <= 59 && s <= 59 &&
      new Date(Date.UTC(y, mo - 1, d)).getUTCDate() === d;
    if (valid) {
      const t = wallClockToUnix(y, mo, d, h, mi, s, tz);
      if (!endOfRange || hasSec) return t;
      // The last instant of the day or minute (fractions included).
      return (hasTime ? t + 60 : wallClockToUnix(y, mo, d + 1, 0, 0, 0, tz)) - 1e-6;
    }
  }
  throw evioError('QUERY_BAD_DATE', `${param}="${value}" is not a date: use Unix seconds, YYYY/MM/DD[ HH:MM[:SS]], YYYY-MM-DD[ HH:MM[:SS]] or ISO 8601`);
}
