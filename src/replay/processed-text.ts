// Processed text: the lines a session showed, as text, for search and review.
//
// A screen model runs without scrollback; a line is emitted when it leaves the screen (scrolled
// off the top or out of a scroll region, deleted), when the screen is cleared (ED, RIS, leaving
// the alternate screen), or at end(). Escape sequences are gone and overwritten characters are
// resolved: a line reads as it last looked. Rows joined by autowrap form one line. Trailing
// blanks are trimmed, and rows that stayed blank are not emitted. timeMs is when the line was
// last written to (the time of the write that touched it last).
import { Screen } from './screen.js';
import type { ScreenLine } from './screen-line.js';

/** A logical line longer than this (autowrap joins rows without end) is emitted in pieces. */
export const PROCESSED_LINE_MAX = 16 * 1024;

export interface ProcessedLine {
  text: string;
  timeMs: number;
}

export class ProcessedText {
  private readonly screen: Screen;
  private lines: ProcessedLine[] = [];
  private pending: string | null = null;
  private pendingTime = 0;

  constructor(opts: { cols?: number; rows?: number } = {}) {
    this.screen = new Screen({ cols: opts.cols ?? 80, rows: opts.rows ?? 24, scrollback: 0 });
    this.screen.onLineGone((line) => this.lineGone(line));
  }

  write(bytes: Uint8Array, timeMs: number): void {
    this.screen.time = timeMs;
    this.screen.write(bytes);
  }

  resize(cols: number, rows: number): void {
    this.screen.resize(cols, rows);
  }

  /** Lines completed so far (each returned once). */
  takeLines(): ProcessedLine[] {
    // A line that left the screen is complete unless the top row continues it (autowrap).
    if (this.pending !== null && !this.screen.row(0).isWrapped) this.flush();
    const out = this.lines;
    this.lines = [];
    return out;
  }

  /** End of the session: what is still on screen (the normal screen, then the alternate one) is emitted. */
  end(): ProcessedLine[] {
    const screen = this.screen;
    screen.end();
    const buffers = screen.isAlternate ? [screen.normal, screen.alt] : [screen.normal];
    for (const b of buffers) {
      // A line that scrolled off may continue (autowrap) on the first row of the normal screen.
      if (b === screen.alt) this.flush();
      for (let i = 0; i < b.lines.length; i++) this.lineGone(b.lines.at(i));
      // Emitted lines stay on screen: mark them so a later end() does not repeat them.
      for (let i = 0; i < b.lines.length; i++) b.lines.at(i).time = -1;
    }
    this.flush();
    return this.takeLines();
  }

  private lineGone(line: ScreenLine): void {
    if (line.time < 0) {
      this.flush();
      return;
    }
    const text = line.translateToString(true);
    if (line.isWrapped && this.pending !== null) {
      this.pending += text;
      this.pendingTime = Math.max(this.pendingTime, line.time);
      // Bounded memory: a line that keeps wrapping is cut into pieces.
      while (this.pending.length > PROCESSED_LINE_MAX) {
        this.lines.push({ text: this.pending.slice(0, PROCESSED_LINE_MAX), timeMs: this.pendingTime });
        this.pending = this.pending.slice(PROCESSED_LINE_MAX);
      }
    } else {
      this.flush();
      this.pending = text;
      this.pendingTime = line.time;
    }
  }

  private flush(): void {
    if (this.pending === null) return;
    const text = this.pending.replace(/ +$/, '');
    this.pending = null;
    if (text) this.lines.push({ text, timeMs: this.pendingTime });
  }
}
