// Processed text: the lines a session showed, as text, for search and review.
//
// Every row that was on screen at the end of some write (a moment of the recording) becomes
// text once:
//   - a row that leaves the screen (scrolled off into the scrollback, deleted, cleared, the
//     alternate screen left, pushed out by a resize) is emitted as it last looked; rows joined
//     by autowrap form one line;
//   - a row changed in place (a full-screen program repainting it, ESC[K, overwrites) is emitted
//     as it looked at the end of the last write that changed it, when a later write destroys
//     that text (changes or erases a character of it; appending to it destroys nothing);
//   - before a window change the whole screen is emitted (a reflow may cut or move rows), and
//     at end() what is still on screen.
// A text already emitted in this session is not emitted again (a bounded memory of hashes), so
// repainting the same screen does not flood the results. Trailing blanks are trimmed and blank
// rows are not emitted. timeMs is the time of a write after which the text stood complete on
// screen (for a row written and gone within one write: that write's time).
//
// Streams that went to a pipe or file, not a tty (stdout, stderr), use `lineFeedIsNewline`: a
// bare LF starts a new line at column 0, as sudoreplay shows them (no staircase).
import { clampSize, Screen } from './screen.js';
import type { ScreenBuffer } from './screen-buffer.js';
import { COMBINED_FLAG, EMPTY_CELL, ScreenLine } from './screen-line.js';
import { SeenTexts } from './seen-texts.js';

/** A logical line longer than this (autowrap joins rows without end) is emitted in pieces. */
export const PROCESSED_LINE_MAX = 16 * 1024;

/**
 * Scrollback lines of the model. Any scrollback makes a resize reflow the screen as the display
 * model (`evio iolog screen`, 1000 lines) does: with none, a narrowed window's reflow lands the
 * cursor elsewhere. A few suffice, since a row's text is taken as it scrolls into it, and a full
 * buffer reuses the lines it drops instead of allocating new ones.
 */
export const PROCESSED_SCROLLBACK = 8;

export interface ProcessedLine {
  text: string;
  /** Milliseconds: the time of the write after which the text stood complete on screen. */
  timeMs: number;
}

export interface ProcessedTextOptions {
  cols?: number;
  rows?: number;
  /** The stream did not go to a tty: LF also returns to column 0 (Screen.lineFeedIsNewline). */
  lineFeedIsNewline?: boolean;
}

const SPACE_CELL = 0x20 | EMPTY_CELL;
/** ScreenLine.mod of a row whose text was taken when it scrolled into the scrollback. */
const TAKEN = -1;

function isBlank(v: number | undefined): boolean {
  return v === EMPTY_CELL || v === SPACE_CELL;
}

/** The row's cells up to its last non-blank one, copied into `into` (reused); length 0 for a blank row. */
function snapshot(line: ScreenLine, cols: number, into: ScreenLine | null): ScreenLine {
  const cells = line.cells;
  let end = Math.min(line.length, cols);
  while (end > 0 && isBlank(cells[end - 1])) end--;
  const s = into ?? new ScreenLine(0);
  s.length = end;
  if (end === 0) return s;
  if (s.cells.length < end) s.cells = new Uint32Array(Math.max(end, cols));
  s.cells.set(cells.subarray(0, end));
  s.combined = line.combined ? new Map(line.combined) : null;
  return s;
}

/** Does the row no longer show every character of its snapshot where it was? */
function destroyed(shown: ScreenLine, line: ScreenLine): boolean {
  const a = shown.cells;
  const b = line.cells;
  const n = shown.length;
  if (n > line.length) return true;
  for (let i = 0; i < n; i++) {
    const s = a[i]!;
    const v = b[i]!;
    if (s !== v) {
      if (!(isBlank(s) && isBlank(v))) return true;
    } else if (s & COMBINED_FLAG && shown.combined?.get(i) !== line.combined?.get(i)) {
      return true;
    }
  }
  return false;
}

export class ProcessedText {
  private readonly screen: Screen;
  private lines: ProcessedLine[] = [];
  private readonly seen = new SeenTexts();
  /** A line that left the screen and may continue (autowrap) on the row that now follows it. */
  private pending: string | null = null;
  private pendingTime = 0;
  /**
   * The pending line goes through the memory of emitted texts. Not for lines scrolling up off the
   * normal screen: output that repeats (a command run twice) is found at each time, and hashing
   * every line of a long output would cost more than it saves.
   */
  private pendingSeen = true;
  /** Inside scrolledBack. */
  private scrolling = false;
  /** Trimmed length and width of the pending line's last row: did its text reach the margin? */
  private pendingEdge = 0;
  private pendingCols = 0;
  /** Counts writes; rows changed by the current one carry it in `mod`. */
  private stamp = 0;
  /** The stamp whose moment afterWrite has taken. */
  private snapped = 0;
  private now = 0;

  constructor(opts: ProcessedTextOptions = {}) {
    // With a scrollback, so that a resize reflows the screen as the display model does; a row's
    // text is taken when it scrolls into it.
    this.screen = new Screen({ cols: opts.cols ?? 80, rows: opts.rows ?? 24, scrollback: PROCESSED_SCROLLBACK });
    this.screen.onLineGone((line) => this.lineGone(line));
    this.screen.onScrolledBack((line) => this.scrolledBack(line));
    this.screen.onBeforeChange((line) => {
      // The row as it showed before this write: kept in case the write destroys that text.
      line.shown = snapshot(line, this.screen.cols, line.shown);
      if (line.shown) line.shown.time = line.time;
    });
    // Not LNM: a program's CSI 20 l cannot undo it (the pipe's LF reached a terminal as CR LF).
    this.screen.lineFeedIsNewline = opts.lineFeedIsNewline ?? false;
  }

  /**
   * Feeds one record's bytes; `startsRecord` false continues the record before (a reader cuts
   * long records into pieces): the moment after a record is only taken when the next one starts.
   */
  write(bytes: Uint8Array, timeMs: number, startsRecord = true): void {
    if (startsRecord || this.stamp === 0) {
      this.afterWrite();
      this.screen.stamp = ++this.stamp;
      this.now = timeMs;
      this.screen.time = timeMs;
    }
    this.screen.write(bytes);
  }

  resize(cols: number, rows: number): void {
    const [c, r] = clampSize(cols, rows);
    const screen = this.screen;
    if (c === screen.cols && r === screen.rows) return;
    this.afterWrite();
    this.screen.stamp = ++this.stamp;
    // A reflow cuts, joins and drops rows: what the screen showed is emitted first.
    this.emitScreen(screen.normal);
    if (screen.isAlternate) this.emitScreen(screen.alt);
    screen.resize(c, r);
    // Rows now hold cut or reflowed pieces of the text just emitted: nothing of theirs is left to lose.
    for (const b of [screen.normal, screen.alt]) {
      for (let i = 0; i < b.lines.length; i++) {
        const line = b.lines.at(i);
        line.shown = null;
        if (i < b.ybase) line.mod = TAKEN;
      }
    }
  }

  /** Lines completed so far (each returned once). */
  takeLines(): ProcessedLine[] {
    // A line that left the screen is complete unless the top row continues it (autowrap).
    if (this.pending !== null && !this.continuesPending(this.screen.row(0))) this.flush();
    const out = this.lines;
    this.lines = [];
    return out;
  }

  /** End of the session: what is still on screen (the normal screen, then the alternate one) is emitted. */
  end(): ProcessedLine[] {
    const screen = this.screen;
    screen.end();
    this.afterWrite();
    screen.stamp = ++this.stamp;
    const buffers = screen.isAlternate ? [screen.normal, screen.alt] : [screen.normal];
    for (const b of buffers) {
      // A line that scrolled off may continue (autowrap) on the first row of the normal screen.
      if (b === screen.alt) this.flush();
      for (let i = 0; i < b.lines.length; i++) this.leave(b.lines.at(i));
      // Emitted lines stay on screen: mark them so a later end() does not repeat them.
      for (let i = 0; i < b.lines.length; i++) b.lines.at(i).time = -1;
    }
    this.flush();
    return this.takeLines();
  }

  /**
   * The moment after a record: a row it changed that showed text before (`shown`, taken by the
   * screen's beforeChange) and no longer shows all of it has that text emitted.
   */
  private afterWrite(): void {
    const stamp = this.stamp;
    if (stamp === this.snapped) return;
    this.snapped = stamp;
    const b = this.screen.buffer;
    for (let y = 0; y < b.rows; y++) {
      const line = b.lines.get(b.ybase + y);
      if (line === undefined || line.mod !== stamp) continue;
      const shown = line.shown;
      if (shown !== null && shown.length > 0 && destroyed(shown, line)) this.emitShown(shown);
    }
  }

  private emitShown(shown: ScreenLine): void {
    // The snapshot ends at its last non-blank cell.
    const text = shown.translateToString(false);
    if (text) this.push(text, shown.time);
  }

  /**
   * A row leaves the model (the screen's callback). A row the current write changed and then
   * erased, deleted or took off the alternate screen was never on screen as it is now: when that
   * write had already destroyed what the row showed before, only that is emitted (a redraw
   * half-done at the moment a program leaves is not text anyone saw).
   */
  private lineGone(line: ScreenLine): void {
    if (line.mod === TAKEN) return;
    if (this.lostBefore(line)) {
      this.emitShown(line.shown!);
      line.shown = null;
      this.flush();
      return;
    }
    this.leave(line);
  }

  /** The current write changed the row and destroyed the text it showed before. */
  private lostBefore(line: ScreenLine): boolean {
    const shown = line.shown;
    return shown !== null && line.mod === this.stamp && shown.length > 0 && destroyed(shown, line);
  }

  /** A row scrolls into the scrollback: it stays visible there as it is now. */
  private scrolledBack(line: ScreenLine): void {
    if (this.lostBefore(line)) this.emitShown(line.shown!);
    this.scrolling = true;
    this.leave(line);
    this.scrolling = false;
    line.mod = TAKEN;
  }

  /** A row's current text goes to the line being assembled (joined when autowrap continued it). */
  private leave(line: ScreenLine): void {
    if (line.mod === TAKEN) return;
    if (line.time < 0) {
      this.flush();
      return;
    }
    const cols = Math.min(line.length, this.screen.cols);
    const text = line.translateToString(true, 0, cols);
    // The write that last printed into the row completed it (this one, if it changed it).
    const time = line.mod === this.stamp ? this.now : line.time;
    if (this.pending !== null && this.continuesPending(line)) {
      this.pending += text;
      this.pendingTime = Math.max(this.pendingTime, time);
      // Bounded memory: a line that keeps wrapping is cut into pieces.
      while (this.pending.length > PROCESSED_LINE_MAX) {
        this.push(this.pending.slice(0, PROCESSED_LINE_MAX), this.pendingTime, this.pendingSeen);
        this.pending = this.pending.slice(PROCESSED_LINE_MAX);
      }
    } else {
      this.flush();
      this.pending = text;
      this.pendingTime = time;
      this.pendingSeen = !this.scrolling;
    }
    this.pendingEdge = line.getTrimmedLength();
    this.pendingCols = cols;
  }

  /**
   * Autowrap really continued the pending line on `line`: the row is marked wrapped and the
   * pending line's last row ran to the right margin (a wide character that did not fit leaves
   * the last cell empty). A stale wrap mark on a row repainted later does not glue it.
   */
  private continuesPending(line: ScreenLine): boolean {
    if (!line.isWrapped) return false;
    const edge = this.pendingEdge;
    return edge >= this.pendingCols || (edge === this.pendingCols - 1 && line.getWidth(0) === 2);
  }

  /** Every logical line of a buffer's screen, emitted without the rows leaving. */
  private emitScreen(b: ScreenBuffer): void {
    this.flush();
    for (let i = 0; i < b.lines.length; i++) this.leave(b.lines.at(i));
    this.flush();
  }

  private flush(): void {
    if (this.pending === null) return;
    let text = this.pending;
    if (text.charCodeAt(text.length - 1) === 0x20) text = text.replace(/ +$/, '');
    this.pending = null;
    if (text) this.push(text, this.pendingTime, this.pendingSeen);
  }

  /** `once`: the text is emitted only if not seen before (else: output scrolling up, which may repeat). */
  private push(text: string, timeMs: number, once = true): void {
    if (!once || this.seen.add(text)) this.lines.push({ text, timeMs });
  }
}
