// Text extraction for search: the lines a stream showed, with control sequences removed.
// `TextExtractor` is the seam: the control-sequence stripper below implements it for now, and
// the replay module's screen-model based ProcessedText implements the same shape.
//
// The stripper follows the shape of the DEC VT500 parser states (ground, escape, CSI, OSC and
// other strings; vt100.net) but keeps only one line: printable runs are written at a cursor,
// CR returns to column 0 (later text overwrites), BS steps back, EL erases, horizontal moves
// shift the cursor, and a vertical move or an absolute position ends the line (text placed
// elsewhere on the screen is never glued to it). A line never grows past TEXT_LINE_MAX.
import { TEXT_LINE_MAX } from './limits.js';

export interface TextLine {
  text: string;
  /** When the line got its first character (or ended, if empty): the time passed to write(). */
  timeMs: number;
  /**
   * When the line was complete (the time of the write that finished it: a typed line's Enter),
   * if the extractor knows it; else timeMs is taken for it.
   */
  endMs?: number;
}

export interface TextExtractor {
  write(bytes: Uint8Array, timeMs: number): void;
  resize(cols: number, rows: number): void;
  /** Lines finished since the last call. */
  takeLines(): TextLine[];
  /** Finishes the stream: the lines still open, including an unterminated last one. */
  end(): TextLine[];
}

const enum St {
  Ground,
  Esc,
  EscInt,
  Csi,
  Osc,
  OscEsc,
  Str,
  StrEsc,
}

const MAX_PARAMS = 32;

function isPrintable(c: number): boolean {
  return c >= 0x20 && c !== 0x7f && !(c >= 0x80 && c < 0xa0);
}

export class ControlStripper implements TextExtractor {
  private readonly decoder = new TextDecoder('utf-8', { fatal: false });
  private line = '';
  private cursor = 0;
  private lineTime = -1;
  private out: TextLine[] = [];
  private state: St = St.Ground;
  private params = '';
  private now = 0;

  constructor(_opts?: { cols?: number; rows?: number }) {}

  write(bytes: Uint8Array, timeMs: number): void {
    this.now = timeMs;
    this.feed(this.decoder.decode(bytes, { stream: true }));
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
    this.feed(this.decoder.decode());
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

  private put(run: string): void {
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

  private control(c: number): void {
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
      case 0x1b:
        this.state = St.Esc;
        break;
      case 0x9b:
        this.state = St.Csi;
        this.params = '';
        break;
      case 0x9d:
        this.state = St.Osc;
        break;
      case 0x90:
      case 0x98:
      case 0x9e:
      case 0x9f:
        this.state = St.Str;
        break;
      default:
        break; // other controls show nothing
    }
  }

  private num(i: number, dflt: number): number {
    const parts = this.params.replace(/^[?>=<!]/, '').split(';');
    const p = parts[i];
    const v = p === undefined || p === '' ? dflt : Number.parseInt(p, 10);
    return Number.isFinite(v) ? Math.min(v, TEXT_LINE_MAX) : dflt;
  }

  private csi(final: number): void {
    switch (final) {
      case 0x4b: { // EL
        const mode = this.num(0, 0);
        if (mode === 0) this.line = this.line.slice(0, this.cursor);
        else if (mode === 1) this.line = ' '.repeat(Math.min(this.cursor + 1, this.line.length)) + this.line.slice(this.cursor + 1);
        else this.line = '';
        break;
      }
      case 0x4a: // ED: below (0) cuts this line at the cursor; whole screen ends the line
        if (this.num(0, 0) === 0) this.line = this.line.slice(0, this.cursor);
        else this.breakLine();
        break;
      case 0x43: // CUF
        this.cursor = Math.min(TEXT_LINE_MAX - 1, this.cursor + Math.max(1, this.num(0, 1)));
        break;
      case 0x44: // CUB
        this.cursor = Math.max(0, this.cursor - Math.max(1, this.num(0, 1)));
        break;
      case 0x47: // CHA
      case 0x60: // HPA
        this.cursor = Math.max(0, this.num(0, 1) - 1);
        break;
      case 0x50: { // DCH
        const n = Math.max(1, this.num(0, 1));
        this.line = this.line.slice(0, this.cursor) + this.line.slice(this.cursor + n);
        break;
      }
      case 0x58: { // ECH
        const n = Math.max(1, this.num(0, 1));
        if (this.cursor < this.line.length) {
          const end = Math.min(this.line.length, this.cursor + n);
          this.line = this.line.slice(0, this.cursor) + ' '.repeat(end - this.cursor) + this.line.slice(end);
        }
        break;
      }
      case 0x40: { // ICH
        const n = Math.max(1, this.num(0, 1));
        if (this.cursor < this.line.length) this.line = (this.line.slice(0, this.cursor) + ' '.repeat(n) + this.line.slice(this.cursor)).slice(0, TEXT_LINE_MAX);
        break;
      }
      case 0x48: // CUP
      case 0x66: // HVP
        this.breakLine();
        this.cursor = Math.max(0, this.num(1, 1) - 1);
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

  private feed(s: string): void {
    const n = s.length;
    let i = 0;
    while (i < n) {
      const c = s.charCodeAt(i);
      switch (this.state) {
        case St.Ground: {
          if (isPrintable(c)) {
            let j = i + 1;
            while (j < n && isPrintable(s.charCodeAt(j))) j++;
            this.put(s.slice(i, j));
            i = j;
            continue;
          }
          this.control(c);
          break;
        }
        case St.Esc:
          if (c === 0x5b) {
            this.state = St.Csi;
            this.params = '';
          } else if (c === 0x5d) this.state = St.Osc;
          else if (c === 0x50 || c === 0x58 || c === 0x5e || c === 0x5f) this.state = St.Str;
          else if (c >= 0x20 && c <= 0x2f) this.state = St.EscInt;
          else if (c === 0x1b) this.state = St.Esc;
          else if (c < 0x20) this.control(c); // executed, the escape continues (VT500)
          else {
            this.state = St.Ground;
            if (c === 0x45 /* NEL */ || c === 0x44 /* IND */) this.emit();
            else if (c === 0x4d /* RI */) this.breakLine();
          }
          break;
        case St.EscInt:
          if (c >= 0x30 && c <= 0x7e) this.state = St.Ground;
          else if (c === 0x1b) this.state = St.Esc;
          else if (c < 0x20) this.control(c);
          break;
        case St.Csi:
          if (c >= 0x40 && c <= 0x7e) {
            this.state = St.Ground;
            this.csi(c);
          } else if (c >= 0x20 && c <= 0x3f) {
            if (this.params.length < MAX_PARAMS) this.params += s[i];
          } else if (c === 0x1b) this.state = St.Esc;
          else if (c === 0x18 || c === 0x1a) this.state = St.Ground;
          else if (c < 0x20) this.control(c);
          break;
        case St.Osc:
        case St.Str:
          if (c === 0x07 && this.state === St.Osc) this.state = St.Ground;
          else if (c === 0x9c || c === 0x18 || c === 0x1a) this.state = St.Ground;
          else if (c === 0x1b) this.state = this.state === St.Osc ? St.OscEsc : St.StrEsc;
          break;
        case St.OscEsc:
        case St.StrEsc:
          if (c === 0x5c) this.state = St.Ground;
          else {
            this.state = St.Esc;
            continue; // the ESC started a new sequence: read this character again
          }
          break;
      }
      i++;
    }
  }
}

/** Factory the search uses; swapped for the screen model when it is available. */
export type TextExtractorFactory = (opts: { cols: number; rows: number }) => TextExtractor;

export const stripperFactory: TextExtractorFactory = (opts) => new ControlStripper(opts);
