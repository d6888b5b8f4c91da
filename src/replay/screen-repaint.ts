// The screen model as escape sequences: written into a freshly reset terminal of the same size
// (xterm.js in the console), they reproduce the visible screen: every cell's character, the
// alternate screen (with the normal screen kept under it), the saved cursor, the scroll region,
// the modes the model keeps (insert, newline, origin, autowrap, reverse wrap, cursor
// visibility), the charsets, and the cursor position. Not reproduced: scrollback, custom tab
// stops, and attributes (the model keeps no colours, so no SGR is written).
import { DEC_SPECIAL_GRAPHICS, UK, type Charset } from './charsets.js';
import type { Screen } from './screen.js';
import type { ScreenBuffer } from './screen-buffer.js';
import type { ScreenLine } from './screen-line.js';

const ESC = '\x1b';
const cup = (y: number, x: number): string => `${ESC}[${y + 1};${x + 1}H`;

function designator(c: Charset): string {
  return c === DEC_SPECIAL_GRAPHICS ? '0' : c === UK ? 'A' : 'B';
}

/** One row's characters; empty cells are skipped with CUF so they stay empty (no written space). */
function rowText(line: ScreenLine, cols: number): string {
  let out = '';
  let skip = 0;
  const end = Math.min(cols, line.getTrimmedLength());
  for (let x = 0; x < end; ) {
    const w = line.getWidth(x);
    const text = line.cellString(x);
    if (!text) {
      skip++;
      x++;
      continue;
    }
    if (skip) out += skip === 1 ? `${ESC}[C` : `${ESC}[${skip}C`;
    skip = 0;
    out += text;
    x += w || 1;
  }
  return out;
}

/** Rows of one buffer, each from its first column (the terminal's charset is ASCII meanwhile). */
function paintRows(b: ScreenBuffer, cols: number, rows: number): string {
  let out = '';
  for (let y = 0; y < rows; y++) {
    const text = rowText(b.row(y), cols);
    if (text) out += cup(y, 0) + text;
  }
  return out;
}

/** The saved cursor of a buffer: positioned and saved with DECSC. */
function savedCursor(b: ScreenBuffer, rows: number): string {
  const y = Math.min(Math.max(b.savedY - b.ybase, 0), rows - 1);
  return cup(y, Math.min(b.savedX, b.cols - 1)) + `${ESC}7`;
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
  } else if (screen.normal.savedX || screen.normal.savedY) {
    out += savedCursor(screen.normal, rows);
  }
  const b = screen.buffer;
  const m = screen.modes;
  if (b.scrollTop !== 0 || b.scrollBottom !== rows - 1) out += `${ESC}[${b.scrollTop + 1};${b.scrollBottom + 1}r`;
  if (m.insert) out += `${ESC}[4h`;
  if (m.convertEol) out += `${ESC}[20h`;
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
  if (pending && m.wraparound) {
    // Written in ASCII so the cell keeps its character whatever charset is in force.
    const text = b.row(b.y).cellString(cols - 1) || ' ';
    out += pos + (cs.charset ? `${ESC}(B${text}${ESC}(${designator(cs.charsets[0] ?? null)}` : text);
    return out;
  }
  return out + pos;
}

export interface ScreenCell {
  /** The cell's text ('' for an empty cell). */
  t: string;
  /** 1, 2 (a wide character's first cell) or 0 (the cell a wide character covers). */
  w: number;
}

/** Every visible cell, row by row (the model keeps no attributes: text and width only). */
export function screenCells(screen: Screen): ScreenCell[][] {
  const out: ScreenCell[][] = [];
  for (let y = 0; y < screen.rows; y++) {
    const line = screen.row(y);
    const row: ScreenCell[] = [];
    for (let x = 0; x < screen.cols; x++) row.push({ t: line.cellString(x), w: x < line.length ? line.getWidth(x) : 1 });
    out.push(row);
  }
  return out;
}
