// Keys typed at a terminal, read with the one parser of src/replay and its input table (the
// same grammar as the typed-input key decoder, text/typed-input/key-decoder.ts): what a terminal sends that
// begins with ESC (cursor and function keys, Alt+key, and the terminal's own answers such as
// CPR `ESC [ 12;40 R`, DA `ESC [ ? 64;1 c` or XTVERSION `ESC P > | tmux 3.3a ESC \`) is consumed
// whole and never read as keys; printable characters and C0 controls are keys. State lives on
// the instance, so an answer split over two reads is still consumed whole.
//
// Ctrl-C (0x03) is a key wherever it comes, even inside an unfinished string (a stray `ESC P`
// would otherwise swallow every key until its ST): terminal answers never contain it.
import { Parser, type ParserHandler } from './parser.js';
import { INPUT_TRANSITIONS } from './transition-table.js';

export class KeyInput implements ParserHandler {
  private readonly parser: Parser;

  /** `onKey` gets each key: one character, or a control character such as '\r' or '\x03'. */
  constructor(private readonly onKey: (key: string) => void) {
    this.parser = new Parser(this, { maxStringLength: 0, transitions: INPUT_TRANSITIONS });
  }

  write(data: Uint8Array): void {
    if (data.includes(0x03)) this.onKey('\x03');
    this.parser.write(data);
  }

  printAscii(data: Uint8Array, start: number, end: number): void {
    for (let k = start; k < end; k++) this.onKey(String.fromCharCode(data[k]!));
  }

  print(buf: Uint16Array, start: number, end: number): void {
    for (let k = start; k < end; k++) {
      const c = buf[k]!;
      // A surrogate pair is one key (the parser writes pairs together).
      if (c >= 0xd800 && c <= 0xdbff && k + 1 < end) this.onKey(String.fromCharCode(c, buf[++k]!));
      else this.onKey(String.fromCharCode(c));
    }
  }

  printRunEnd(): void {}

  execute(code: number): void {
    // Ctrl-C was given by write(); C1 controls are not keys.
    if (code !== 0x03 && code < 0x20) this.onKey(String.fromCharCode(code));
  }

  esc(): void {}

  csi(): void {}

  osc(): void {}

  dcs(): void {}

  str(): void {}
}
