// Keys from the bytes a terminal sends (ttyin, stdin, asciicast "i" events): a handler of the one
// parser of src/replay (../../parser.ts) driven by its input table (INPUT_TRANSITIONS in
// ../../transition-table.ts), so ESC and a key is Alt+key, and what begins with ESC otherwise
// (cursor and function keys, mouse and focus reports, terminal answers such as CPR, DA or OSC
// colour replies) is read as one sequence however the input is split.
//
// What it adds to the parser: SS3 keys (`ESC O` and the key after it), X10 mouse reports
// (`ESC [ M` and three raw bytes, swallowed), and `ESC \` after a string (its terminator, not
// Alt-\). Every event carries the position of its byte in the stream when the caller gave one.
import type { Params } from '../../params.js';
import { Parser, type ParserHandler } from '../../parser.js';
import { INPUT_TRANSITIONS } from '../../transition-table.js';

/** What the decoder hands on: one call per key. `pos`: the stream position of its byte, or -1. */
export interface KeySink {
  /** A printable character (one code point). */
  char(ch: string, pos: number): void;
  /** A C0 control or DEL (0x7f). */
  control(code: number, pos: number): void;
  /** ESC and a key (a code point: printable, C0 or DEL). */
  alt(code: number, pos: number): void;
  /** A CSI key or report: `collect` holds its private marker and intermediates. */
  csi(params: Params, collect: number, final: number): void;
  /** SS3 and its key (`ESC O A` is ↑ on an application-mode keypad). */
  ss3(code: number, pos: number): void;
}

const enum Pending {
  NONE = 0,
  SS3 = 1,
  /** An X10 mouse report's raw bytes: the count left is in `mouseLeft`. */
  MOUSE = 2,
}

export class KeyDecoder implements ParserHandler {
  private readonly parser = new Parser(this, { maxStringLength: 0, transitions: INPUT_TRANSITIONS });
  private pending = Pending.NONE;
  private mouseLeft = 0;
  /** A string (OSC, DCS ...) just ended: an `ESC \` now is its terminator. */
  private afterString = false;
  /** Stream position of byte 0 of the current write (-1: none given). */
  private base = -1;
  /** Position of the last byte a key was read from. */
  private lastPos = -1;

  constructor(private readonly sink: KeySink) {}

  /** `pos`: the stream position of `bytes[0]` (-1 when unknown). */
  write(bytes: Uint8Array, pos: number): void {
    this.base = pos;
    this.parser.write(bytes);
  }

  /** End of input: a partial UTF-8 character becomes U+FFFD. */
  end(): void {
    this.parser.end();
  }

  private at(index: number): number {
    this.lastPos = this.base >= 0 && index >= 0 ? this.base + index : this.base >= 0 ? this.lastPos : -1;
    return this.lastPos;
  }

  /** Consumes one code point for an SS3 key or a mouse report; true when it was. */
  private swallow(code: number, pos: number): boolean {
    if (this.pending === Pending.NONE) return false;
    if (this.pending === Pending.SS3) {
      this.pending = Pending.NONE;
      this.sink.ss3(code, pos);
    } else if (--this.mouseLeft <= 0) this.pending = Pending.NONE;
    return true;
  }

  printAscii(data: Uint8Array, start: number, end: number): void {
    this.afterString = false;
    for (let k = start; k < end; k++) {
      const pos = this.at(k);
      if (!this.swallow(data[k]!, pos)) this.sink.char(String.fromCharCode(data[k]!), pos);
    }
  }

  print(buf: Uint16Array, start: number, end: number): void {
    this.afterString = false;
    const pos = this.at(-1);
    for (let k = start; k < end; k++) {
      const c = buf[k]!;
      // A surrogate pair is one key (the parser writes pairs together).
      const ch = c >= 0xd800 && c <= 0xdbff && k + 1 < end ? String.fromCharCode(c, buf[++k]!) : String.fromCharCode(c);
      if (!this.swallow(ch.codePointAt(0)!, pos)) this.sink.char(ch, pos);
    }
  }

  printRunEnd(): void {}

  execute(code: number, index: number): void {
    this.afterString = false;
    const pos = this.at(index);
    if (code >= 0x80 || this.swallow(code, pos)) return;
    this.sink.control(code, pos);
  }

  esc(collect: number, final: number, index: number): void {
    const afterString = this.afterString;
    this.afterString = false;
    this.pending = Pending.NONE;
    const pos = this.at(index);
    if (afterString && final === 0x5c && collect === 0) return; // ST of the string before
    if (final === 0x4f && collect === 0) this.pending = Pending.SS3;
    else this.sink.alt(final, pos);
  }

  csi(params: Params, collect: number, final: number): void {
    this.afterString = false;
    this.pending = Pending.NONE;
    if (final === 0x4d && collect === 0 && params.length === 1 && params.values[0] === 0) {
      // X10 mouse report: ESC [ M and three bytes (button, column, row).
      this.pending = Pending.MOUSE;
      this.mouseLeft = 3;
      return;
    }
    this.sink.csi(params, collect, final);
  }

  osc(): void {
    this.afterString = true;
  }

  dcs(): void {
    this.afterString = true;
  }

  str(): void {
    this.afterString = true;
  }
}
