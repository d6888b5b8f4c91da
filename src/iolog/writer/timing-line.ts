// Timing lines written straight into the timing file's buffer, digit by digit (no string per
// record), in the exact form sudo_logsrvd prints them (logsrvd_local.c, sudo 1.9.13):
//   I/O          "%d %lld.%09d %zu\n"    stream 0-4, delay, byte count
//   window size  "5 %lld.%09d %d %d\n"   rows first, then columns
//   suspend      "7 %lld.%09d %s\n"      signal name without SIG
// The values are checked before: a line sudoreplay could not read is never written.
import { constants as osConstants } from 'node:os';
import { evioError } from '../../errors.js';
import type { OutputFile } from './output-file.js';
import type { TimeSpec } from './types.js';

const SPACE = 0x20;
const DOT = 0x2e;
const NL = 0x0a;
const ZERO = 0x30;

/** Writes the decimal digits of the safe integer `n` >= 0 at `at`; returns the end. */
function putUint(buf: Buffer, at: number, n: number): number {
  let digits = 1;
  for (let t = n; t >= 10; t = (t - (t % 10)) / 10) digits++;
  let i = at + digits;
  let v = n;
  do {
    const d = v % 10;
    buf[--i] = ZERO + d;
    v = (v - d) / 10;
  } while (v > 0);
  return at + digits;
}

/** `sec.nnnnnnnnn` (nine nanosecond digits). */
function putDelay(buf: Buffer, at: number, d: TimeSpec): number {
  let i = putUint(buf, at, d.sec);
  buf[i++] = DOT;
  let v = d.nsec;
  for (let k = 8; k >= 0; k--) {
    const digit = v % 10;
    buf[i + k] = ZERO + digit;
    v = (v - digit) / 10;
  }
  return i + 9;
}

/** Longer than any I/O or window-size line: type, spaces, 16 second digits, 10 delay characters, 16 count digits (or two 10-digit sizes), \n. */
const LINE_MAX = 64;

export function putIoLine(out: OutputFile, stream: number, delay: TimeSpec, nbytes: number): void {
  const buf = out.room(LINE_MAX);
  let i = out.length;
  buf[i++] = ZERO + stream;
  buf[i++] = SPACE;
  i = putDelay(buf, i, delay);
  buf[i++] = SPACE;
  i = putUint(buf, i, nbytes);
  buf[i++] = NL;
  out.advance(i);
}

export function putWinsizeLine(out: OutputFile, delay: TimeSpec, rows: number, cols: number): void {
  const buf = out.room(LINE_MAX);
  let i = out.length;
  buf[i++] = ZERO + 5;
  buf[i++] = SPACE;
  i = putDelay(buf, i, delay);
  buf[i++] = SPACE;
  i = putUint(buf, i, rows);
  buf[i++] = SPACE;
  i = putUint(buf, i, cols);
  buf[i++] = NL;
  out.advance(i);
}

export function putSuspendLine(out: OutputFile, delay: TimeSpec, signal: string): void {
  const buf = out.room(LINE_MAX + signal.length);
  let i = out.length;
  buf[i++] = ZERO + 7;
  buf[i++] = SPACE;
  i = putDelay(buf, i, delay);
  buf[i++] = SPACE;
  i += buf.write(signal, i, 'latin1');
  buf[i++] = NL;
  out.advance(i);
}

/** INT_MAX: sudo's reader refuses a window size above it. */
export const WINSIZE_MAX = 0x7fffffff;

function checkSize(what: string, v: number): void {
  if (!Number.isInteger(v) || v < 0 || v > WINSIZE_MAX) {
    throw evioError('IOLOG_BAD_RECORD', `window size ${what} ${String(v)} is not a whole number from 0 to ${WINSIZE_MAX}`);
  }
}

export function checkWinsize(rows: number, cols: number): void {
  checkSize('rows', rows);
  checkSize('cols', cols);
}

/** Signal names this system knows, without SIG (sudo's reader maps the name with str2sig()). */
const SIGNAL_NAMES: ReadonlySet<string> = new Set(Object.keys(osConstants.signals).map((s) => s.slice(3)));

/**
 * The signal as a timing line carries it: a name without SIG that sudo's str2sig() knows (a
 * leading SIG is dropped), or a signal number 1-64. Anything else would end sudoreplay's reading
 * at that line, so it is refused (IOLOG_BAD_RECORD).
 */
export function timingSignal(signal: string): string {
  const name = typeof signal === 'string' && signal.startsWith('SIG') ? signal.slice(3) : signal;
  if (typeof name === 'string') {
    if (SIGNAL_NAMES.has(name)) return name;
    if (/^[1-9][0-9]?$/.test(name) && Number(name) <= 64) return name;
  }
  throw evioError('IOLOG_BAD_RECORD', `suspend signal ${JSON.stringify(String(signal).slice(0, 40))} is not a signal name (TSTP, STOP, TTIN, TTOU, CONT ...) nor a number 1-64`);
}
