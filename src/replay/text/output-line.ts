// What the typed-input reader needs to know of the terminal output: the text of the row the
// cursor is on, up to the cursor (the prompt a person answers), the directory an OSC 7
// sequence last reported, the printable text written (the echo of what was typed), and whether
// the alternate screen (a full-screen program) is active. A deliberately small model, no
// screen: rows are counted relative to the text (a line feed goes to the next row whether or
// not the screen scrolls; cursor up and down move between the rows kept), so a line editor that
// draws below the line and comes back (zsh's completion list, its ^R search line) leaves the
// line's row as it was. CR returns to column 0, BS steps back, erase-in-line, erase below and
// character insert/delete apply; an absolute position (CUP, VPA) or a full erase starts afresh
// (the rows' places are unknown then). A handler of the one parser of src/replay (../parser.ts,
// the VT500 table). Bounded: a row keeps its last OUTPUT_ROW_MAX characters, ROWS_KEPT rows
// either side of the cursor are kept, an OSC its first OSC_MAX.
import type { Params } from '../params.js';
import { Parser } from '../parser.js';
import { TextHandler } from './text-handler.js';

const OUTPUT_ROW_MAX = 1024;
const OSC_MAX = 4096;

/** The directory of an OSC 7 payload (`7;file://HOST/PATH`), percent-decoded; null if none. */
export function osc7Directory(payload: string): string | null {
  const m = /^7;file:\/\/[^/]*(\/.*)$/.exec(payload);
  if (!m) return null;
  try {
    return decodeURIComponent(m[1]!);
  } catch {
    return m[1]!;
  }
}

/** The first parameter when it is given and > 0, at most OUTPUT_ROW_MAX; else `dflt`. */
function first(params: Params, dflt: number): number {
  const v = params.values[0]!;
  return v > 0 ? Math.min(v, OUTPUT_ROW_MAX) : dflt;
}

/** The rows kept above and below the cursor's. */
const ROWS_KEPT = 64;

/** A window width in columns (Infinity when not known). */
function widthOf(cols: number | undefined): number {
  return cols !== undefined && Number.isFinite(cols) && cols >= 2 ? Math.min(Math.trunc(cols), OUTPUT_ROW_MAX) : Infinity;
}

export class OutputLine extends TextHandler {
  private readonly parser = new Parser(this, { maxStringLength: OSC_MAX });
  /** The cursor's physical row. */
  private row = '';
  /** The cursor's column; `cols` while a wrap is pending (the last column was just written). */
  private cursor = 0;
  /** The cursor's row, counted from the first row of the model (relative to the text, not the screen). */
  private y = 0;
  /** The other rows kept, by their number. */
  private rows = new Map<number, string>();
  /** Rows that continue the row above (autowrap wrote into them): one line with it. */
  private wrapped = new Set<number>();
  /** The normal screen's rows while the alternate screen is active. */
  private saved: { row: string; cursor: number; y: number; rows: Map<number, string>; wrapped: Set<number> } | null = null;
  /** The window's width (Infinity when unknown: rows never wrap). */
  private cols: number;
  /** The directory the last OSC 7 reported (null until one did). */
  cwd: string | null = null;
  /** Time of the last write that changed the cursor's row. */
  rowTimeMs = 0;
  private now = 0;

  /**
   * `onText` receives every printable run written (the echo of typed characters among it) and
   * '\n' for each line feed; `onRowEnd` is called just before the cursor leaves its line (its
   * row and the rows autowrap continued it on: a line feed, a vertical move), when rowText() is
   * that line as shown;
   * `onAlternate` each switch to (true) or from (false) the alternate screen. `cols`: the
   * window's width, when known (a line longer than it wraps onto the next rows, which a line
   * editor moves between with cursor up and down).
   */
  constructor(
    private readonly onText?: (text: string) => void,
    private readonly onRowEnd?: () => void,
    private readonly onAlternate?: (on: boolean) => void,
    cols?: number,
  ) {
    super();
    this.cols = widthOf(cols);
  }

  write(bytes: Uint8Array, timeMs: number): void {
    this.now = timeMs;
    this.parse(this.parser, bytes);
  }

  /** The window changed width: rows are not reflowed (the text keeps its rows). */
  resize(cols: number): void {
    this.cols = widthOf(cols);
    if (this.cursor > this.cols) this.cursor = this.cols;
  }

  private rowAt(k: number): string {
    return k === this.y ? this.row : (this.rows.get(k) ?? '');
  }

  /** The first row of the line row `k` is on. */
  private top(k: number): number {
    while (this.wrapped.has(k) && k > this.y - ROWS_KEPT) k--;
    return k;
  }

  /** The last row of the line row `k` is on. */
  private bottom(k: number): number {
    while (this.wrapped.has(k + 1) && k < this.y + ROWS_KEPT) k++;
    return k;
  }

  /** Rows `from`..`to` as one line (each but the last as wide as the window). */
  private joined(from: number, to: number, lastCut = Infinity): string {
    let text = '';
    for (let k = from; k <= to; k++) {
      const r = this.rowAt(k);
      text += k < to && Number.isFinite(this.cols) ? r.padEnd(this.cols).slice(0, this.cols) : k === to ? r.slice(0, lastCut).padEnd(Number.isFinite(lastCut) ? lastCut : 0) : r;
    }
    return text;
  }

  /** The cursor's whole line, as shown (its rows joined where autowrap continued it). */
  rowText(): string {
    return this.joined(this.top(this.y), this.bottom(this.y));
  }

  /** The cursor's line up to the cursor, as shown (escape sequences removed). */
  beforeCursor(): string {
    return this.joined(this.top(this.y), this.y, this.cursor);
  }

  /** The number of the cursor's line (relative: compare it only with another of this model's). */
  get rowNumber(): number {
    return this.top(this.y);
  }

  /** A full-screen program's alternate screen is active. */
  get alternate(): boolean {
    return this.saved !== null;
  }

  /** Moves the cursor `n` rows down (up when negative), keeping its column. */
  private moveRows(n: number): void {
    if (n === 0) return;
    const to = this.y + n;
    // Within the line (its rows joined by autowrap) the line has not been left.
    if (to < this.top(this.y) || to > this.bottom(this.y)) this.onRowEnd?.();
    if (this.row !== '') this.rows.set(this.y, this.row);
    else this.rows.delete(this.y);
    this.y = to;
    this.row = this.rows.get(this.y) ?? '';
    this.rows.delete(this.y);
    if (this.cursor >= this.cols) this.cursor = this.cols - 1;
    if (this.rows.size > 2 * ROWS_KEPT) for (const k of this.rows.keys()) if (Math.abs(k - this.y) > ROWS_KEPT) this.rows.delete(k);
    if (this.wrapped.size > 2 * ROWS_KEPT) for (const k of this.wrapped) if (Math.abs(k - this.y) > ROWS_KEPT) this.wrapped.delete(k);
    this.rowTimeMs = this.now;
  }

  /** The rows' places are unknown (an absolute move, a full erase): start afresh. */
  private newRow(): void {
    this.onRowEnd?.();
    this.rows.clear();
    this.wrapped.clear();
    this.row = '';
    this.cursor = 0;
    this.y++;
    this.rowTimeMs = this.now;
  }

  /** A column within the row (a pending wrap is the last column). */
  private restrict(): void {
    if (this.cursor >= this.cols) this.cursor = this.cols - 1;
  }

  protected put(run: string): void {
    this.onText?.(run);
    let i = 0;
    while (i < run.length) {
      if (this.cursor >= this.cols) {
        // Autowrap: the next character begins the row below, which continues this line.
        this.wrapped.add(this.y + 1);
        this.moveRows(1);
        this.cursor = 0;
      }
      const part = Number.isFinite(this.cols) ? run.slice(i, i + (this.cols - this.cursor)) : i === 0 ? run : run.slice(i);
      if (this.cursor > this.row.length) this.row = this.row.padEnd(this.cursor);
      this.row = this.row.slice(0, this.cursor) + part + this.row.slice(this.cursor + part.length);
      this.cursor += part.length;
      i += part.length;
    }
    if (this.row.length > OUTPUT_ROW_MAX) {
      const cut = this.row.length - OUTPUT_ROW_MAX;
      this.row = this.row.slice(cut);
      this.cursor = Math.max(0, this.cursor - cut);
    }
    this.rowTimeMs = this.now;
  }

  private setAlternate(on: boolean): void {
    if (on === this.alternate) return;
    if (on) {
      this.saved = { row: this.row, cursor: this.cursor, y: this.y, rows: this.rows, wrapped: this.wrapped };
      this.rows = new Map();
      this.wrapped = new Set();
      this.row = '';
      this.cursor = 0;
    } else {
      const s = this.saved!;
      this.saved = null;
      this.row = s.row;
      this.cursor = s.cursor;
      this.y = s.y;
      this.rows = s.rows;
      this.wrapped = s.wrapped;
    }
    this.rowTimeMs = this.now;
    this.onAlternate?.(on);
  }

  // ---- TextHandler (a ParserHandler)

  execute(c: number): void {
    switch (c) {
      case 0x0a:
      case 0x0b:
      case 0x0c:
        this.onText?.('\n');
        this.moveRows(1);
        this.cursor = 0;
        break;
      case 0x0d:
        this.cursor = 0;
        break;
      case 0x08:
        this.restrict();
        if (this.cursor > 0) this.cursor--;
        break;
      case 0x09:
        this.restrict();
        this.cursor = Math.min(OUTPUT_ROW_MAX, this.cols - 1, (Math.floor(this.cursor / 8) + 1) * 8);
        break;
      default:
        break;
    }
  }

  esc(collect: number, final: number): void {
    if (collect !== 0) return;
    if (final === 0x44) this.moveRows(1); // IND
    else if (final === 0x45) {
      this.moveRows(1); // NEL
      this.cursor = 0;
    } else if (final === 0x4d) this.moveRows(-1); // RI
    else if (final === 0x63) {
      this.setAlternate(false); // RIS
      this.newRow();
    }
  }

  csi(params: Params, collect: number, final: number): void {
    if (collect === 0x3f) {
      if (final === 0x68 || final === 0x6c) {
        // DECSET / DECRST of the alternate screen (47, 1047, 1049)
        for (let i = 0; i < params.length; i++) {
          const m = params.values[i];
          if (m === 47 || m === 1047 || m === 1049) this.setAlternate(final === 0x68);
        }
        return;
      }
      if (final !== 0x4a && final !== 0x4b) return; // DECSED, DECSEL: erase as ED, EL
    }
    this.restrict();
    switch (final) {
      case 0x4b: { // EL
        const mode = params.values[0]!;
        if (mode === 0) this.row = this.row.slice(0, this.cursor);
        else if (mode === 1) this.row = ' '.repeat(Math.min(this.cursor + 1, this.row.length)) + this.row.slice(this.cursor + 1);
        else this.row = '';
        this.rowTimeMs = this.now;
        break;
      }
      case 0x4a: { // ED: below keeps the rows above; above or all: the rows' places are unknown
        if (params.values[0]! === 0) {
          this.row = this.row.slice(0, this.cursor);
          for (const k of this.rows.keys()) if (k > this.y) this.rows.delete(k);
          for (const k of this.wrapped) if (k > this.y) this.wrapped.delete(k);
          this.rowTimeMs = this.now;
        } else {
          const x = this.cursor;
          this.newRow();
          this.cursor = x;
        }
        break;
      }
      case 0x43: // CUF
        this.cursor = Math.min(OUTPUT_ROW_MAX, this.cols - 1, this.cursor + first(params, 1));
        break;
      case 0x44: // CUB
        this.cursor = Math.max(0, this.cursor - first(params, 1));
        break;
      case 0x47: // CHA
      case 0x60: // HPA
        this.cursor = Math.min(this.cols - 1, first(params, 1) - 1);
        break;
      case 0x50: // DCH
        this.row = this.row.slice(0, this.cursor) + this.row.slice(this.cursor + first(params, 1));
        this.rowTimeMs = this.now;
        break;
      case 0x40: // ICH
        if (this.cursor < this.row.length) this.row = (this.row.slice(0, this.cursor) + ' '.repeat(first(params, 1)) + this.row.slice(this.cursor)).slice(0, this.cols);
        break;
      case 0x58: { // ECH
        const end = Math.min(this.row.length, this.cursor + first(params, 1));
        if (end > this.cursor) this.row = this.row.slice(0, this.cursor) + ' '.repeat(end - this.cursor) + this.row.slice(end);
        break;
      }
      case 0x41: // CUU
        this.moveRows(-first(params, 1));
        break;
      case 0x42: // CUD
        this.moveRows(first(params, 1));
        break;
      case 0x45: // CNL
        this.moveRows(first(params, 1));
        this.cursor = 0;
        break;
      case 0x46: // CPL
        this.moveRows(-first(params, 1));
        this.cursor = 0;
        break;
      case 0x48: // CUP, HVP, VPA: another row, contents unknown
      case 0x66:
      case 0x64:
        this.newRow();
        if (final === 0x48 || final === 0x66) this.cursor = Math.max(0, (params.length > 1 && params.values[1]! > 0 ? params.values[1]! : 1) - 1);
        break;
      default:
        break;
    }
  }

  override osc(id: number, data: string, ok: boolean): void {
    if (id !== 7 || !ok) return;
    const dir = osc7Directory(`7;${data}`);
    if (dir !== null) this.cwd = dir;
  }
}
