// The screen model as escape sequences: written into a freshly reset terminal of the same size
// (xterm.js in the console), they reproduce the visible screen: every cell's character, the
// alternate screen (with the normal screen kept under it), the saved cursor, the scroll region,
// the modes the model keeps (insert, newline, origin, autowrap, reverse wrap, cursor
// visibility), the charsets, every cell's attributes (SGR: colours and flags), the attributes
// saved with the cursor and the ones in force, and the cursor position. Not reproduced:
// scrollback, custom tab stops, and the foreground and flags of empty cells (an empty cell is
// painted with ECH, which gives it the background colour only).
import {
  BG_DIM, BG_ITALIC, BG_OVERLINE, BG_PROTECTED, CM_MASK, CM_P16, CM_P256, CM_RGB, COLOR_MASK, FG_BLINK, FG_BOLD, FG_INVERSE,
  FG_INVISIBLE, FG_STRIKETHROUGH, FG_UNDERLINE,
} from './cell-attrs.js';
import { DEC_SPECIAL_GRAPHICS, UK, type Charset } from './charsets.js';
import type { Screen } from './screen.js';
import type { ScreenBuffer } from './screen-buffer.js';
import type { ScreenLine } from './screen-line.js';

const ESC = '\x1b';
const cup = (y: number, x: number): string => `${ESC}[${y + 1};${x + 1}H`;

function designator(c: Charset): string {
  return c === DEC_SPECIAL_GRAPHICS ? '0' : c === UK ? 'A' : 'B';
}

function colorParams(word: number, base: number): string {
  const c = word & COLOR_MASK;
  switch (word & CM_MASK) {
    case CM_P16:
      return c < 8 ? `;${base + c}` : `;${base + 60 + (c & 7)}`;
    case CM_P256:
      return `;${base + 8};5;${c & 0xff}`;
    case CM_RGB:
      return `;${base + 8};2;${(c >> 16) & 0xff};${(c >> 8) & 0xff};${c & 0xff}`;
  }
  return '';
}

/** SGR that sets exactly these attributes (from a reset: `CSI 0 ; … m`). */
export function sgrFor(fg: number, bg: number): string {
  let p = '0';
  if (fg & FG_BOLD) p += ';1';
  if (bg & BG_DIM) p += ';2';
  if (bg & BG_ITALIC) p += ';3';
  if (fg & FG_UNDERLINE) p += ';4';
  if (fg & FG_BLINK) p += ';5';
  if (fg & FG_INVERSE) p += ';7';
  if (fg & FG_INVISIBLE) p += ';8';
  if (fg & FG_STRIKETHROUGH) p += ';9';
  if (bg & BG_OVERLINE) p += ';53';
  p += colorParams(fg, 30) + colorParams(bg, 40);
  // SGR 0 also ends DECSCA protection: it is set again after the SGR.
  return (p === '0' ? `${ESC}[m` : `${ESC}[${p}m`) + (bg & BG_PROTECTED ? `${ESC}[1"q` : '');
}

/** The attributes the terminal writes with while painting (to emit SGR only on a change). */
class PenState {
  fg = 0;
  bg = 0;

  set(fg: number, bg: number): string {
    if (fg === this.fg && bg === this.bg) return '';
    this.fg = fg;
    this.bg = bg;
    return sgrFor(fg, bg);
  }
}

/**
 * One row's characters with their attributes. Empty cells are skipped with CUF so they stay
 * empty (no written space); a run of empty cells with a background colour is erased with ECH
 * under that colour first (ECH fills with the background only, as the model's erases do).
 */
function rowText(line: ScreenLine, cols: number, pen: PenState): string {
  let out = '';
  let skip = 0;
  const end = line.attrs ? Math.min(cols, line.length) : Math.min(cols, line.getTrimmedLength());
  for (let x = 0; x < end; ) {
    const w = line.getWidth(x);
    const text = line.cellString(x);
    if (!text) {
      const bg = line.bg(x) & (CM_MASK | COLOR_MASK);
      if (bg !== 0) {
        let n = 1;
        while (x + n < end && !line.cellString(x + n) && (line.bg(x + n) & (CM_MASK | COLOR_MASK)) === bg) n++;
        if (skip) out += skip === 1 ? `${ESC}[C` : `${ESC}[${skip}C`;
        out += pen.set(0, bg) + (n === 1 ? `${ESC}[X` : `${ESC}[${n}X`);
        skip = n;
        x += n;
        continue;
      }
      skip++;
      x++;
      continue;
    }
    if (skip) out += skip === 1 ? `${ESC}[C` : `${ESC}[${skip}C`;
    skip = 0;
    out += pen.set(line.fg(x) >>> 0, line.bg(x) >>> 0) + text;
    x += w || 1;
  }
  return out;
}

/** Rows of one buffer, each from its first column (the terminal's charset is ASCII meanwhile). */
function paintRows(b: ScreenBuffer, cols: number, rows: number): string {
  let out = '';
  const pen = new PenState();
  for (let y = 0; y < rows; y++) {
    const text = rowText(b.row(y), cols, pen);
    if (text) out += cup(y, 0) + text;
  }
  // Back to the default: the erases that follow (the alternate screen's) must not take a colour.
  return out + pen.set(0, 0);
}

/** The saved cursor of a buffer: positioned and saved with DECSC (with its attributes). */
function savedCursor(b: ScreenBuffer, rows: number): string {
  const y = Math.min(Math.max(b.savedY - b.ybase, 0), rows - 1);
  const attrs = b.savedFg || b.savedBg;
  return cup(y, Math.min(b.savedX, b.cols - 1)) + (attrs ? sgrFor(b.savedFg >>> 0, b.savedBg >>> 0) : '') + `${ESC}7` + (attrs ? `${ESC}[m` : '');
}

/** The escape sequences that repaint `screen` in a reset terminal of its size. */
export function repaintScreen(screen: Screen): string {
  const { cols, rows } = screen;
  // No autowrap while painting: a row that fills the width must not wrap into the next.
  let out = `${ESC}[?7l${ESC}[H${ESC}[2J`;
  out += paintRows(screen.normal, cols, rows);
  if (screen.isAlternate) {
    // 1049 saves the cursor, then switches: the normal screen's saved cursor goes first.
    out += savedCursor(screen.normal, rows) + `${ESC}[?1049h${ESC}[H${ESC}[2J`;
    out += paintRows(screen.alt, cols, rows);
    out += savedCursor(screen.alt, rows);
  } else if (screen.normal.savedX || screen.normal.savedY || screen.normal.savedFg || screen.normal.savedBg) {
    out += savedCursor(screen.normal, rows);
  }
  const b = screen.buffer;
  const m = screen.modes;
  if (b.scrollTop !== 0 || b.scrollBottom !== rows - 1) out += `${ESC}[${b.scrollTop + 1};${b.scrollBottom + 1}r`;
  if (m.insert) out += `${ESC}[4h`;
  // LNM also for a pipe stream's newline: the bytes a player writes next are drawn as the model draws them.
  if (m.convertEol || screen.lineFeedIsNewline) out += `${ESC}[20h`;
  if (m.reverseWraparound) out += `${ESC}[?45h`;
  if (m.cursorHidden) out += `${ESC}[?25l`;
  const cs = screen.charsetState;
  cs.charsets.forEach((c, g) => {
    if (c) out += `${ESC}${'()*+'[g]}${designator(c)}`;
  });
  if (cs.glevel === 1) out += '\x0e';
  else if (cs.glevel === 2) out += `${ESC}n`;
  else if (cs.glevel === 3) out += `${ESC}o`;
  // The cursor last (origin mode counts rows from the region's top). A cursor past the last
  // column (a pending wrap) is reached by writing that last cell again.
  const pending = b.x >= cols;
  const x = pending ? cols - 1 : b.x;
  let pos = m.origin ? `${ESC}[?6h${cup(b.y - b.scrollTop, x)}` : cup(b.y, x);
  if (m.wraparound) pos += `${ESC}[?7h`;
  // The attributes in force, for what the session writes next.
  const pen = screen.attrs;
  const sgr = pen.fg || pen.bg ? sgrFor(pen.fg >>> 0, pen.bg >>> 0) : '';
  if (pending && m.wraparound) {
    // Written in ASCII (and its own attributes) so the cell keeps its character whatever
    // charset is in force.
    const row = b.row(b.y);
    const text = row.cellString(cols - 1) || ' ';
    const own = row.fg(cols - 1) || row.bg(cols - 1) ? sgrFor(row.fg(cols - 1) >>> 0, row.bg(cols - 1) >>> 0) : '';
    out += pos + own + (cs.charset ? `${ESC}(B${text}${ESC}(${designator(cs.charsets[0] ?? null)}` : text);
    return out + (own ? `${ESC}[m` : '') + sgr;
  }
  return out + pos + sgr;
}

export interface ScreenCell {
  /** The cell's text ('' for an empty cell). */
  t: string;
  /** 1, 2 (a wide character's first cell) or 0 (the cell a wide character covers). */
  w: number;
  /** Foreground: a palette index 0-255 (0-15 the 16 ANSI colours) or '#rrggbb'; absent: default. */
  fg?: number | string;
  /** Background, as fg. */
  bg?: number | string;
  /** CELL_FLAGS bits; absent: none. */
  flags?: number;
}

/** Bits of ScreenCell.flags. */
export const CELL_FLAGS = {
  bold: 1, dim: 2, italic: 4, underline: 8, blink: 16, inverse: 32, invisible: 64, strikethrough: 128, overline: 256,
} as const;

function cellColor(word: number): number | string | undefined {
  const mode = word & CM_MASK;
  if (mode === 0) return undefined;
  if (mode === CM_RGB) return `#${(word & COLOR_MASK).toString(16).padStart(6, '0')}`;
  return word & 0xff;
}

/** The CELL_FLAGS bits of a cell's fg and bg words. */
export function cellFlags(fg: number, bg: number): number {
  let f = 0;
  if (fg & FG_BOLD) f |= CELL_FLAGS.bold;
  if (bg & BG_DIM) f |= CELL_FLAGS.dim;
  if (bg & BG_ITALIC) f |= CELL_FLAGS.italic;
  if (fg & FG_UNDERLINE) f |= CELL_FLAGS.underline;
  if (fg & FG_BLINK) f |= CELL_FLAGS.blink;
  if (fg & FG_INVERSE) f |= CELL_FLAGS.inverse;
  if (fg & FG_INVISIBLE) f |= CELL_FLAGS.invisible;
  if (fg & FG_STRIKETHROUGH) f |= CELL_FLAGS.strikethrough;
  if (bg & BG_OVERLINE) f |= CELL_FLAGS.overline;
  return f;
}

/** Every visible cell, row by row: text, width, and the attributes that are not the default. */
export function screenCells(screen: Screen, first = 0, last = screen.rows - 1): ScreenCell[][] {
  const out: ScreenCell[][] = [];
  for (let y = Math.max(0, first); y <= Math.min(last, screen.rows - 1); y++) {
    const line = screen.row(y);
    const row: ScreenCell[] = [];
    for (let x = 0; x < screen.cols; x++) {
      const cell: ScreenCell = { t: line.cellString(x), w: x < line.length ? line.getWidth(x) : 1 };
      if (line.attrs !== null && x < line.length) {
        const fgw = line.fg(x);
        const bgw = line.bg(x);
        const fg = cellColor(fgw);
        const bg = cellColor(bgw);
        const flags = cellFlags(fgw, bgw);
        if (fg !== undefined) cell.fg = fg;
        if (bg !== undefined) cell.bg = bg;
        if (flags) cell.flags = flags;
      }
      row.push(cell);
    }
    out.push(row);
  }
  return out;
}
