// The screen model: a VT500-class terminal reduced to what it displays: text and cell attributes.
//
// Feed it the bytes of a session (and its window changes) and it holds the screen at that point:
// cursor, autowrap with pending wrap (the cursor may sit at x === cols), tab stops, scroll
// regions, origin mode, insert mode, the alternate screen, erase/insert/delete of characters and
// lines, save/restore cursor, DEC line drawing, wide and combining characters, and resize with
// reflow, and SGR attributes (colours and flags, cell-attrs.ts) with back colour erase: erased
// and inserted cells and scrolled-in lines take the current background, as in xterm. The behaviour of each control follows xterm.js's InputHandler (MIT), which is the
// oracle of our fidelity tests; the code is ours. Deliberate differences from xterm.js:
//   - in origin mode, relative moves (CUU/CUD/CUF/CUB, HPR/VPR) and CHA/HPA keep the row instead
//     of adding the region's top again (an xterm.js quirk);
//   - national replacement charsets other than UK show as ASCII;
//   - selective erase (DECSED/DECSEL) erases like ED/EL (the protection attribute is not kept);
//   - counts are capped at what can have an effect, so a hostile `CSI 999999999 L` costs nothing.
import { charWidth } from './char-width.js';
import { eraseBg, Pen } from './cell-attrs.js';
import { charsetFor, type Charset } from './charsets.js';
import type { Params } from './params.js';
import { Parser, type ParserHandler } from './parser.js';
import { ScreenBuffer } from './screen-buffer.js';
import { EMPTY_CELL, type ScreenLine } from './screen-line.js';

export interface ScreenOptions {
  cols?: number;
  rows?: number;
  /** Lines kept above the screen in the normal buffer (default 1000, as xterm.js). */
  scrollback?: number;
}

export interface ScreenModes {
  insert: boolean;
  convertEol: boolean;
  origin: boolean;
  wraparound: boolean;
  reverseWraparound: boolean;
  cursorHidden: boolean;
}

/** The model's state apart from its parser (Screen.exportState). */
export interface ScreenState {
  cols: number;
  rows: number;
  scrollback: number;
  alternate: boolean;
  modes: ScreenModes;
  charsets: Charset[];
  glevel: number;
  charset: Charset;
  joinState: number;
  time: number;
  /** Screen.lineFeedIsNewline (not a terminal mode: the stream went to a pipe). */
  lineFeedIsNewline: boolean;
  /** Current SGR attributes (cell-attrs.ts) and DECSCA protection (BG_PROTECTED). */
  fg: number;
  bg: number;
  normal: ScreenBuffer;
  alt: ScreenBuffer;
}

export const MIN_COLS = 2;
export const MIN_ROWS = 1;
export const MAX_COLS = 2000;
export const MAX_ROWS = 1000;

/** Clamps a window size to what the model accepts. */
export function clampSize(cols: number, rows: number): [number, number] {
  const c = Number.isFinite(cols) ? Math.trunc(cols) : 80;
  const r = Number.isFinite(rows) ? Math.trunc(rows) : 24;
  return [Math.min(Math.max(c, MIN_COLS), MAX_COLS), Math.min(Math.max(r, MIN_ROWS), MAX_ROWS)];
}

export class Screen implements ParserHandler {
  cols: number;
  rows: number;
  private readonly scrollback: number;
  normal!: ScreenBuffer;
  alt!: ScreenBuffer;
  buffer!: ScreenBuffer;
  private readonly parser: Parser;

  // Modes.
  private insertMode = false;
  private convertEol = false;
  private origin = false;
  private wraparound = true;
  private reverseWraparound = false;
  /** DECTCEM (CSI ? 25 l hides the cursor). */
  cursorHidden = false;
  /**
   * The bytes went to a pipe or file, not to a terminal (sudo's stdout/stderr without a tty): a
   * LF also returns to column 0, as sudoreplay's terminal (ONLCR) shows them. Set by the caller
   * per record; not a terminal mode, so it is kept apart from LNM (CSI 20 h), which a program
   * sets and which lasts until it resets it, whatever record boundaries fall between.
   */
  lineFeedIsNewline = false;

  // Charsets G0-G3 and the one in use.
  private charsets: Charset[] = [null, null, null, null];
  private glevel = 0;
  private charset: Charset = null;

  /** The current SGR attributes. */
  private readonly pen = new Pen();

  /** Width and join flag of the last printed character (for combining characters and REP). */
  private joinState = 0;

  private asciiScratch = new Uint16Array(256);
  /** Inside a print run (see printRunEnd). */
  private runOpen = false;

  /** Time (ms) stamped on rows written from now on. */
  time = 0;
  /** Stamped on every row whose cells change (ScreenLine.mod); the caller advances it per write. */
  stamp = 0;
  /** Called with every line that leaves the model: dropped from the buffer, or fully erased. */
  private lineGone: ((line: ScreenLine) => void) | null = null;
  /** Called with every line that scrolls off the top of the normal screen into the scrollback. */
  private lineScrolledBack: ((line: ScreenLine) => void) | null = null;
  /** Called with a row holding text before the first change a write (stamp) makes to it. */
  private beforeChange: ((line: ScreenLine) => void) | null = null;

  constructor(options: ScreenOptions = {}) {
    [this.cols, this.rows] = clampSize(options.cols ?? 80, options.rows ?? 24);
    this.scrollback = Math.max(0, Math.min(options.scrollback ?? 1000, 100_000));
    this.parser = new Parser(this, { maxStringLength: 0 });
    this.createBuffers();
  }

  private createBuffers(): void {
    this.normal = new ScreenBuffer(true, this.scrollback, this.cols, this.rows);
    this.normal.fillViewportRows();
    this.alt = new ScreenBuffer(false, 0, this.cols, this.rows);
    this.normal.discard = this.lineGone;
    this.alt.discard = this.lineGone;
    this.buffer = this.normal;
  }

  /** Registers the receiver of rows about to change (processed text uses it). */
  onBeforeChange(fn: ((line: ScreenLine) => void) | null): void {
    this.beforeChange = fn;
  }

  /** Registers the receiver of lines scrolling into the scrollback (processed text uses it). */
  onScrolledBack(fn: ((line: ScreenLine) => void) | null): void {
    this.lineScrolledBack = fn;
  }

  /** Registers the receiver of lines leaving the model (processed text uses it). */
  onLineGone(fn: ((line: ScreenLine) => void) | null): void {
    this.lineGone = fn;
    this.normal.discard = fn;
    this.alt.discard = fn;
  }

  write(data: Uint8Array): void {
    this.parser.write(data);
  }

  /** End of the session: a dangling partial UTF-8 character prints as U+FFFD. */
  end(): void {
    this.parser.end();
  }

  resize(cols: number, rows: number): void {
    [cols, rows] = clampSize(cols, rows);
    if (cols === this.cols && rows === this.rows) return;
    this.cols = cols;
    this.rows = rows;
    this.normal.resize(cols, rows);
    this.alt.resize(cols, rows);
    this.normal.setupTabStops(cols);
    this.alt.setupTabStops(cols);
  }

  /** No escape sequence or UTF-8 character is partly read: a keyframe may be taken here. */
  get parserIdle(): boolean {
    return this.parser.idle;
  }

  /** The modes a repaint reproduces (screen-repaint.ts). */
  get modes(): ScreenModes {
    return { insert: this.insertMode, convertEol: this.convertEol, origin: this.origin, wraparound: this.wraparound, reverseWraparound: this.reverseWraparound, cursorHidden: this.cursorHidden };
  }

  /** The charsets G0-G3, the level in use and the charset in force (restoreCursor may set one apart). */
  get charsetState(): { charsets: Charset[]; glevel: number; charset: Charset } {
    return { charsets: [...this.charsets], glevel: this.glevel, charset: this.charset };
  }

  /**
   * Everything but the parser (which must be idle, see parserIdle): the state a keyframe of the
   * seek index keeps (screen-snapshot.ts serialises it). Lines are shared, not copied.
   */
  exportState(): ScreenState {
    return {
      cols: this.cols,
      rows: this.rows,
      scrollback: this.scrollback,
      alternate: this.buffer === this.alt,
      modes: this.modes,
      ...this.charsetState,
      joinState: this.joinState,
      time: this.time,
      lineFeedIsNewline: this.lineFeedIsNewline,
      fg: this.pen.fg,
      bg: this.pen.bg,
      normal: this.normal,
      alt: this.alt,
    };
  }

  /** A screen in the state `exportState` gave (its buffers are taken over, not copied). */
  static fromState(s: ScreenState): Screen {
    const screen = new Screen({ cols: s.cols, rows: s.rows, scrollback: s.scrollback });
    screen.normal = s.normal;
    screen.alt = s.alt;
    screen.buffer = s.alternate ? s.alt : s.normal;
    screen.normal.discard = null;
    screen.alt.discard = null;
    screen.insertMode = s.modes.insert;
    screen.convertEol = s.modes.convertEol;
    screen.origin = s.modes.origin;
    screen.wraparound = s.modes.wraparound;
    screen.reverseWraparound = s.modes.reverseWraparound;
    screen.cursorHidden = s.modes.cursorHidden;
    screen.charsets = [...s.charsets];
    screen.glevel = s.glevel;
    screen.charset = s.charset;
    screen.joinState = s.joinState;
    screen.time = s.time;
    screen.lineFeedIsNewline = s.lineFeedIsNewline;
    screen.pen.fg = s.fg;
    screen.pen.bg = s.bg;
    return screen;
  }

  get cursorX(): number {
    return this.buffer.x;
  }

  get cursorY(): number {
    return this.buffer.y;
  }

  get isAlternate(): boolean {
    return this.buffer === this.alt;
  }

  /** The current SGR attributes (fg, bg words of cell-attrs.ts). */
  get attrs(): { fg: number; bg: number } {
    return { fg: this.pen.fg, bg: this.pen.bg };
  }

  /** The line at screen row y (0 = top). */
  row(y: number): ScreenLine {
    return this.buffer.row(y);
  }

  // ---- ParserHandler

  print(data: Uint16Array, start: number, end: number): void {
    const b = this.buffer;
    const cols = this.cols;
    const charset = this.charset;
    const now = this.time;
    const fg = this.pen.fg;
    const bg = this.pen.bg;
    let row = b.row(b.y);
    this.touch(row);
    row.time = now;
    this.openRun(row);

    let join = this.joinState;
    for (let pos = start; pos < end; ++pos) {
      let code = data[pos]!;
      if (code >= 0xd800 && code <= 0xdbff && pos + 1 < end) {
        const low = data[pos + 1]!;
        if (low >= 0xdc00 && low <= 0xdfff) {
          code = ((code - 0xd800) << 10) + (low - 0xdc00) + 0x10000;
          pos++;
        }
      }
      if (code < 0x7f && charset) code = charset[code]!;

      let chWidth = charWidth(code);
      let shouldJoin = false;
      let oldWidth = 0;
      if (chWidth === 0 && join !== 0) {
        const prevWidth = join >> 1;
        if (prevWidth !== 0) {
          shouldJoin = true;
          oldWidth = prevWidth;
          chWidth = prevWidth;
        }
      }
      join = (chWidth << 1) | (shouldJoin ? 1 : 0);

      if (b.x + chWidth - oldWidth > cols) {
        if (this.wraparound) {
          row = this.autowrap(row, oldWidth);
        } else {
          b.x = cols - 1;
          if (chWidth === 2) continue;
        }
      }

      if (shouldJoin && b.x) {
        const offset = row.getWidth(b.x - 1) ? 1 : 2;
        row.addCodepoint(b.x - offset, code, chWidth);
        for (let delta = chWidth - oldWidth; --delta >= 0; ) row.setCell(b.x++, 0, 0, fg, bg);
        continue;
      }
      if (this.insertMode) {
        row.insertCells(b.x, chWidth - oldWidth, fg, bg);
        if (row.getWidth(cols - 1) === 2) row.clearCell(cols - 1, fg, bg);
      }
      row.setCell(b.x++, code, chWidth, fg, bg);
      if (chWidth > 0) {
        while (--chWidth) row.setCell(b.x++, 0, 0, fg, bg);
      }
    }
    this.joinState = join;
  }

  /** First characters of a print run: a wide character whose right half they overwrite goes. */
  private openRun(row: ScreenLine): void {
    if (this.runOpen) return;
    this.runOpen = true;
    const b = this.buffer;
    if (b.x && row.getWidth(b.x - 1) === 2) row.clearCell(b.x - 1, this.pen.fg, this.pen.bg);
  }

  /** End of a print run: a right half left without its wide character becomes an empty cell. */
  printRunEnd(): void {
    if (!this.runOpen) return;
    this.runOpen = false;
    const b = this.buffer;
    const row = b.row(b.y);
    if (b.x < this.cols && row.getWidth(b.x) === 0 && !row.hasContent(b.x)) row.clearCell(b.x, this.pen.fg, this.pen.bg);
  }

  /** Moves to the next row for autowrap (scrolling at the region's bottom); returns the new row. */
  private autowrap(oldRow: ScreenLine, oldWidth: number): ScreenLine {
    const b = this.buffer;
    const cols = this.cols;
    let oldCol = b.x - oldWidth;
    b.x = oldWidth;
    b.y++;
    if (b.y === b.scrollBottom + 1) {
      b.y--;
      this.scroll(true);
    } else {
      if (b.y >= this.rows) b.y = this.rows - 1;
      b.row(b.y).isWrapped = true;
    }
    const row = b.row(b.y);
    this.touch(row);
    row.time = this.time;
    // A combining character that widened the last cell takes that cell to the next row.
    if (oldWidth > 0) row.copyCellsFrom(oldRow, oldCol, 0, oldWidth, false);
    while (oldCol < cols) oldRow.clearCell(oldCol++, this.pen.fg, this.pen.bg);
    return row;
  }

  printAscii(data: Uint8Array, start: number, end: number): void {
    if (this.charset !== null || this.insertMode) {
      // Rare: the general path maps the charset and shifts cells.
      const units = this.asciiScratch.length >= end - start ? this.asciiScratch : (this.asciiScratch = new Uint16Array(end - start));
      for (let i = start; i < end; i++) units[i - start] = data[i]!;
      this.print(units, 0, end - start);
      return;
    }
    const b = this.buffer;
    const cols = this.cols;
    let row = b.row(b.y);
    this.touch(row);
    row.time = this.time;
    this.openRun(row);
    let i = start;
    while (i < end) {
      if (b.x >= cols) {
        if (this.wraparound) row = this.autowrap(row, 0);
        else b.x = cols - 1;
      }
      const n = this.wraparound ? Math.min(end - i, cols - b.x) : 1;
      const cells = row.cells;
      let x = b.x;
      for (let k = 0; k < n; k++) cells[x++] = data[i++]! | EMPTY_CELL;
      // Attributes per run, not per cell; a row that never had any keeps none.
      if (row.attrs !== null || (this.pen.fg | this.pen.bg) !== 0) row.fillAttrs(b.x, x, this.pen.fg, this.pen.bg);
      b.x = x;
    }
    this.joinState = 1 << 1;
  }

  execute(code: number): void {
    this.joinState = 0;
    switch (code) {
      case 0x0a: // LF
      case 0x0b: // VT
      case 0x0c: // FF
        this.lineFeed();
        break;
      case 0x0d:
        this.buffer.x = 0;
        break;
      case 0x08:
        this.backspace();
        break;
      case 0x09:
        if (this.buffer.x < this.cols) this.buffer.x = this.buffer.nextStop();
        break;
      case 0x0e:
        this.setGLevel(1);
        break;
      case 0x0f:
        this.setGLevel(0);
        break;
      case 0x84: // IND
        this.index();
        break;
      case 0x85: // NEL
        this.buffer.x = 0;
        this.index();
        break;
      case 0x88: // HTS
        this.buffer.setTab(this.buffer.x);
        break;
    }
  }

  esc(collect: number, final: number): void {
    this.joinState = 0;
    if (collect === 0) {
      switch (final) {
        case 0x37: // 7 DECSC
          this.saveCursor();
          break;
        case 0x38: // 8 DECRC
          this.restoreCursor();
          break;
        case 0x44: // D IND
          this.index();
          break;
        case 0x45: // E NEL
          this.buffer.x = 0;
          this.index();
          break;
        case 0x48: // H HTS
          this.buffer.setTab(this.buffer.x);
          break;
        case 0x4d: // M RI
          this.reverseIndex();
          break;
        case 0x63: // c RIS
          this.fullReset();
          break;
        case 0x6e: // n LS2
        case 0x7d: // } LS2R
          this.setGLevel(2);
          break;
        case 0x6f: // o LS3
        case 0x7c: // | LS3R
          this.setGLevel(3);
          break;
        case 0x7e: // ~ LS1R
          this.setGLevel(1);
          break;
      }
      return;
    }
    if (collect === 0x25 && (final === 0x40 || final === 0x47)) {
      // ESC % @ / ESC % G: back to the default charset.
      this.setGLevel(0);
      this.setGCharset(0, null);
      return;
    }
    if (collect === 0x23 && final === 0x38) {
      this.alignmentPattern();
      return;
    }
    const g = G_LEVEL_BY_INTERMEDIATE[collect];
    if (g !== undefined && CHARSET_FINALS.has(final)) this.setGCharset(g, charsetFor(final));
  }

  csi(params: Params, collect: number, final: number): void {
    this.dispatchCsi(params, collect, final);
    // Reset after the dispatch: REP repeats the character printed before it.
    this.joinState = 0;
  }

  private dispatchCsi(params: Params, collect: number, final: number): void {
    const b = this.buffer;
    const p0 = params.values[0]!;
    const n = p0 || 1;
    switch ((collect << 8) | final) {
      case 0x40: // @ ICH
        this.restrictCursor();
        this.changed(b.y).insertCells(b.x, n, 0, this.eraseBg);
        break;
      case 0x2040: // SP @ SL
        this.shiftColumns(0, n, false);
        break;
      case 0x41: // A CUU
        this.cursorUp(n);
        break;
      case 0x2041: // SP A SR
        this.shiftColumns(0, n, true);
        break;
      case 0x42: // B CUD
      case 0x65: // e VPR
        if (final === 0x42) this.cursorDown(n);
        else this.moveCursor(0, n);
        break;
      case 0x43: // C CUF
      case 0x61: // a HPR
        this.moveCursor(n, 0);
        break;
      case 0x44: // D CUB
        this.moveCursor(-n, 0);
        break;
      case 0x45: // E CNL
        this.cursorDown(n);
        b.x = 0;
        break;
      case 0x46: // F CPL
        this.cursorUp(n);
        b.x = 0;
        break;
      case 0x47: // G CHA
      case 0x60: // ` HPA
        b.x = n - 1;
        this.restrictCursor();
        break;
      case 0x48: // H CUP
      case 0x66: // f HVP
        this.setCursor(params.length >= 2 ? (params.values[1] || 1) - 1 : 0, n - 1);
        break;
      case 0x49: // I CHT
        if (b.x < this.cols) for (let k = Math.min(n, this.cols); k > 0; k--) b.x = b.nextStop();
        break;
      case 0x4a: // J ED
        this.eraseInDisplay(p0, false);
        break;
      case 0x3f4a: // ? J DECSED: protected (DECSCA) characters stay
        this.eraseInDisplay(p0, true);
        break;
      case 0x4b: // K EL
        this.eraseInLine(p0, false);
        break;
      case 0x3f4b: // ? K DECSEL: protected (DECSCA) characters stay
        this.eraseInLine(p0, true);
        break;
      case 0x2271: // " q DECSCA
        this.pen.selectProtected(p0);
        break;
      case 0x4c: // L IL
        this.insertLines(n);
        break;
      case 0x4d: // M DL
        this.deleteLines(n);
        break;
      case 0x50: // P DCH
        this.restrictCursor();
        this.changed(b.y).deleteCells(b.x, n, 0, this.eraseBg);
        break;
      case 0x53: // S SU
        this.scrollUp(n);
        break;
      case 0x54: // T SD
        this.scrollDown(n);
        break;
      case 0x58: // X ECH
        this.restrictCursor();
        this.changed(b.y).replaceCells(b.x, b.x + n, 0, this.eraseBg);
        break;
      case 0x5a: // Z CBT
        if (b.x < this.cols) for (let k = Math.min(n, this.cols); k > 0; k--) b.x = b.prevStop();
        break;
      case 0x62: // b REP
        this.repeatPreceding(n);
        break;
      case 0x64: // d VPA
        this.setCursor(b.x, n - 1);
        break;
      case 0x67: // g TBC
        if (p0 === 0) b.clearTab(b.x);
        else if (p0 === 3) b.clearAllTabs();
        break;
      case 0x6d: // m SGR
        this.pen.sgr(params);
        break;
      case 0x68: // h SM
        this.setModes(params, true);
        break;
      case 0x3f68: // ? h DECSET
        this.setPrivateModes(params, true);
        break;
      case 0x6c: // l RM
        this.setModes(params, false);
        break;
      case 0x3f6c: // ? l DECRST
        this.setPrivateModes(params, false);
        break;
      case 0x2170: // ! p DECSTR
        this.softReset();
        break;
      case 0x72: // r DECSTBM
        this.setScrollRegion(params);
        break;
      case 0x73: // s SCOSC
        this.saveCursor();
        break;
      case 0x75: // u SCORC
        this.restoreCursor();
        break;
      case 0x277d: // ' } DECIC
        this.shiftColumns(b.x, n, true);
        break;
      case 0x277e: // ' ~ DECDC
        this.shiftColumns(b.x, n, false);
        break;
    }
  }

  osc(): void {
    this.joinState = 0;
  }

  dcs(): void {
    this.joinState = 0;
  }

  str(): void {
    // SOS/PM/APC have no visible effect.
  }

  /** What erased and inserted cells take (back colour erase): the current background colour. */
  private get eraseBg(): number {
    return eraseBg(this.pen.bg);
  }

  /** Row y, stamped as changed by this write. */
  private changed(y: number): ScreenLine {
    const line = this.buffer.row(y);
    this.touch(line);
    return line;
  }

  /** A row's cells are about to change: the first change of a write is reported (processed text). */
  private touch(line: ScreenLine): void {
    if (line.mod === this.stamp) return;
    if (this.beforeChange !== null && line.time >= 0) this.beforeChange(line);
    line.mod = this.stamp;
  }

  // ---- cursor

  private restrictCursor(maxCol: number = this.cols - 1): void {
    const b = this.buffer;
    b.x = Math.min(maxCol, Math.max(0, b.x));
    b.y = this.origin ? Math.min(b.scrollBottom, Math.max(b.scrollTop, b.y)) : Math.min(this.rows - 1, Math.max(0, b.y));
  }

  /** Absolute positioning: in origin mode rows count from the region's top. */
  private setCursor(x: number, y: number): void {
    const b = this.buffer;
    b.x = x;
    b.y = this.origin ? b.scrollTop + y : y;
    this.restrictCursor();
  }

  private moveCursor(dx: number, dy: number): void {
    this.restrictCursor();
    const b = this.buffer;
    b.x += dx;
    b.y += dy;
    this.restrictCursor();
  }

  private cursorUp(n: number): void {
    const b = this.buffer;
    const toTop = b.y - b.scrollTop;
    this.moveCursor(0, toTop >= 0 ? -Math.min(toTop, n) : -n);
  }

  private cursorDown(n: number): void {
    const b = this.buffer;
    const toBottom = b.scrollBottom - b.y;
    this.moveCursor(0, toBottom >= 0 ? Math.min(toBottom, n) : n);
  }

  private backspace(): void {
    const b = this.buffer;
    if (!this.reverseWraparound) {
      this.restrictCursor();
      if (b.x > 0) b.x--;
      return;
    }
    this.restrictCursor(this.cols);
    if (b.x > 0) {
      b.x--;
    } else if (b.y > b.scrollTop && b.y <= b.scrollBottom && b.row(b.y).isWrapped) {
      b.row(b.y).isWrapped = false;
      b.y--;
      b.x = this.cols - 1;
      // Skip the empty cell a wide character left when it wrapped early.
      const line = b.row(b.y);
      if (line.getWidth(b.x) === 1 && !line.hasContent(b.x)) b.x--;
    }
    this.restrictCursor();
  }

  private saveCursor(): void {
    const b = this.buffer;
    b.savedX = b.x;
    b.savedY = b.ybase + b.y;
    b.savedCharset = this.charset;
    b.savedFg = this.pen.fg;
    b.savedBg = this.pen.bg;
  }

  private restoreCursor(): void {
    const b = this.buffer;
    b.x = b.savedX || 0;
    b.y = Math.max(b.savedY - b.ybase, 0);
    this.charset = b.savedCharset;
    this.pen.fg = b.savedFg;
    this.pen.bg = b.savedBg;
    this.restrictCursor();
  }

  // ---- line feed and scrolling

  private lineFeed(): void {
    const b = this.buffer;
    if (this.convertEol || this.lineFeedIsNewline) b.x = 0;
    b.y++;
    if (b.y === b.scrollBottom + 1) {
      b.y--;
      this.scroll(false);
    } else if (b.y >= this.rows) {
      b.y = this.rows - 1;
    } else {
      // An explicit line feed ends a soft-wrapped line.
      b.row(b.y).isWrapped = false;
    }
    if (b.x >= this.cols) b.x--;
  }

  private index(): void {
    this.restrictCursor();
    const b = this.buffer;
    b.y++;
    if (b.y === b.scrollBottom + 1) {
      b.y--;
      this.scroll(false);
    } else if (b.y >= this.rows) {
      b.y = this.rows - 1;
    }
    this.restrictCursor();
  }

  private reverseIndex(): void {
    this.restrictCursor();
    const b = this.buffer;
    if (b.y === b.scrollTop) {
      const height = b.scrollBottom - b.scrollTop;
      const bottom = b.lines.get(b.ybase + b.y + height);
      if (bottom) this.gone(bottom);
      b.lines.shiftElements(b.ybase + b.y, height, 1);
      b.lines.set(b.ybase + b.y, b.blankLine(false, this.eraseBg));
    } else {
      b.y--;
      this.restrictCursor();
    }
  }

  /** Scrolls the region up one line; the top line goes to scrollback or is dropped. */
  private scroll(isWrapped: boolean): void {
    const b = this.buffer;
    const lines = b.lines;
    const topRow = b.ybase + b.scrollTop;
    const bottomRow = b.ybase + b.scrollBottom;
    if (b.scrollTop === 0) {
      const willTrim = lines.isFull;
      if (this.lineScrolledBack && b.hasScrollback && this.scrollback > 0) this.lineScrolledBack(lines.at(topRow));
      if (willTrim) this.gone(lines.at(0));
      if (bottomRow === lines.length - 1) {
        // A full buffer reuses the line it drops (no allocation per scrolled line).
        if (willTrim) lines.recycle().reset(this.cols, isWrapped, this.eraseBg);
        else lines.push(b.blankLine(isWrapped, this.eraseBg));
      } else {
        lines.splice(bottomRow + 1, 0, b.blankLine(isWrapped, this.eraseBg));
      }
      if (!willTrim) b.ybase++;
    } else {
      const top = lines.at(topRow);
      this.gone(top);
      lines.shiftElements(topRow + 1, bottomRow - topRow, -1);
      top.reset(this.cols, isWrapped, this.eraseBg);
      lines.set(bottomRow, top);
    }
  }

  private gone(line: ScreenLine): void {
    if (this.lineGone) this.lineGone(line);
  }

  /**
   * Moves the rows top..bottom (buffer indexes) by n: `up` drops rows at the top and adds blank
   * ones at the bottom, else the reverse. Scrolling (SU/SD, LF at the margin) and IL/DL are all this.
   */
  private shiftRows(top: number, bottom: number, n: number, up: boolean, bg = this.eraseBg): void {
    const b = this.buffer;
    n = Math.min(n, bottom - top + 1);
    while (n--) {
      const from = up ? top : bottom;
      this.gone(b.lines.at(from));
      b.lines.splice(from, 1);
      b.lines.splice(up ? bottom : top, 0, b.blankLine(false, bg));
    }
  }

  private scrollUp(n: number): void {
    const b = this.buffer;
    this.shiftRows(b.ybase + b.scrollTop, b.ybase + b.scrollBottom, n, true);
  }

  private scrollDown(n: number): void {
    const b = this.buffer;
    // SD brings in default lines (xterm.js does, unlike its SU, IL and DL).
    this.shiftRows(b.ybase + b.scrollTop, b.ybase + b.scrollBottom, n, false, 0);
  }

  /** IL (insert) and DL (delete): the rows from the cursor's to the bottom margin move. */
  private insertLines(n: number, insert = true): void {
    this.restrictCursor();
    const b = this.buffer;
    if (b.y > b.scrollBottom || b.y < b.scrollTop) return;
    this.shiftRows(b.ybase + b.y, b.ybase + b.scrollBottom, n, !insert);
    b.x = 0;
  }

  private deleteLines(n: number): void {
    this.insertLines(n, false);
  }

  /** SL/SR (from column 0) and DECIC/DECDC (from the cursor) on every row of the region. */
  private shiftColumns(from: number, n: number, right: boolean): void {
    const b = this.buffer;
    if (b.y > b.scrollBottom || b.y < b.scrollTop) return;
    for (let y = b.scrollTop; y <= b.scrollBottom; ++y) {
      const line = b.row(y);
      this.touch(line);
      if (right) line.insertCells(from, n, 0, this.eraseBg);
      else line.deleteCells(from, n, 0, this.eraseBg);
      line.isWrapped = false;
    }
  }

  // ---- erase

  private eraseInDisplay(mode: number, selective: boolean): void {
    this.restrictCursor(this.cols);
    const b = this.buffer;
    let j: number;
    switch (mode) {
      case 0:
        j = b.y;
        this.eraseRow(j++, b.x, this.cols, b.x === 0, b.x === 0, selective);
        for (; j < this.rows; j++) this.resetRow(j, selective);
        break;
      case 1:
        j = b.y;
        this.eraseRow(j, 0, b.x + 1, true, b.x + 1 >= this.cols, selective);
        if (b.x + 1 >= this.cols) {
          const next = b.lines.get(b.ybase + j + 1);
          if (next) next.isWrapped = false;
        }
        while (j--) this.resetRow(j, selective);
        break;
      case 2:
        for (j = 0; j < this.rows; j++) this.resetRow(j, selective);
        break;
      case 3: {
        const extra = b.lines.length - this.rows;
        if (extra > 0) {
          for (let i = 0; i < extra; i++) this.gone(b.lines.at(i));
          b.lines.trimStart(extra);
          b.ybase = Math.max(b.ybase - extra, 0);
        }
        break;
      }
    }
  }

  private eraseInLine(mode: number, selective: boolean): void {
    this.restrictCursor(this.cols);
    const b = this.buffer;
    if (mode === 0) this.eraseRow(b.y, b.x, this.cols, b.x === 0, false, selective);
    else if (mode === 1) this.eraseRow(b.y, 0, b.x + 1, false, false, selective);
    else if (mode === 2) this.eraseRow(b.y, 0, this.cols, true, false, selective);
  }

  /**
   * Erases [start, end) of row y; `whole` (ED clearing the full row) reports its text first.
   * `selective` (DECSED, DECSEL): a row holding protected cells keeps them, and its text stays
   * (a change, not a row gone); a row without any is erased as by ED/EL.
   */
  private eraseRow(y: number, start: number, end: number, clearWrap: boolean, whole: boolean, selective = false): void {
    const line = this.buffer.row(y);
    if (selective && line.hasProtected()) {
      this.touch(line);
      line.replaceUnprotected(start, end, 0, this.eraseBg);
      if (clearWrap) line.isWrapped = false;
      return;
    }
    if (whole && line.time >= 0) {
      this.gone(line);
      line.time = -1;
    }
    this.touch(line);
    line.replaceCells(start, end, 0, this.eraseBg);
    if (clearWrap) line.isWrapped = false;
  }

  /** Empties row y completely; its text is reported first (the screen was cleared). `selective`: see eraseRow. */
  private resetRow(y: number, selective = false): void {
    const line = this.buffer.lines.get(this.buffer.ybase + y);
    if (!line) return;
    if (selective && line.hasProtected()) {
      this.touch(line);
      line.replaceUnprotected(0, line.length, 0, this.eraseBg);
      line.isWrapped = false;
      return;
    }
    if (line.time >= 0) this.gone(line);
    line.fill(EMPTY_CELL, 0, this.eraseBg);
    line.isWrapped = false;
    line.time = -1;
    this.touch(line);
  }

  private alignmentPattern(): void {
    this.setCursor(0, 0);
    const b = this.buffer;
    for (let y = 0; y < this.rows; ++y) {
      const line = b.lines.get(b.ybase + b.y + y);
      if (!line) continue;
      this.touch(line);
      line.fill((1 << 22) | 0x45, this.pen.fg, this.pen.bg);
      line.isWrapped = false;
      line.time = this.time;
    }
    this.setCursor(0, 0);
  }

  private repeatPreceding(n: number): void {
    const width = this.joinState >> 1;
    if (!this.joinState) return;
    const b = this.buffer;
    const x = b.x - width;
    if (x < 0 || x >= this.cols) return;
    const text = b.row(b.y).cellString(x);
    if (!text) return;
    const count = Math.min(n, this.cols * this.rows);
    const units = new Uint16Array(text.length * count);
    for (let i = 0; i < count; i++) for (let k = 0; k < text.length; k++) units[i * text.length + k] = text.charCodeAt(k);
    this.print(units, 0, units.length);
    this.printRunEnd();
  }

  // ---- modes

  private setModes(params: Params, on: boolean): void {
    for (let i = 0; i < params.length; i++) {
      const mode = params.values[i];
      if (mode === 4) this.insertMode = on;
      else if (mode === 20) this.convertEol = on;
    }
  }

  private setPrivateModes(params: Params, on: boolean): void {
    for (let i = 0; i < params.length; i++) {
      switch (params.values[i]) {
        case 2:
          if (on) for (let g = 0; g < 4; g++) this.setGCharset(g, null);
          break;
        case 6:
          this.origin = on;
          this.setCursor(0, 0);
          break;
        case 7:
          this.wraparound = on;
          break;
        case 25:
          this.cursorHidden = !on;
          break;
        case 45:
          this.reverseWraparound = on;
          break;
        case 1048:
          if (on) this.saveCursor();
          else this.restoreCursor();
          break;
        case 1049:
        case 47:
        case 1047:
          if (on && params.values[i] === 1049) this.saveCursor();
          if (on) this.activateAlt();
          else {
            this.activateNormal();
            if (params.values[i] === 1049) this.restoreCursor();
          }
          break;
      }
    }
  }

  private activateAlt(): void {
    if (this.buffer === this.alt) return;
    this.alt.fillViewportRows(this.eraseBg);
    this.alt.x = this.normal.x;
    this.alt.y = this.normal.y;
    this.buffer = this.alt;
  }

  private activateNormal(): void {
    if (this.buffer === this.normal) return;
    this.normal.x = this.alt.x;
    this.normal.y = this.alt.y;
    this.alt.clear();
    this.buffer = this.normal;
  }

  private setScrollRegion(params: Params): void {
    const top = params.values[0] || 1;
    let bottom = params.length >= 2 ? params.values[1]! : 0;
    if (params.length < 2 || bottom > this.rows || bottom === 0) bottom = this.rows;
    if (bottom > top) {
      this.buffer.scrollTop = top - 1;
      this.buffer.scrollBottom = bottom - 1;
      this.setCursor(0, 0);
    }
  }

  private resetModes(): void {
    this.insertMode = false;
    this.origin = false;
    this.wraparound = true;
    this.reverseWraparound = false;
    this.cursorHidden = false;
  }

  private softReset(): void {
    const b = this.buffer;
    b.scrollTop = 0;
    b.scrollBottom = this.rows - 1;
    this.resetModes();
    this.resetCharsets();
    this.pen.reset();
    b.savedX = 0;
    b.savedY = b.ybase;
    b.savedCharset = this.charset;
    b.savedFg = 0;
    b.savedBg = 0;
  }

  /** RIS: new empty buffers of the current size; every line on them is reported gone. */
  private fullReset(): void {
    if (this.lineGone) {
      for (let i = 0; i < this.normal.lines.length; i++) this.gone(this.normal.lines.at(i));
      for (let i = 0; i < this.alt.lines.length; i++) this.gone(this.alt.lines.at(i));
    }
    this.createBuffers();
    this.resetModes();
    this.resetCharsets();
    this.pen.reset();
    this.joinState = 0;
  }

  // ---- charsets

  private resetCharsets(): void {
    this.charsets = [null, null, null, null];
    this.glevel = 0;
    this.charset = null;
  }

  private setGLevel(g: number): void {
    this.glevel = g;
    this.charset = this.charsets[g] ?? null;
  }

  private setGCharset(g: number, charset: Charset): void {
    this.charsets[g] = charset;
    if (this.glevel === g) this.charset = charset;
  }
}

/** ESC ( ) * + - . select G0..G3 (96-character sets with - and .). */
const G_LEVEL_BY_INTERMEDIATE: Record<number, number> = { 0x28: 0, 0x29: 1, 0x2a: 2, 0x2b: 3, 0x2d: 1, 0x2e: 2 };
/** Final bytes xterm.js accepts in a charset designation. */
const CHARSET_FINALS = new Set([...'0AB4C5RQKYE6ZH7='].map((c) => c.charCodeAt(0)));
