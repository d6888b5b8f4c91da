// The strftime(3) conversions an I/O log path template may use (sudoers(5): "any strftime(3)
// escape"), rendered for the session's submit time in the C locale, as sudo renders them with
// localtime() in its own process. Implemented here, not borrowed: %a %A %b %B %c %C %d %D %e %F
// %G %g %h %H %I %j %k %l %m %M %p %P %r %R %s %S %T %u %U %V %w %W %x %X %y %Y %z %Z. Not
// supported (a template using them is refused): %n and %t (a newline or tab in a path), %+,
// the E and O modifiers and glibc's padding flags (%-d, %_d, %0d, %^a).
import { zoneOffsetMs } from '../../common/time-zone.js';

/** Conversion letters this module renders. */
export const STRFTIME_CONVERSIONS = 'aAbBcCdDeFGghHIjklmMpPrRsSTuUVwWxXyYzZ';

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** The broken-down time (struct tm) of an instant in a zone. */
export interface BrokenDown {
  year: number;
  /** 0-11 */
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** 0 = Sunday */
  wday: number;
  /** 0-365 */
  yday: number;
  /** Minutes east of UTC. */
  offsetMin: number;
  /** The zone (undefined: the process's local zone), for %Z. */
  tz: string | undefined;
  /** Unix seconds. */
  epoch: number;
}

const zoneNames = new Map<string, Intl.DateTimeFormat>();
function zoneAbbreviation(ms: number, tz: string | undefined): string {
  const key = tz ?? '';
  let f = zoneNames.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: tz, timeZoneName: 'short' });
    zoneNames.set(key, f);
  }
  return f.formatToParts(new Date(ms)).find((p) => p.type === 'timeZoneName')?.value ?? '';
}

/** The broken-down time of Unix seconds `sec` in `tz` (undefined: the process's local zone). */
export function brokenDown(sec: number, tz?: string): BrokenDown {
  const ms = sec * 1000;
  let offsetMin: number;
  let d: Date;
  let year: number, month: number, day: number, hour: number, minute: number, second: number, wday: number;
  if (tz === undefined) {
    d = new Date(ms);
    offsetMin = -d.getTimezoneOffset();
    [year, month, day, hour, minute, second, wday] = [d.getFullYear(), d.getMonth(), d.getDate(), d.getHours(), d.getMinutes(), d.getSeconds(), d.getDay()];
  } else {
    const off = zoneOffsetMs(tz, ms);
    offsetMin = Math.round(off / 60_000);
    d = new Date(ms + off);
    [year, month, day, hour, minute, second, wday] = [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCDay()];
  }
  const yday = Math.round((Date.UTC(year, month, day) - Date.UTC(year, 0, 1)) / 86_400_000);
  return { year, month, day, hour, minute, second, wday, yday, offsetMin, tz, epoch: sec };
}

const pad = (n: number, width: number, fill = '0') => String(n).padStart(width, fill);

/** ISO 8601 week-based year and week number (%G, %V). */
function isoWeek(t: BrokenDown): [number, number] {
  const isoWday = (t.wday + 6) % 7; // Monday 0
  // The Thursday of this week decides the year.
  const thursdayYday = t.yday - isoWday + 3;
  const daysInYear = (y: number) => ((y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 366 : 365);
  if (thursdayYday < 0) {
    const prev = t.year - 1;
    const yday = thursdayYday + daysInYear(prev);
    return [prev, Math.floor(yday / 7) + 1];
  }
  if (thursdayYday >= daysInYear(t.year)) return [t.year + 1, 1];
  return [t.year, Math.floor(thursdayYday / 7) + 1];
}

/** One conversion (a letter of STRFTIME_CONVERSIONS) of `t`. */
export function strftimeConversion(c: string, t: BrokenDown): string {
  const h12 = t.hour % 12 === 0 ? 12 : t.hour % 12;
  switch (c) {
    case 'a': return DAYS[t.wday]!.slice(0, 3);
    case 'A': return DAYS[t.wday]!;
    case 'b':
    case 'h': return MONTHS[t.month]!.slice(0, 3);
    case 'B': return MONTHS[t.month]!;
    case 'c': return `${strftimeConversion('a', t)} ${strftimeConversion('b', t)} ${pad(t.day, 2, ' ')} ${strftimeConversion('T', t)} ${t.year}`;
    case 'C': return pad(Math.floor(t.year / 100), 2);
    case 'd': return pad(t.day, 2);
    case 'D':
    case 'x': return `${pad(t.month + 1, 2)}/${pad(t.day, 2)}/${pad(t.year % 100, 2)}`;
    case 'e': return pad(t.day, 2, ' ');
    case 'F': return `${t.year}-${pad(t.month + 1, 2)}-${pad(t.day, 2)}`;
    case 'G': return String(isoWeek(t)[0]);
    case 'g': return pad(isoWeek(t)[0] % 100, 2);
    case 'H': return pad(t.hour, 2);
    case 'I': return pad(h12, 2);
    case 'j': return pad(t.yday + 1, 3);
    case 'k': return pad(t.hour, 2, ' ');
    case 'l': return pad(h12, 2, ' ');
    case 'm': return pad(t.month + 1, 2);
    case 'M': return pad(t.minute, 2);
    case 'p': return t.hour < 12 ? 'AM' : 'PM';
    case 'P': return t.hour < 12 ? 'am' : 'pm';
    case 'r': return `${pad(h12, 2)}:${pad(t.minute, 2)}:${pad(t.second, 2)} ${t.hour < 12 ? 'AM' : 'PM'}`;
    case 'R': return `${pad(t.hour, 2)}:${pad(t.minute, 2)}`;
    case 's': return String(t.epoch);
    case 'S': return pad(t.second, 2);
    case 'T':
    case 'X': return `${pad(t.hour, 2)}:${pad(t.minute, 2)}:${pad(t.second, 2)}`;
    case 'u': return String(t.wday === 0 ? 7 : t.wday);
    case 'U': return pad(Math.floor((t.yday + 7 - t.wday) / 7), 2);
    case 'V': return pad(isoWeek(t)[1], 2);
    case 'w': return String(t.wday);
    case 'W': return pad(Math.floor((t.yday + 7 - ((t.wday + 6) % 7)) / 7), 2);
    case 'y': return pad(t.year % 100, 2);
    case 'Y': return String(t.year);
    case 'z': {
      const abs = Math.abs(t.offsetMin);
      return `${t.offsetMin < 0 ? '-' : '+'}${pad(Math.floor(abs / 60), 2)}${pad(abs % 60, 2)}`;
    }
    case 'Z': return zoneAbbreviation(t.epoch * 1000, t.tz);
    default: throw new RangeError(`strftime conversion %${c} is not supported`);
  }
}
