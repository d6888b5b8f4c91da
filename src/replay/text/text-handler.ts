// The base of the parser handlers that read terminal text as strings (control-stripper.ts,
// output-line.ts): the parser's print runs (ASCII bytes in place, or UTF-16 units) arrive as one
// `put(run)` each; strings (OSC, DCS, SOS/PM/APC) are ignored unless a subclass wants them.
import type { Params } from '../params.js';
import { utf16ToString, type ParserHandler } from '../parser.js';

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

export abstract class TextHandler implements ParserHandler {
  /** A run of printable characters, as it was written at the cursor. */
  protected abstract put(run: string): void;
  abstract execute(code: number, at: number): void;
  abstract esc(collect: number, final: number, at: number): void;
  abstract csi(params: Params, collect: number, final: number): void;

  printAscii(data: Uint8Array, start: number, end: number): void {
    this.put(printRunText(data, start, end));
  }

  print(buf: Uint16Array, start: number, end: number): void {
    this.put(printRunText(buf, start, end));
  }

  printRunEnd(): void {}

  osc(_id: number, _data: string, _ok: boolean, _truncated: boolean): void {}

  dcs(): void {}

  str(): void {}
}
