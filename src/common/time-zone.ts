// Zone arithmetic shared by the time parser and every renderer of times: the offset of an IANA
// zone at an instant, a wall-clock time in a zone as an instant, and ISO 8601 text with the
// offset spelled out. The offset is cached per zone and UTC hour, so rendering a million
// records stays cheap; UTC takes a fast path with no Intl call.

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

/**
 * Unix seconds of a wall-clock time in `tz` (the earlier instant when a DST fold repeats it).
 * Fields out of range carry over as in Date.UTC (day 0 is the last day of the month before).
 */
export function wallClockToUnix(y: number, mo: number, d: number, h: number, mi: number, s: number, tz: string): number {
  const guess = Date.UTC(y, mo - 1, d, h, mi, s);
  // Two passes settle the offset across a DST change.
  let t = guess - zoneOffsetMs(tz, guess);
  t = guess - zoneOffsetMs(tz, t);
  return t / 1000;
}

/** The calendar date of Unix seconds in `tz`: [year, month 1-12, day]. */
export function localDate(seconds: number, tz: string): [number, number, number] {
  const ms = Math.floor(seconds * 1000);
  const d = new Date(ms + zoneOffsetMs(tz, ms));
  return [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()];
}

const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`);

/** ISO 8601 with the zone's offset: `2026-01-01T01:00:00+01:00` (fractions truncated). */
export function formatIsoInZone(seconds: number, tz: string): string {
  const ms = Math.floor(seconds) * 1000;
  const off = zoneOffsetMs(tz, ms);
  const d = new Date(ms + off);
  const abs = Math.abs(off) / 60_000;
  const zone = `${off < 0 ? '-' : '+'}${pad2(Math.floor(abs / 60))}:${pad2(abs % 60)}`;
  const y = d.getUTCFullYear();
  const year = y >= 0 && y <= 9999 ? String(y).padStart(4, '0') : (y < 0 ? '-' : '+') + String(Math.abs(y)).padStart(6, '0');
  return `${year}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}T${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}${zone}`;
}
