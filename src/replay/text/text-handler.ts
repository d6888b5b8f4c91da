// The base of the parser handlers that read terminal text as strings (control-stripper.ts,
// output-line.ts): the parser's print runs (ASCII bytes in place, or UTF-16 units) arrive as one
// `put(run)` each; strings (OSC, DCS, SOS/PM/APC) are ignored unless a subclass wants them.
// One parser, many handlers is the shape of xterm.js (its EscapeSequenceParser drives print,
// execute, CSI, ESC, OSC and DCS handlers); the code here is ours.
import type { Params } from '../params.js';
import { utf16ToString, type Parser, type ParserHandler } from '../parser.js';

/** One UTF-16 unit per byte, so an index into the bytes is an index into the text. */
const LATIN1 = new TextDecoder('latin1');

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
  /** The write being parsed and, once a print run asked for it, its bytes as latin1 text. */
  private chunk: Uint8Array | null = null;
  private chunkText: string | null = null;

  /** A run of printable characters, as it was written at the cursor. */
  protected abstract put(run: string): void;
  abstract execute(code: number, at: number): void;
  abstract esc(collect: number, final: number, at: number): void;
  abstract csi(params: Params, collect: number, final: number): void;

  /**
   * Parses `bytes` with `parser` (whose handler this is). ASCII print runs are slices of the
   * write decoded once (as the old per-write UTF-8 decode did): no copy per run.
   */
  protected parse(parser: Parser, bytes: Uint8Array): void {
    this.chunk = bytes;
    this.chunkText = null;
    try {
      parser.write(bytes);
    } finally {
      this.chunk = null;
      this.chunkText = null;
    }
  }

  printAscii(data: Uint8Array, start: number, end: number): void {
    if (data === this.chunk) {
      this.chunkText ??= LATIN1.decode(data);
      this.put(this.chunkText.slice(start, end));
    } else {
      this.put(printRunText(data, start, end));
    }
  }

  print(buf: Uint16Array, start: number, end: number): void {
    this.put(printRunText(buf, start, end));
  }

  printRunEnd(): void {}

  osc(_id: number, _data: string, _ok: boolean, _truncated: boolean): void {}

  dcs(): void {}

  str(): void {}
}
