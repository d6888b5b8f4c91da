// What the typed-input reader needs to know of the terminal output: the text of the row the
// cursor is on, up to the cursor (the prompt a person answers), the directory an OSC 7
// sequence last reported, and the printable text written (the echo of what was typed). A
// deliberately small model (one row, no screen): CR returns to column 0, BS steps back,
// erase-in-line and character insert/delete apply, any vertical move or absolute position
// starts an empty row. A handler of the one parser of src/replay (../parser.ts, the VT500 table).
// Bounded: the row keeps its last OUTPUT_ROW_MAX characters, an OSC its first OSC_MAX.
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

export class OutputLine extends TextHandler {
  private readonly parser = new Parser(this, { maxStringLength: OSC_MAX });
  private row = '';
  private cursor = 0;
  /** The directory the last OSC 7 reported (null until one did). */
  cwd: string | null = null;
  /** Time of the last write that changed the cursor's row. */
  rowTimeMs = 0;
  private now = 0;

  /**
   * `onText` receives every printable run written (the echo of typed characters among it) and
   * '\n' for each line feed; `onRowEnd` the cursor's row as shown just before the cursor leaves
   * it (a line feed, a vertical move).
   */
  constructor(
    private readonly onText?: (text: string) => void,
    private readonly onRowEnd?: (row: string) => void,
  ) {
    super();
  }

  write(bytes: Uint8Array, timeMs: number): void {
    this.now = timeMs;
    this.parse(this.parser, bytes);
  }

  /** The cursor's whole row, as shown. */
  rowText(): string {
    return this.row;
  }

  /** The cursor's row up to the cursor, as shown (escape sequences removed). */
  beforeCursor(): string {
    return this.row.slice(0, this.cursor).padEnd(this.cursor);
  }

  private newRow(): void {
    this.onRowEnd?.(this.row);
    this.row = '';
    this.cursor = 0;
    this.rowTimeMs = this.now;
  }

  protected put(run: string): void {
    this.onText?.(run);
    if (this.cursor > this.row.length) this.row = this.row.padEnd(this.cursor);
    this.row = this.row.slice(0, this.cursor) + run + this.row.slice(this.cursor + run.length);
    this.cursor += run.length;
    if (this.row.length > OUTPUT_ROW_MAX) {
      const cut = this.row.length - OUTPUT_ROW_MAX;
      this.row = this.row.slice(cut);
      this.cursor = Math.max(0, this.cursor - cut);
    }
    this.rowTimeMs = this.now;
  }

  // ---- TextHandler (a ParserHandler)

  execute(c: number): void {
    switch (c) {
      case 0x0a:
      case 0x0b:
      case 0x0c:
        this.onText?.('\n');
        this.newRow();
        break;
      case 0x0d:
        this.cursor = 0;
        break;
      case 0x08:
        if (this.cursor > 0) this.cursor--;
        break;
      case 0x09:
        this.cursor = Math.min(OUTPUT_ROW_MAX, (Math.floor(this.cursor / 8) + 1) * 8);
        break;
      default:
        break;
    }
  }

  esc(collect: number, final: number): void {
    // NEL, IND, RI, RIS: another row.
    if (collect === 0 && (final === 0x45 || final === 0x44 || final === 0x4d || final === 0x63)) this.newRow();
  }

  csi(params: Params, _collect: number, final: number): void {
    switch (final) {
      case 0x4b: { // EL
        const mode = params.values[0]!;
        if (mode === 0) this.row = this.row.slice(0, this.cursor);
        else if (mode === 1) this.row = ' '.repeat(Math.min(this.cursor + 1, this.row.length)) + this.row.slice(this.cursor + 1);
        else this.row = '';
        this.rowTimeMs = this.now;
        break;
      }
      case 0x43: // CUF
        this.cursor = Math.min(OUTPUT_ROW_MAX, this.cursor + first(params, 1));
        break;
      case 0x44: // CUB
        this.cursor = Math.max(0, this.cursor - first(params, 1));
        break;
      case 0x47: // CHA
      case 0x60: // HPA
        this.cursor = first(params, 1) - 1;
        break;
      case 0x50: // DCH
        this.row = this.row.slice(0, this.cursor) + this.row.slice(this.cursor + first(params, 1));
        this.rowTimeMs = this.now;
        break;
      case 0x40: // ICH
        if (this.cursor < this.row.length) this.row = this.row.slice(0, this.cursor) + ' '.repeat(first(params, 1)) + this.row.slice(this.cursor);
        break;
      case 0x58: { // ECH
        const end = Math.min(this.row.length, this.cursor + first(params, 1));
        if (end > this.cursor) this.row = this.row.slice(0, this.cursor) + ' '.repeat(end - this.cursor) + this.row.slice(end);
        break;
      }
      case 0x48: // CUP, HVP, vertical moves, erase display: another row, contents unknown
      case 0x66:
      case 0x41:
      case 0x42:
      case 0x64:
      case 0x45:
      case 0x46:
      case 0x4a:
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
