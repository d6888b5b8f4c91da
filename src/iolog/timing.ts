// The sudo `timing` file: one record per `\n`-terminated line (sudoers(5) "I/O log format";
// the rules follow sudo's iolog_parse_timing / iolog_parse_delay, re-implemented here):
//   0-4 DELAY NBYTES     I/O on stdin, stdout, stderr, ttyin, ttyout
//   5   DELAY ROWS COLS  window change, rows first
//   7   DELAY SIGNAL     suspend/resume, a name without SIG (older logs: a number)
//   6   ...              sudo 1.8.7 wrote every type 2 too high; from the first 6 on, sudo
//                        1.8.8-1.9.17 subtract 2 from that line and every later one. So do we.
// DELAY is seconds, optionally `.` or `,` and fraction digits, read as integer sec + nsec.

export type StreamName = 'stdin' | 'stdout' | 'stderr' | 'ttyin' | 'ttyout';
export const STREAM_NAMES: readonly StreamName[] = ['stdin', 'stdout', 'stderr', 'ttyin', 'ttyout'];

export type TimingRecord =
  | { readonly type: 'io'; readonly sec: number; readonly nsec: number; readonly stream: StreamName; readonly nbytes: number }
  | { readonly type: 'winch'; readonly sec: number; readonly nsec: number; readonly rows: number; readonly cols: number }
  | { readonly type: 'signal'; readonly sec: number; readonly nsec: number; readonly signal: string };

const SP = 0x20;
function isSpace(c: number): boolean {
  return c === SP || (c >= 0x09 && c <= 0x0d);
}
function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** Seconds get at most this many digits: 10^15 s is far beyond any session. */
const MAX_SEC_DIGITS = 15;
/** A byte count or a window size larger than this is not a real record. */
const MAX_COUNT = Number.MAX_SAFE_INTEGER;

/** Reads a run of digits at `i`; returns [value, end] or null when there is none or it is too long. */
function digits(s: string, i: number, maxDigits: number): [number, number] | null {
  let v = 0;
  let j = i;
  while (j < s.length && isDigit(s.charCodeAt(j))) {
    if (j - i >= maxDigits) return null;
    v = v * 10 + (s.charCodeAt(j) - 0x30);
    j++;
  }
  return j === i ? null : [v, j];
}

export interface Delay {
  sec: number;
  nsec: number;
  /** Index just after the delay (and the whitespace that follows it). */
  end: number;
}

/**
 * Parses a delay `SEC[.|,FRACTION]` at `i`: integer seconds and nanoseconds, fraction scaled to
 * 9 digits (extra digits truncated, short ones padded), no floating point involved.
 */
export function parseDelay(s: string, i = 0): Delay | null {
  const whole = digits(s, i, MAX_SEC_DIGITS);
  if (!whole) return null;
  const [sec, afterSec] = whole;
  let j = afterSec;
  let nsec = 0;
  const c = s.charCodeAt(j);
  if (c === 0x2e /* . */ || c === 0x2c /* , */) {
    j++;
    let n = 0;
    let scale = 100_000_000;
    while (j < s.length && isDigit(s.charCodeAt(j))) {
      if (n < 9) {
        nsec += (s.charCodeAt(j) - 0x30) * scale;
        scale /= 10;
      }
      n++;
      j++;
    }
  } else if (j < s.length && !isSpace(c)) {
    return null;
  }
  if (j < s.length && !isSpace(s.charCodeAt(j))) return null;
  while (j < s.length && isSpace(s.charCodeAt(j))) j++;
  return { sec, nsec, end: j };
}

const IO_TYPES: readonly StreamName[] = STREAM_NAMES;

/** Strips trailing whitespace (a stray `\r` from an editor) without allocating when there is none. */
function trimEnd(line: string): string {
  let e = line.length;
  while (e > 0 && isSpace(line.charCodeAt(e - 1))) e--;
  return e === line.length ? line : line.slice(0, e);
}

/**
 * Parses timing lines one by one. Stateful only for the legacy type-6 shift, which (as in sudo)
 * applies from the first type-6 line to the end of the file.
 */
export class TimingParser {
  /** Resumed from a ResumePoint when reading starts after the first record. */
  adjust = 0;

  /** One line without its `\n`; null when it is not a valid record. */
  parse(rawLine: string): TimingRecord | null {
    const line = trimEnd(rawLine);
    const t = digits(line, 0, 3);
    if (!t) return null;
    let [type, i] = t;
    if (i >= line.length || !isSpace(line.charCodeAt(i))) return null;
    if (type >= 8) return null;
    if (type === 6) this.adjust = 2;
    type -= this.adjust;
    if (type < 0) return null;
    while (i < line.length && isSpace(line.charCodeAt(i))) i++;
    const d = parseDelay(line, i);
    if (!d) return null;
    const { sec, nsec } = d;
    i = d.end;
    if (type <= 4) {
      const n = digits(line, i, 16);
      if (!n || n[1] !== line.length || n[0] > MAX_COUNT) return null;
      return { type: 'io', sec, nsec, stream: IO_TYPES[type]!, nbytes: n[0] };
    }
    if (type === 5) {
      const r = digits(line, i, 10);
      if (!r || r[1] >= line.length || !isSpace(line.charCodeAt(r[1]))) return null;
      let j = r[1];
      while (j < line.length && isSpace(line.charCodeAt(j))) j++;
      const c = digits(line, j, 10);
      if (!c || c[1] !== line.length || r[0] > 0x7fffffff || c[0] > 0x7fffffff) return null;
      return { type: 'winch', sec, nsec, rows: r[0], cols: c[0] };
    }
    if (type === 7) {
      const sig = line.slice(i);
      if (!/^[A-Za-z0-9+-]{1,16}$/.test(sig)) return null;
      return { type: 'signal', sec, nsec, signal: sig.startsWith('SIG') ? sig.slice(3) : sig };
    }
    return null; // 6 after the shift is 4 (handled above); nothing else is left
  }
}
