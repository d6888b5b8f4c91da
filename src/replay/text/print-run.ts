// A print run of the parser (../parser.ts) as a string: ASCII bytes in place, or UTF-16 units.
import { utf16ToString } from '../parser.js';

/** `units[start..end)` as a string: bytes of printable ASCII, or UTF-16 code units. */
export function printRunText(units: Uint8Array | Uint16Array, start: number, end: number): string {
  if (units instanceof Uint16Array) return utf16ToString(units, start, end);
  const len = end - start;
  if (len <= 0) return '';
  if (len === 1) return String.fromCharCode(units[start]!);
  if (len <= 8192) return String.fromCharCode.apply(null, units.subarray(start, end) as unknown as number[]);
  let s = '';
  for (let i = start; i < end; i += 8192) s += String.fromCharCode.apply(null, units.subarray(i, Math.min(end, i + 8192)) as unknown as number[]);
  return s;
}
