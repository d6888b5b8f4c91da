// One row of the screen: a cell per column in a Uint32Array.
//
// Cell layout (the idea of xterm.js's BufferLine, reduced to text: no colours): bits 0-20 hold
// the code point (0 = an empty cell), bit 21 marks a cell whose text is a base character plus
// combining characters (kept in `combined`), bits 22-23 hold the cell width: 1, 2 for the first
// cell of a wide character, 0 for the cell a wide character covers. An empty cell has width 1.
//
// Attributes (SGR) live apart, in `attrs`: two words per cell (fg, bg; see cell-attrs.ts), null
// while every cell of the row has the default attributes, so text-only sessions pay nothing.

import { BG_PROTECTED } from './cell-attrs.js';

export const CODE_MASK = 0x1fffff;
export const COMBINED_FLAG = 0x200000;
export const HAS_CONTENT_MASK = 0x3fffff;
export const WIDTH_SHIFT = 22;
export const EMPTY_CELL = 1 << WIDTH_SHIFT;

export class ScreenLine {
  cells: Uint32Array;
  length: number;
  /** fg, bg words per cell (interleaved, 2 × cells.length), or null: all cells default. */
  attrs: Uint32Array | null = null;
  /** Text of cells carrying combining characters, by column. */
  combined: Map<number, string> | null = null;
  /** The row continues the row above it (autowrap). */
  isWrapped: boolean;
  /** Time (ms) of the last character written into this row; -1 when blank since it was cleared. */
  time = -1;
  /**
   * Screen.stamp of the last write that changed this row's cells (processed text looks for
   * changed rows; it sets -1 on a row whose text it has taken for good).
   */
  mod = 0;
  /** Kept by processed text: the row as it showed before the write of stamp `mod` changed it. */
  shown: ScreenLine | null = null;

  /** A blank line; `bg` (an erase attribute: background colour only) fills its cells. */
  constructor(cols: number, isWrapped = false, bg = 0) {
    this.cells = new Uint32Array(cols).fill(EMPTY_CELL);
    this.length = cols;
    this.isWrapped = isWrapped;
    if (bg) this.fillAttrs(0, cols, 0, bg);
  }

  /** Makes this line a blank one of `cols` cells (reusing a line that scrolled out of memory). */
  reset(cols: number, isWrapped: boolean, bg = 0): void {
    if (this.cells.length < cols) {
      this.cells = new Uint32Array(cols);
      this.attrs = null;
    }
    this.cells.fill(EMPTY_CELL, 0, cols);
    this.length = cols;
    // A line that had attributes keeps its array (zeroed): scrolling coloured output reuses it.
    if (bg || this.attrs !== null) this.fillAttrs(0, cols, 0, bg);
    this.combined = null;
    this.isWrapped = isWrapped;
    this.time = -1;
    this.mod = 0;
    this.shown = null;
  }

  getWidth(i: number): number {
    return this.cells[i]! >>> WIDTH_SHIFT;
  }

  hasContent(i: number): boolean {
    return (this.cells[i]! & HAS_CONTENT_MASK) !== 0;
  }

  /** The fg word of cell i (colour, mode and fg flags; 0 = default). */
  fg(i: number): number {
    return this.attrs === null ? 0 : this.attrs[2 * i]!;
  }

  /** The bg word of cell i (colour, mode and bg flags; 0 = default). */
  bg(i: number): number {
    return this.attrs === null ? 0 : this.attrs[2 * i + 1]!;
  }

  /** Sets the attributes of cell i (allocates `attrs` only for a non-default one). */
  setAttr(i: number, fg: number, bg: number): void {
    let a = this.attrs;
    if (a === null) {
      if ((fg | bg) === 0) return;
      a = this.attrs = new Uint32Array(this.cells.length * 2);
    }
    a[2 * i] = fg;
    a[2 * i + 1] = bg;
  }

  /** Sets the attributes of cells [start, end). */
  fillAttrs(start: number, end: number, fg: number, bg: number): void {
    let a = this.attrs;
    if (a === null) {
      if ((fg | bg) === 0) return;
      a = this.attrs = new Uint32Array(this.cells.length * 2);
    }
    if ((fg | bg) === 0) {
      a.fill(0, 2 * start, 2 * end);
      return;
    }
    for (let i = 2 * start, e = 2 * end; i < e; i += 2) {
      a[i] = fg;
      a[i + 1] = bg;
    }
  }

  setCell(i: number, cp: number, width: number, fg = 0, bg = 0): void {
    this.cells[i] = cp | (width << WIDTH_SHIFT);
    if (this.attrs !== null || (fg | bg) !== 0) this.setAttr(i, fg, bg);
  }

  /** Empties cell i; fg/bg are the attributes it takes (an erase: the background colour only). */
  clearCell(i: number, fg = 0, bg = 0): void {
    this.cells[i] = EMPTY_CELL;
    if (this.attrs !== null || (fg | bg) !== 0) this.setAttr(i, fg, bg);
  }

  /** Copies cell `from` of `src` (with its combining text and attributes) to cell `to` of this line. */
  private copyCell(src: ScreenLine, from: number, to: number): void {
    const v = src.cells[from]!;
    this.cells[to] = v;
    if (src.attrs !== null) this.setAttr(to, src.attrs[2 * from]!, src.attrs[2 * from + 1]!);
    else if (this.attrs !== null) this.setAttr(to, 0, 0);
    if (v & COMBINED_FLAG) {
      this.combined ??= new Map();
      this.combined.set(to, src.combined?.get(from) ?? '');
    }
  }

  /** Appends a combining code point to cell i; `width` (if non-zero) becomes the cell's width. */
  addCodepoint(i: number, cp: number, width: number): void {
    let v = this.cells[i]!;
    const ch = String.fromCodePoint(cp);
    if (v & COMBINED_FLAG) {
      this.combined!.set(i, (this.combined!.get(i) ?? '') + ch);
    } else if (v & CODE_MASK) {
      this.combined ??= new Map();
      this.combined.set(i, String.fromCodePoint(v & CODE_MASK) + ch);
      v = (v & ~CODE_MASK) | COMBINED_FLAG;
    } else {
      v = cp | (1 << WIDTH_SHIFT);
    }
    if (width) v = (v & HAS_CONTENT_MASK) | (width << WIDTH_SHIFT);
    this.cells[i] = v;
  }

  /** ICH: shifts cells right from pos, filling with empty cells; wide characters cut in half are cleared. */
  insertCells(pos: number, n: number, fg = 0, bg = 0): void {
    pos %= this.length;
    if (pos && this.getWidth(pos - 1) === 2) this.clearCell(pos - 1, fg, bg);
    if (n < this.length - pos) {
      for (let i = this.length - pos - n - 1; i >= 0; --i) this.copyCell(this, pos + i, pos + n + i);
      for (let i = 0; i < n; ++i) this.clearCell(pos + i, fg, bg);
    } else {
      for (let i = pos; i < this.length; ++i) this.clearCell(i, fg, bg);
    }
    if (this.getWidth(this.length - 1) === 2) this.clearCell(this.length - 1, fg, bg);
  }

  /** DCH: shifts cells left into pos, filling the end with empty cells. */
  deleteCells(pos: number, n: number, fg = 0, bg = 0): void {
    pos %= this.length;
    if (n < this.length - pos) {
      for (let i = 0; i < this.length - pos - n; ++i) this.copyCell(this, pos + n + i, pos + i);
      for (let i = this.length - n; i < this.length; ++i) this.clearCell(i, fg, bg);
    } else {
      for (let i = pos; i < this.length; ++i) this.clearCell(i, fg, bg);
    }
    if (pos && this.getWidth(pos - 1) === 2) this.clearCell(pos - 1, fg, bg);
    if (this.getWidth(pos) === 0 && !this.hasContent(pos)) this.clearCell(pos, fg, bg);
  }

  /** Empties cells [start, end), and the other half of a wide character cut at either edge. */
  replaceCells(start: number, end: number, fg = 0, bg = 0): void {
    if (start && this.getWidth(start - 1) === 2) this.clearCell(start - 1, fg, bg);
    if (end < this.length && this.getWidth(end - 1) === 2) this.clearCell(end, fg, bg);
    end = Math.min(end, this.length);
    if (start >= end) return;
    this.cells.fill(EMPTY_CELL, start, end);
    if (this.attrs !== null || (fg | bg) !== 0) this.fillAttrs(start, end, fg, bg);
  }

  /** Does a cell of the row carry DECSCA protection? (Only a row with attributes can.) */
  hasProtected(): boolean {
    const a = this.attrs;
    if (a === null) return false;
    for (let i = 1, e = 2 * this.length; i < e; i += 2) if (a[i]! & BG_PROTECTED) return true;
    return false;
  }

  /**
   * Selective erase (DECSED, DECSEL): replaceCells leaving protected cells as they are, the
   * order of xterm.js's BufferLine.replaceCells with respectProtect (MIT): a wide character cut at
   * either edge is cleared unless the cell looked at is protected.
   */
  replaceUnprotected(start: number, end: number, fg = 0, bg = 0): void {
    const a = this.attrs;
    if (a === null) {
      this.replaceCells(start, end, fg, bg);
      return;
    }
    const prot = (i: number): boolean => (a[2 * i + 1]! & BG_PROTECTED) !== 0;
    if (start && this.getWidth(start - 1) === 2 && !prot(start - 1)) this.clearCell(start - 1, fg, bg);
    if (end < this.length && this.getWidth(end - 1) === 2 && !prot(end)) this.clearCell(end, fg, bg);
    for (end = Math.min(end, this.length); start < end; start++) if (!prot(start)) this.clearCell(start, fg, bg);
  }

  fill(cell: number = EMPTY_CELL, fg = 0, bg = 0): void {
    this.cells.fill(cell, 0, this.length);
    this.combined = null;
    if (this.attrs !== null || (fg | bg) !== 0) this.fillAttrs(0, this.length, fg, bg);
  }

  resize(cols: number): void {
    if (cols === this.length) return;
    if (cols > this.length) {
      if (this.cells.length < cols) {
        const grown = new Uint32Array(cols);
        grown.set(this.cells.subarray(0, this.length));
        this.cells = grown;
        if (this.attrs !== null) {
          const attrs = new Uint32Array(cols * 2);
          attrs.set(this.attrs.subarray(0, this.length * 2));
          this.attrs = attrs;
        }
      } else if (this.attrs !== null) {
        this.attrs.fill(0, this.length * 2, cols * 2);
      }
      this.cells.fill(EMPTY_CELL, this.length, cols);
    } else if (this.combined) {
      for (const key of [...this.combined.keys()]) if (key >= cols) this.combined.delete(key);
    }
    this.length = cols;
  }

  copyFrom(src: ScreenLine): void {
    this.cells = src.cells.slice(0, src.length);
    this.attrs = src.attrs ? src.attrs.slice(0, src.length * 2) : null;
    this.length = src.length;
    this.combined = src.combined ? new Map(src.combined) : null;
    this.isWrapped = src.isWrapped;
    this.time = src.time;
  }

  clone(): ScreenLine {
    const line = new ScreenLine(0);
    line.copyFrom(this);
    return line;
  }

  /** Columns up to and including the last non-empty cell (written spaces count). */
  getTrimmedLength(): number {
    for (let i = this.length - 1; i >= 0; --i) {
      const v = this.cells[i]!;
      if (v & HAS_CONTENT_MASK) return i + (v >>> WIDTH_SHIFT);
    }
    return 0;
  }

  copyCellsFrom(src: ScreenLine, srcCol: number, destCol: number, length: number, reverse: boolean): void {
    if (reverse) {
      for (let c = length - 1; c >= 0; c--) this.copyCell(src, srcCol + c, destCol + c);
    } else {
      for (let c = 0; c < length; c++) this.copyCell(src, srcCol + c, destCol + c);
    }
  }

  /** Text of cell i ('' for an empty cell or the second half of a wide character). */
  cellString(i: number): string {
    const v = this.cells[i];
    if (v === undefined) return '';
    if (v & COMBINED_FLAG) return this.combined?.get(i) ?? '';
    const cp = v & CODE_MASK;
    return cp ? String.fromCodePoint(cp) : '';
  }

  /** The row as text; empty cells read as spaces; `trimRight` stops after the last non-empty cell. */
  translateToString(trimRight = false, startCol = 0, endCol = this.length): string {
    if (trimRight) endCol = Math.min(endCol, this.getTrimmedLength());
    let out = '';
    while (startCol < endCol) {
      const v = this.cells[startCol]!;
      const cp = v & CODE_MASK;
      if (v & COMBINED_FLAG) out += this.combined?.get(startCol) ?? '';
      else if (cp === 0) out += ' ';
      else if (cp < 0x10000) out += String.fromCharCode(cp);
      else out += String.fromCodePoint(cp);
      startCol += v >>> WIDTH_SHIFT || 1;
    }
    return out;
  }
}
