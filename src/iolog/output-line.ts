// What the typed-input reader needs to know of the terminal output: the text of the row the
// cursor is on, up to the cursor (the prompt a person answers), the directory an OSC 7
// sequence last reported, and the printable text written (the echo of what was typed). A
// deliberately small model (one row, no screen): CR returns to column 0, BS steps back,
// erase-in-line and character insert/delete apply, any vertical move or absolute position
// starts an empty row. Escape sequences follow the DEC VT500 parser states (vt100.net).
// Bounded: the row keeps its last OUTPUT_ROW_MAX characters, an OSC its first OSC_MAX.

const OUTPUT_ROW_MAX = 1024;
const OSC_MAX = 4096;

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

function isPrintable(c: number): boolean {
  return c >= 0x20 && c !== 0x7f && !(c >= 0x80 && c < 0xa0);
}

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

export class OutputLine {
  private readonly decoder = new TextDecoder('utf-8', { fatal: false });
  private row = '';
  private cursor = 0;
  private state: St = St.Ground;
  private params = '';
  private osc = '';
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
  ) {}

  write(bytes: Uint8Array, timeMs: number): void {
    this.now = timeMs;
    this.feed(this.decoder.decode(bytes, { stream: true }));
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

  private put(run: string): void {
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

  private control(c: number): void {
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
      case 0x1b:
        this.state = St.Esc;
        break;
      default:
        break;
    }
  }

  private num(dflt: number): number {
    const v = Number.parseInt(this.params.replace(/^[?>=<!]/, '').split(';')[0] ?? '', 10);
    return Number.isFinite(v) && v > 0 ? Math.min(v, OUTPUT_ROW_MAX) : dflt;
  }

  private csi(final: number): void {
    switch (final) {
      case 0x4b: { // EL
        const mode = this.params === '' ? 0 : Number.parseInt(this.params, 10);
        if (mode === 0) this.row = this.row.slice(0, this.cursor);
        else if (mode === 1) this.row = ' '.repeat(Math.min(this.cursor + 1, this.row.length)) + this.row.slice(this.cursor + 1);
        else this.row = '';
        this.rowTimeMs = this.now;
        break;
      }
      case 0x43: // CUF
        this.cursor = Math.min(OUTPUT_ROW_MAX, this.cursor + this.num(1));
        break;
      case 0x44: // CUB
        this.cursor = Math.max(0, this.cursor - this.num(1));
        break;
      case 0x47: // CHA
      case 0x60: // HPA
        this.cursor = this.num(1) - 1;
        break;
      case 0x50: // DCH
        this.row = this.row.slice(0, this.cursor) + this.row.slice(this.cursor + this.num(1));
        this.rowTimeMs = this.now;
        break;
      case 0x40: // ICH
        if (this.cursor < this.row.length) this.row = this.row.slice(0, this.cursor) + ' '.repeat(this.num(1)) + this.row.slice(this.cursor);
        break;
      case 0x58: { // ECH
        const end = Math.min(this.row.length, this.cursor + this.num(1));
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
        if (final === 0x48 || final === 0x66) this.cursor = Math.max(0, (Number.parseInt(this.params.split(';')[1] ?? '', 10) || 1) - 1);
        break;
      default:
        break;
    }
  }

  private feed(s: string): void {
    const n = s.length;
    let i = 0;
    while (i < n) {
      const c = s.charCodeAt(i);
      switch (this.state) {
        case St.Ground:
          if (isPrintable(c)) {
            let j = i + 1;
            while (j < n && isPrintable(s.charCodeAt(j))) j++;
            this.put(s.slice(i, j));
            i = j;
            continue;
          }
          this.control(c);
          break;
        case St.Esc:
          if (c === 0x5b) {
            this.state = St.Csi;
            this.params = '';
          } else if (c === 0x5d) {
            this.state = St.Osc;
            this.osc = '';
          } else if (c === 0x50 || c === 0x58 || c === 0x5e || c === 0x5f) this.state = St.Str;
          else if (c >= 0x20 && c <= 0x2f) this.state = St.EscInt;
          else if (c === 0x1b) this.state = St.Esc;
          else if (c < 0x20) this.control(c);
          else {
            this.state = St.Ground;
            if (c === 0x45 || c === 0x44 || c === 0x4d || c === 0x63) this.newRow(); // NEL, IND, RI, RIS
          }
          break;
        case St.EscInt:
          if (c >= 0x30 && c <= 0x7e) this.state = St.Ground;
          else if (c === 0x1b) this.state = St.Esc;
          break;
        case St.Csi:
          if (c >= 0x40 && c <= 0x7e) {
            this.state = St.Ground;
            this.csi(c);
          } else if (c >= 0x20 && c <= 0x3f) {
            if (this.params.length < 32) this.params += s[i];
          } else if (c === 0x1b) this.state = St.Esc;
          else if (c === 0x18 || c === 0x1a) this.state = St.Ground;
          else if (c < 0x20) this.control(c);
          break;
        case St.Osc:
        case St.Str:
          if ((c === 0x07 && this.state === St.Osc) || c === 0x9c) this.endString();
          else if (c === 0x18 || c === 0x1a) this.state = St.Ground;
          else if (c === 0x1b) this.state = this.state === St.Osc ? St.OscEsc : St.StrEsc;
          else if (this.state === St.Osc && this.osc.length < OSC_MAX) this.osc += s[i];
          break;
        case St.OscEsc:
        case St.StrEsc:
          if (c === 0x5c) {
            this.state = this.state === St.OscEsc ? St.Osc : St.Str;
            this.endString();
          } else {
            this.state = St.Esc;
            continue;
          }
          break;
      }
      i++;
    }
  }

  private endString(): void {
    if (this.state === St.Osc) {
      const dir = osc7Directory(this.osc);
      if (dir !== null) this.cwd = dir;
    }
    this.osc = '';
    this.state = St.Ground;
  }
}
