// Dates in queries and answers. Query dates are read in the configured zone by the one parser
// of src/common/time-parse.ts; `epoch` renders
// Unix seconds as `YYYY-MM-DD HH:MM:SS` in that zone. UTC takes a fast path with no Intl call;
// other zones cache the zone offset per hour, so rendering a million records stays cheap.
import { zoneOffsetMs } from '../common/time-zone.js';
import { parseTimeBound } from '../common/time-parse.js';

export { wallClockToUnix, zoneOffsetMs } from '../common/time-zone.js';
export { MAX_UNIX_SECONDS } from '../common/time-parse.js';

const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`);

function utcParts(ms: number): [number, number, number, number, number, number] {
  const d = new Date(ms);
  return [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds()];
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

/**
 * Reads a query date (the grammar of src/common/time-parse.ts). With `endOfRange`, the bound
 * covers the whole of the last unit written, so `to=2026/11/22` includes the whole day. `now`
 * (Unix seconds) is the request's one clock reading, for the relative forms.
 */
export function parseQueryDate(value: string, tz: string, param: string, endOfRange = false, now = Date.now() / 1000): number {
  return parseTimeBound(value, tz, param, endOfRange, now);
}

/** verbose=1: the zone-rendered time as ISO 8601 with its offset (`epoch_iso`, `exittime_iso`). */
export { formatIsoInZone } from '../common/time-zone.js';
