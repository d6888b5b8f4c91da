// One screen buffer (the normal one with scrollback, or the alternate one): lines, cursor,
// scroll region, tab stops, saved cursor, and resizing.
//
// Resize follows xterm.js's Buffer.resize (MIT), because xterm.js is the reference our fidelity
// tests compare against: growing the rows pulls lines back from scrollback when the cursor is at
// the bottom, shrinking them pushes lines into scrollback, and the normal buffer re-wraps
// soft-wrapped lines to the new width ("reflow"), except the lines holding the cursor. The code
// is written anew; the order of the steps and the viewport adjustments are xterm.js's.
import type { Charset } from './charsets.js';
import { LineRing } from './line-ring.js';
import { ScreenLine } from './screen-line.js';

const TAB_WIDTH = 8;

export class ScreenBuffer {
  lines: LineRing;
  /** Index of the first screen row in `lines` (the number of scrollback lines). */
  ybase = 0;
  x = 0;
  y = 0;
  scrollTop = 0;
  scrollBottom: number;
  tabs: Uint8Array = new Uint8Array(0);
  savedX = 0;
  /** Absolute line index (ybase + y) of the saved cursor, as xterm.js keeps it. */
  savedY = 0;
  savedCharset: Charset = null;
  /** SGR attributes saved with the cursor (DECSC). */
  savedFg = 0;
  savedBg = 0;
  cols: number;
  rows: number;
  /** Called with every line the buffer drops (scrolled out of memory, trimmed, cleared away). */
  discard: ((line: ScreenLine) => void) | null = null;

  constructor(
    readonly hasScrollback: boolean,
    private readonly scrollback: number,
    cols: number,
    rows: number,
  ) {
    this.cols = cols;
    this.rows = rows;
    this.lines = new LineRing(this.capacity(rows));
    this.scrollBottom = rows - 1;
    this.setupTabStops();
  }

  private capacity(rows: number): number {
    return this.hasScrollback ? rows + this.scrollback : rows;
  }

  /** A blank line; `bg` is the erase attribute its cells take (back colour erase). */
  blankLine(isWrapped = false, bg = 0): ScreenLine {
    return new ScreenLine(this.cols, isWrapped, bg);
  }

  /** The line of screen row y. */
  row(y: number): ScreenLine {
    return this.lines.at(this.ybase + y);
  }

  fillViewportRows(bg = 0): void {
    if (this.lines.length === 0) {
      for (let i = 0; i < this.rows; i++) this.lines.push(this.blankLine(false, bg));
    }
  }

  /** Empties the buffer (leaving the alternate screen); every line is handed to `discard`. */
  clear(): void {
    if (this.discard) for (let i = 0; i < this.lines.length; i++) this.discard(this.lines.at(i));
    this.ybase = 0;
    this.x = 0;
    this.y = 0;
    this.lines = new LineRing(this.capacity(this.rows));
    this.scrollTop = 0;
    this.scrollBottom = this.rows - 1;
    this.setupTabStops();
  }

  // ---- tab stops (a byte per column; stops beyond the width survive a shrink, as in xterm.js)

  private ensureTabs(n: number): void {
    if (this.tabs.length < n) {
      const grown = new Uint8Array(Math.max(n, this.tabs.length * 2));
      grown.set(this.tabs);
      this.tabs = grown;
    }
  }

  hasTab(x: number): boolean {
    return x >= 0 && x < this.tabs.length && this.tabs[x] === 1;
  }

  setTab(x: number): void {
    if (x < 0) return;
    this.ensureTabs(x + 1);
    this.tabs[x] = 1;
  }

  clearTab(x: number): void {
    if (x >= 0 && x < this.tabs.length) this.tabs[x] = 0;
  }

  clearAllTabs(): void {
    this.tabs.fill(0);
  }

  /** Default stops every 8 columns; from column `from` (after a resize) to the right edge. */
  setupTabStops(from?: number): void {
    let i: number;
    if (from !== undefined) {
      i = this.hasTab(from) ? from : this.prevStop(from);
    } else {
      this.tabs = new Uint8Array(Math.max(this.cols, 8));
      i = 0;
    }
    for (; i < this.cols; i += TAB_WIDTH) this.setTab(i);
  }

  prevStop(x: number = this.x): number {
    while (!this.hasTab(--x) && x > 0);
    return x >= this.cols ? this.cols - 1 : x < 0 ? 0 : x;
  }

  nextStop(x: number = this.x): number {
    while (!this.hasTab(++x) && x < this.cols);
    return x >= this.cols ? this.cols - 1 : x < 0 ? 0 : x;
  }

  // ---- resize

  resize(newCols: number, newRows: number): void {
    const lines = this.lines;
    const newCapacity = this.capacity(newRows);
    if (newCapacity > lines.maxLength) lines.maxLength = newCapacity;

    if (lines.length > 0) {
      if (this.cols < newCols) {
        for (let i = 0; i < lines.length; i++) lines.at(i).resize(newCols);
      }
      let addToY = 0;
      if (this.rows < newRows) {
        for (let y = this.rows; y < newRows; y++) {
          if (lines.length < newRows + this.ybase) {
            if (this.ybase > 0 && lines.length <= this.ybase + this.y + addToY + 1) {
              // Cursor at the bottom: bring a scrollback line back into view.
              this.ybase--;
              addToY++;
            } else {
              lines.push(new ScreenLine(newCols));
            }
          }
        }
      } else {
        for (let y = this.rows; y > newRows; y--) {
          if (lines.length > newRows + this.ybase) {
            if (lines.length > this.ybase + this.y + 1) {
              const dropped = lines.pop();
              if (dropped && this.discard) this.discard(dropped);
            } else {
              this.ybase++;
            }
          }
        }
      }
      if (newCapacity < lines.maxLength) {
        const trim = lines.length - newCapacity;
        if (trim > 0) {
          this.dropFirst(trim);
          this.ybase = Math.max(this.ybase - trim, 0);
          this.savedY = Math.max(this.savedY - trim, 0);
        }
        lines.maxLength = newCapacity;
      }
      this.x = Math.min(this.x, newCols - 1);
      this.y = Math.min(this.y, newRows - 1);
      if (addToY) this.y += addToY;
      this.savedX = Math.min(this.savedX, newCols - 1);
      this.scrollTop = 0;
    }
    this.scrollBottom = newRows - 1;

    // Only the normal buffer reflows; the alternate buffer keeps its (possibly longer) lines.
    if (this.hasScrollback && this.cols !== newCols) {
      const oldCols = this.cols;
      this.cols = newCols;
      if (newCols > oldCols) this.reflowLarger(oldCols, newCols, newRows);
      else this.reflowSmaller(oldCols, newCols, newRows);
      if (oldCols > newCols) {
        for (let i = 0; i < lines.length; i++) lines.at(i).resize(newCols);
      }
    }
    this.cols = newCols;
    this.rows = newRows;
  }

  private dropFirst(n: number): void {
    if (this.discard) for (let i = 0; i < Math.min(n, this.lines.length); i++) this.discard(this.lines.at(i));
    this.lines.trimStart(n);
  }

  /** Joins soft-wrapped lines that now fit into fewer rows. */
  private reflowLarger(oldCols: number, newCols: number, newRows: number): void {
    const lines = this.lines;
    const cursorAbsY = this.ybase + this.y;
    const toRemove: number[] = [];
    for (let y = 0; y < lines.length - 1; y++) {
      let i = y;
      let next = lines.get(++i);
      if (!next || !next.isWrapped) continue;
      const group: ScreenLine[] = [lines.at(y)];
      while (i < lines.length && next && next.isWrapped) {
        group.push(next);
        next = lines.get(++i);
      }
      if (cursorAbsY >= y && cursorAbsY < i) {
        y += group.length - 1;
        continue;
      }
      let destIdx = 0;
      let destCol = wrappedTrimmedLength(group, destIdx, oldCols);
      let srcIdx = 1;
      let srcCol = 0;
      while (srcIdx < group.length) {
        const srcLen = wrappedTrimmedLength(group, srcIdx, oldCols);
        const count = Math.min(srcLen - srcCol, newCols - destCol);
        group[destIdx]!.copyCellsFrom(group[srcIdx]!, srcCol, destCol, count, false);
        destCol += count;
        if (destCol === newCols) {
          destIdx++;
          destCol = 0;
        }
        srcCol += count;
        if (srcCol === srcLen) {
          srcIdx++;
          srcCol = 0;
        }
        // A wide character may not start in the last column: move it down a row.
        if (destCol === 0 && destIdx !== 0 && group[destIdx - 1]!.getWidth(newCols - 1) === 2) {
          group[destIdx]!.copyCellsFrom(group[destIdx - 1]!, newCols - 1, destCol++, 1, false);
          group[destIdx - 1]!.clearCell(newCols - 1);
        }
      }
      group[destIdx]!.replaceCells(destCol, newCols);
      let countToRemove = 0;
      for (let k = group.length - 1; k > 0; k--) {
        if (k > destIdx || group[k]!.getTrimmedLength() === 0) countToRemove++;
        else break;
      }
      if (countToRemove > 0) toRemove.push(y + group.length - countToRemove, countToRemove);
      y += group.length - 1;
    }
    if (toRemove.length === 0) return;

    const kept: ScreenLine[] = [];
    let removed = 0;
    let next = 0;
    for (let i = 0; i < lines.length; i++) {
      if (toRemove[next] === i) {
        const count = toRemove[next + 1]!;
        i += count - 1;
        removed += count;
        next += 2;
      } else {
        kept.push(lines.at(i));
      }
    }
    for (let i = 0; i < kept.length; i++) lines.set(i, kept[i]!);
    lines.setLength(kept.length);

    for (let n = removed; n > 0; n--) {
      if (this.ybase === 0) {
        if (this.y > 0) this.y--;
        if (lines.length < newRows) lines.push(new ScreenLine(newCols));
      } else {
        this.ybase--;
      }
    }
    this.savedY = Math.max(this.savedY - removed, 0);
  }

  /** Splits lines longer than the new width over more rows. */
  private reflowSmaller(oldCols: number, newCols: number, newRows: number): void {
    const lines = this.lines;
    const toInsert: Array<{ start: number; newLines: ScreenLine[] }> = [];
    let countToInsert = 0;
    for (let y = lines.length - 1; y >= 0; y--) {
      let line = lines.get(y);
      if (!line || (!line.isWrapped && line.getTrimmedLength() <= newCols)) continue;
      const group: ScreenLine[] = [line];
      while (line.isWrapped && y > 0) {
        line = lines.at(--y);
        group.unshift(line);
      }
      const cursorAbsY = this.ybase + this.y;
      if (cursorAbsY >= y && cursorAbsY < y + group.length) continue;

      const lastLineLength = group[group.length - 1]!.getTrimmedLength();
      const destLengths = smallerLineLengths(group, oldCols, newCols);
      const linesToAdd = destLengths.length - group.length;
      const trimmedLines =
        this.ybase === 0 && this.y !== lines.length - 1
          ? Math.max(0, this.y - lines.maxLength + linesToAdd)
          : Math.max(0, lines.length - lines.maxLength + linesToAdd);
      const newLines: ScreenLine[] = [];
      for (let i = 0; i < linesToAdd; i++) newLines.push(new ScreenLine(newCols, true));
      if (newLines.length > 0) {
        toInsert.push({ start: y + group.length + countToInsert, newLines });
        countToInsert += newLines.length;
      }
      group.push(...newLines);

      let destIdx = destLengths.length - 1;
      let destCol = destLengths[destIdx] ?? 0;
      if (destCol === 0) {
        destIdx--;
        destCol = destLengths[destIdx] ?? 0;
      }
      let srcIdx = group.length - linesToAdd - 1;
      let srcCol = lastLineLength;
      while (srcIdx >= 0) {
        const dest = group[destIdx];
        if (dest === undefined) break;
        const count = Math.min(srcCol, destCol);
        dest.copyCellsFrom(group[srcIdx]!, srcCol - count, destCol - count, count, true);
        destCol -= count;
        if (destCol === 0) {
          destIdx--;
          destCol = destLengths[destIdx] ?? 0;
        }
        srcCol -= count;
        if (srcCol === 0) {
          srcIdx--;
          srcCol = wrappedTrimmedLength(group, Math.max(srcIdx, 0), oldCols);
        }
      }
      for (let i = 0; i < group.length; i++) {
        const len = destLengths[i];
        if (len !== undefined && len < newCols) group[i]!.clearCell(len);
      }

      for (let n = linesToAdd - trimmedLines; n > 0; n--) {
        if (this.ybase === 0) {
          if (this.y < newRows - 1) {
            this.y++;
            const dropped = lines.pop();
            if (dropped && this.discard) this.discard(dropped);
          } else {
            this.ybase++;
          }
        } else if (this.ybase < Math.min(lines.maxLength, lines.length + countToInsert) - newRows) {
          this.ybase++;
        }
      }
      this.savedY = Math.min(this.savedY + linesToAdd, this.ybase + newRows - 1);
    }

    if (toInsert.length === 0) return;
    const original: ScreenLine[] = [];
    for (let i = 0; i < lines.length; i++) original.push(lines.at(i));
    const originalLength = lines.length;
    let originalIdx = originalLength - 1;
    let insertIdx = 0;
    let pending = toInsert[insertIdx];
    lines.setLength(Math.min(lines.maxLength, lines.length + countToInsert));
    let insertedSoFar = 0;
    for (let i = Math.min(lines.maxLength - 1, originalLength + countToInsert - 1); i >= 0; i--) {
      if (pending && pending.start > originalIdx + insertedSoFar) {
        for (let k = pending.newLines.length - 1; k >= 0; k--) lines.set(i--, pending.newLines[k]!);
        i++;
        insertedSoFar += pending.newLines.length;
        pending = toInsert[++insertIdx];
      } else {
        lines.set(i, original[originalIdx--]!);
      }
    }
    // Lines that no longer fit into the buffer fall off its start.
    if (this.discard) for (let k = 0; k <= originalIdx; k++) this.discard(original[k]!);
  }
}

/** Cells of row i of a wrapped group that belong to the logical line. */
function wrappedTrimmedLength(group: ScreenLine[], i: number, cols: number): number {
  const line = group[i]!;
  if (i === group.length - 1) return line.getTrimmedLength();
  const endsInEmpty = !line.hasContent(cols - 1) && line.getWidth(cols - 1) === 1;
  const nextStartsWide = group[i + 1]!.getWidth(0) === 2;
  return endsInEmpty && nextStartsWide ? cols - 1 : cols;
}

/** Row lengths of a wrapped group re-wrapped to newCols (a wide character never splits). */
function smallerLineLengths(group: ScreenLine[], oldCols: number, newCols: number): number[] {
  const out: number[] = [];
  let needed = 0;
  for (let i = 0; i < group.length; i++) needed += wrappedTrimmedLength(group, i, oldCols);
  let srcCol = 0;
  let srcLine = 0;
  let available = 0;
  while (available < needed) {
    if (needed - available < newCols) {
      out.push(needed - available);
      break;
    }
    srcCol += newCols;
    const oldLen = wrappedTrimmedLength(group, srcLine, oldCols);
    if (srcCol > oldLen) {
      srcCol -= oldLen;
      srcLine++;
    }
    const endsWithWide = group[srcLine]!.getWidth(srcCol - 1) === 2;
    if (endsWithWide) srcCol--;
    const len = endsWithWide ? newCols - 1 : newCols;
    out.push(len);
    available += len;
  }
  return out;
}
