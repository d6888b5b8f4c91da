// Text extraction for search: the lines a stream showed, with control sequences removed. The
// screen model's ProcessedText (../processed-text.ts) is what the search uses; this stripper is
// the fallback should that fail to load, and the simplest reader of the TextExtractor seam.
//
// A handler of the one parser of src/replay (../parser.ts, the VT500 table): the parser decodes
// UTF-8 and sequences, this class keeps only one line: printable runs are written at a cursor,
// CR returns to column 0 (later text overwrites), BS steps back, EL erases, horizontal moves
// shift the cursor, and a vertical move or an absolute position ends the line (text placed
// elsewhere on the screen is never glued to it). A line never grows past TEXT_LINE_MAX.
import type { Params } from '../params.js';
import { Parser } from '../parser.js';
import { TEXT_LINE_MAX } from './limits.js';
import { TextHandler } from './text-handler.js';
import type { TextExtractor, TextLine } from './text-extractor.js';

export type { TextExtractor, TextLine } from './text-extractor.js';

/** Parameter `i` of a CSI (private marker ignored), `dflt` when absent, at most TEXT_LINE_MAX. */
function num(params: Params, i: number, dflt: number): number {
  return i < params.length && params.values[i]! >= 0 ? Math.min(params.values[i]!, TEXT_LINE_MAX) : dflt;
}

export class ControlStripper extends TextHandler implements TextExtractor {
  private readonly parser = new Parser(this, { maxStringLength: 0 });
  private line = '';
  private cursor = 0;
  private lineTime = -1;
  private out: TextLine[] = [];
  private now = 0;

  constructor(_opts?: { cols?: number; rows?: number }) {
    super();
  }

  write(bytes: Uint8Array, timeMs: number): void {
    this.now = timeMs;
    this.parse(this.parser, bytes);
  }

  resize(_cols: number, _rows: number): void {
    // Logical lines are not wrapped at the terminal width, so the size does not matter here.
  }

  takeLines(): TextLine[] {
    const lines = this.out;
    this.out = [];
    return lines;
  }

  end(): TextLine[] {
    this.parser.end();
    if (this.line.trimEnd() !== '') this.emit();
    return this.takeLines();
  }

  private emit(): void {
    this.out.push({ text: this.line.trimEnd(), timeMs: this.lineTime >= 0 ? this.lineTime : this.now });
    this.line = '';
    this.cursor = 0;
    this.lineTime = -1;
  }

  /** Ends the line if it holds anything (vertical moves, absolute positions). */
  private breakLine(): void {
    if (this.line.trimEnd() !== '') this.emit();
    else {
      this.line = '';
      this.cursor = 0;
    }
  }

  protected put(run: string): void {
    let rest = run;
    while (rest.length > 0) {
      if (this.lineTime < 0) this.lineTime = this.now;
      if (this.cursor > this.line.length) this.line = this.line.padEnd(this.cursor);
      const room = TEXT_LINE_MAX - this.cursor;
      const piece = rest.length > room ? rest.slice(0, room) : rest;
      rest = rest.length > room ? rest.slice(room) : '';
      if (this.cursor === this.line.length) this.line += piece;
      else this.line = this.line.slice(0, this.cursor) + piece + this.line.slice(this.cursor + piece.length);
      this.cursor += piece.length;
      if (this.cursor >= TEXT_LINE_MAX) this.emit();
    }
  }

  // ---- TextHandler (a ParserHandler)

  execute(c: number): void {
    switch (c) {
      case 0x0a: // LF
      case 0x0b: // VT
      case 0x0c: // FF
        this.emit();
        break;
      case 0x0d: // CR
        this.cursor = 0;
        break;
      case 0x08: // BS
        if (this.cursor > 0) this.cursor--;
        break;
      case 0x09: // HT: next multiple of 8
        this.cursor = Math.min(TEXT_LINE_MAX - 1, (Math.floor(this.cursor / 8) + 1) * 8);
        if (this.cursor > this.line.length) {
          if (this.lineTime < 0) this.lineTime = this.now;
          this.line = this.line.padEnd(this.cursor);
        }
        break;
      default:
        break; // other controls show nothing
    }
  }

  esc(collect: number, final: number): void {
    if (collect !== 0) return;
    if (final === 0x45 /* NEL */ || final === 0x44 /* IND */) this.emit();
    else if (final === 0x4d /* RI */) this.breakLine();
  }

  csi(params: Params, _collect: number, final: number): void {
    switch (final) {
      case 0x4b: { // EL
        const mode = num(params, 0, 0);
        if (mode === 0) this.line = this.line.slice(0, this.cursor);
        else if (mode === 1) this.line = ' '.repeat(Math.min(this.cursor + 1, this.line.length)) + this.line.slice(this.cursor + 1);
        else this.line = '';
        break;
      }
      case 0x4a: // ED: below (0) cuts this line at the cursor; whole screen ends the line
        if (num(params, 0, 0) === 0) this.line = this.line.slice(0, this.cursor);
        else this.breakLine();
        break;
      case 0x43: // CUF
        this.cursor = Math.min(TEXT_LINE_MAX - 1, this.cursor + Math.max(1, num(params, 0, 1)));
        break;
      case 0x44: // CUB
        this.cursor = Math.max(0, this.cursor - Math.max(1, num(params, 0, 1)));
        break;
      case 0x47: // CHA
      case 0x60: // HPA
        this.cursor = Math.max(0, num(params, 0, 1) - 1);
        break;
      case 0x50: { // DCH
        const n = Math.max(1, num(params, 0, 1));
        this.line = this.line.slice(0, this.cursor) + this.line.slice(this.cursor + n);
        break;
      }
      case 0x58: { // ECH
        const n = Math.max(1, num(params, 0, 1));
        if (this.cursor < this.line.length) {
          const end = Math.min(this.line.length, this.cursor + n);
          this.line = this.line.slice(0, this.cursor) + ' '.repeat(end - this.cursor) + this.line.slice(end);
        }
        break;
      }
      case 0x40: { // ICH
        const n = Math.max(1, num(params, 0, 1));
        if (this.cursor < this.line.length) this.line = (this.line.slice(0, this.cursor) + ' '.repeat(n) + this.line.slice(this.cursor)).slice(0, TEXT_LINE_MAX);
        break;
      }
      case 0x48: // CUP
      case 0x66: // HVP
        this.breakLine();
        this.cursor = Math.max(0, num(params, 1, 1) - 1);
        break;
      case 0x41: // CUU
      case 0x42: // CUD
      case 0x64: // VPA
      case 0x45: // CNL
      case 0x46: // CPL
        this.breakLine();
        break;
      default:
        break; // SGR and the rest change no text
    }
  }

}
