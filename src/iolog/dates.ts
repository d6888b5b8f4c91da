// Dates of the cached-list filters `from`/`to`, read in the configured zone. Accepted: Unix
// seconds, `yyyy-mm-dd HH:MM` (the spec's form), YYYY/MM/DD[ HH:MM[:SS]],
// YYYY-MM-DD[ HH:MM[:SS]] and ISO 8601 (with T, fraction, Z or an offset). `from` is on or
// after the start of what was given; `to` is on or before its end (a date alone means the
// whole day, HH:MM the whole minute). Kept here rather than shared with the event-log module,
// which src/iolog does not import.
import { evioError } from '../errors.js';

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Offset of `tz` from UTC at instant `ms`, in ms. */
export function zoneOffsetMs(tz: string, ms: number): number {
  if (tz === 'UTC' || tz === 'Etc/UTC') return 0;
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    formatters.set(tz, f);
  }
  const parts = f.formatToParts(new Date(Math.floor(ms / 1000) * 1000));
  const get = (t: string) => Number(parts.find((p) => p.type === t)?.value ?? 0);
  const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return asUtc - Math.floor(ms / 1000) * 1000;
}

/** A wall-clock time in `tz` as Unix ms (the later reading when a DST change repeats it). */
function wallToUtc(tz: string, wall: number): number {
  let utc = wall - zoneOffsetMs(tz, wall);
  utc = wall - zoneOffsetMs(tz, utc);
  return utc;
}

const DATE_RE = /^(\d{4})[-/](\d{1,2})[-/](\d{1,2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i;

/** Unix ms of a `from` (start of the given precision) or `to` (end of it) parameter. */
export function parseListDate(text: string, tz: string, bound: 'from' | 'to', what: string): number {
  const t = text.trim();
  if (/^\d{1,12}(\.\d{1,9})?$/.test(t)) {
    const ms = Math.floor(Number(t) * 1000);
    return bound === 'to' && !t.includes('.') ? ms + 999 : ms;
  }
  const m = DATE_RE.exec(t);
  if (!m) throw evioError('IOLOG_BAD_DATE', `${what} "${t.slice(0, 60)}" is not a date (use yyyy-mm-dd HH:MM, YYYY/MM/DD[ HH:MM[:SS]], ISO 8601 or Unix seconds)`);
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const hasTime = m[4] !== undefined;
  const [h, mi, s] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
  const frac = m[7] ? Number(m[7].padEnd(3, '0').slice(0, 3)) : 0;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) {
    throw evioError('IOLOG_BAD_DATE', `${what} "${t}" has a field out of range`);
  }
  const wall = Date.UTC(y, mo - 1, d, h, mi, s, frac);
  if (new Date(wall).getUTCDate() !== d) throw evioError('IOLOG_BAD_DATE', `${what} "${t}": there is no such day`);
  let ms: number;
  const zone = m[8];
  if (zone) {
    if (zone.toUpperCase() === 'Z') ms = wall;
    else {
      const sign = zone[0] === '-' ? -1 : 1;
      const digits = zone.slice(1).replace(':', '');
      ms = wall - sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
    }
  } else {
    ms = wallToUtc(tz, wall);
  }
  if (bound === 'from') return ms;
  // The end of the precision given: day, minute, second (a fraction is exact).
  if (!hasTime) return ms + 86_400_000 - 1;
  if (m[6] === undefined) return ms + 60_000 - 1;
  if (m[7] === undefined) return ms + 999;
  return ms;
}
