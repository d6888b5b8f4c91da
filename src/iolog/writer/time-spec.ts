// TimeSpec values as the protocol gives them (int64 seconds as a JS number, int32 nanoseconds):
// checked before anything is written, added with carry, compared. The elapsed sum is what a
// commit point reports and what a restart's resume point is matched against, so it is exact
// integer arithmetic, never floating seconds.
import { evioError } from '../../errors.js';
import type { TimeSpec } from './types.js';

export const NSEC_PER_SEC = 1_000_000_000;

/** Throws IOLOG_BAD_RECORD unless `t` is a TimeSpec sudo could have sent: whole, >= 0, nsec < 10^9, sec <= 2^53-1. */
export function checkTimeSpec(t: TimeSpec, what: string): void {
  const ok =
    t !== null &&
    typeof t === 'object' &&
    Number.isSafeInteger(t.sec) &&
    t.sec >= 0 &&
    Number.isInteger(t.nsec) &&
    t.nsec >= 0 &&
    t.nsec < NSEC_PER_SEC;
  if (!ok) {
    const shown = t && typeof t === 'object' ? `{sec: ${String(t.sec)}, nsec: ${String(t.nsec)}}` : String(t);
    throw evioError('IOLOG_BAD_RECORD', `${what} ${shown} is not a time: seconds must be a whole number from 0 to 2^53-1, nanoseconds a whole number from 0 to 999999999`);
  }
}

/** a + b into `into` (may be `a`); IOLOG_BAD_RECORD when the sum passes 2^53-1 seconds. */
export function addInto(into: TimeSpec, a: TimeSpec, b: TimeSpec): TimeSpec {
  let sec = a.sec + b.sec;
  let nsec = a.nsec + b.nsec;
  if (nsec >= NSEC_PER_SEC) {
    nsec -= NSEC_PER_SEC;
    sec += 1;
  }
  if (!Number.isSafeInteger(sec)) throw evioError('IOLOG_BAD_RECORD', `the session's elapsed time would pass 2^53-1 seconds`);
  into.sec = sec;
  into.nsec = nsec;
  return into;
}

export function compareTime(a: TimeSpec, b: TimeSpec): number {
  return a.sec !== b.sec ? (a.sec < b.sec ? -1 : 1) : a.nsec !== b.nsec ? (a.nsec < b.nsec ? -1 : 1) : 0;
}

export function isZero(t: TimeSpec): boolean {
  return t.sec === 0 && t.nsec === 0;
}

/** `sec.nnnnnnnnn`, as sudo prints a delay (and as messages show a point). */
export function formatTime(t: TimeSpec): string {
  return `${t.sec}.${String(t.nsec).padStart(9, '0')}`;
}
