// A bounded list of screen lines (scrollback + screen) in a ring: scrolling a full buffer drops
// the oldest line in O(1). Semantics of splice/shiftElements/trimStart follow xterm.js's
// CircularList, which the screen model's scrolling code relies on: inserting past maxLength
// drops lines from the start.
import type { ScreenLine } from './screen-line.js';

export class LineRing {
  private items: Array<ScreenLine | undefined>;
  private start = 0;
  length = 0;
  private max: number;

  constructor(maxLength: number) {
    this.max = Math.max(1, maxLength);
    this.items = new Array<ScreenLine | undefined>(this.max);
  }

  get maxLength(): number {
    return this.max;
  }

  set maxLength(n: number) {
    n = Math.max(1, n);
    if (n === this.max) return;
    const next = new Array<ScreenLine | undefined>(n);
    const keep = Math.min(n, this.length);
    for (let i = 0; i < keep; i++) next[i] = this.items[this.index(i)];
    this.items = next;
    this.max = n;
    this.start = 0;
    this.length = keep;
  }

  get isFull(): boolean {
    return this.length === this.max;
  }

  private index(i: number): number {
    return (this.start + i) % this.max;
  }

  get(i: number): ScreenLine | undefined {
    return this.items[this.index(i)];
  }

  /** The line at i; the screen code only asks for indexes that exist. */
  at(i: number): ScreenLine {
    return this.items[this.index(i)]!;
  }

  set(i: number, line: ScreenLine): void {
    this.items[this.index(i)] = line;
  }

  push(line: ScreenLine): void {
    this.items[this.index(this.length)] = line;
    if (this.length === this.max) this.start = (this.start + 1) % this.max;
    else this.length++;
  }

  /** In a full ring: the oldest line becomes the newest (the caller overwrites it). */
  recycle(): ScreenLine {
    const line = this.items[this.start]!;
    this.start = (this.start + 1) % this.max;
    return line;
  }

  pop(): ScreenLine | undefined {
    if (!this.length) return undefined;
    return this.items[this.index(--this.length)];
  }

  splice(start: number, deleteCount: number, ...inserted: ScreenLine[]): void {
    if (deleteCount) {
      for (let i = start; i < this.length - deleteCount; i++) this.items[this.index(i)] = this.items[this.index(i + deleteCount)];
      this.length -= deleteCount;
    }
    for (let i = this.length - 1; i >= start; i--) this.items[this.index(i + inserted.length)] = this.items[this.index(i)];
    for (let i = 0; i < inserted.length; i++) this.items[this.index(start + i)] = inserted[i];
    if (this.length + inserted.length > this.max) {
      const trim = this.length + inserted.length - this.max;
      this.start = (this.start + trim) % this.max;
      this.length = this.max;
    } else {
      this.length += inserted.length;
    }
  }

  trimStart(n: number): void {
    if (n > this.length) n = this.length;
    this.start = (this.start + n) % this.max;
    this.length -= n;
  }

  /** Moves lines [start, start+count) by offset; growing past maxLength drops lines from the start. */
  shiftElements(start: number, count: number, offset: number): void {
    if (count <= 0 || start < 0 || start >= this.length || start + offset < 0) return;
    if (offset > 0) {
      for (let i = count - 1; i >= 0; i--) this.set(start + i + offset, this.items[this.index(start + i)]!);
      const grow = start + count + offset - this.length;
      if (grow > 0) {
        this.length += grow;
        while (this.length > this.max) {
          this.length--;
          this.start = (this.start + 1) % this.max;
        }
      }
    } else {
      for (let i = 0; i < count; i++) this.set(start + i + offset, this.items[this.index(start + i)]!);
    }
  }

  /** Sets the length directly (used by reflow after rewriting the lines in place). */
  setLength(n: number): void {
    this.length = Math.max(0, Math.min(n, this.max));
  }
}
