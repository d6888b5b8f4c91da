// The player: an xterm.js terminal fed from the service in chunks. Seeking asks the server for
// the screen at that time (repaint + the offset after it) and streams on from that offset, so a
// seek costs one keyframe and a chunk, never the bytes before it. While playing, chunks are
// fetched ahead (a few seconds of session time, or a few hundred KB) as the clock moves on.
import { Terminal } from '@xterm/xterm';
import { chunkFrames, firstTime, type ChunkItem, type Frame } from './frames.js';
import type { SessionSource } from './source.js';

export const SPEEDS = [0.5, 1, 2, 4, 8, 16] as const;
/** With idle skipping on, no pause between outputs lasts longer than this (session seconds). */
export const IDLE_LIMIT = 1;
const CHUNK_BYTES = 256 * 1024;
/** Fetch the next chunk while less than this much session time is queued ahead. */
const AHEAD_SECONDS = 30;

export interface PlayerOptions {
  cols: number;
  rows: number;
  /** Unix ms of the session's start (the zero of the timeline); null = the first chunk's first time. */
  startMs: number | null;
  /** Seconds, when known (else learned at the end of the stream). */
  duration: number | null;
  /** Font size in px (default 14; a wall's small terminals use less). */
  fontSize?: number;
}

/** `live`: showing a session as it is written (goLive), each piece as it arrives. */
export type PlayerState = 'paused' | 'playing' | 'buffering' | 'seeking' | 'ended' | 'live';

export class Player {
  readonly term: Terminal;
  /** Session time in seconds. */
  time = 0;
  speed = 1;
  skipIdle = true;
  duration: number | null;
  state: PlayerState = 'paused';
  error: Error | null = null;
  onChange: () => void = () => {};

  private startMs: number | null;
  private frames: Frame[] = [];
  private nextOffset = 0;
  private eof = false;
  private totalBytes: number | null = null;
  private fetching: Promise<void> | null = null;
  private ac = new AbortController();
  private generation = 0;
  private wantPlay = false;
  private raf = 0;
  private lastWall = 0;
  private writes = 0;
  private idleWaiters: (() => void)[] = [];

  constructor(
    container: HTMLElement,
    private readonly source: SessionSource,
    private readonly opts: PlayerOptions,
  ) {
    this.startMs = opts.startMs;
    this.duration = opts.duration;
    this.term = new Terminal({
      cols: opts.cols,
      rows: opts.rows,
      disableStdin: true,
      cursorBlink: false,
      convertEol: false,
      scrollback: 1000,
      fontFamily: 'ui-monospace, "DejaVu Sans Mono", "Liberation Mono", Menlo, Consolas, monospace',
      fontSize: opts.fontSize ?? 14,
      // Room below the baseline: at 1.0 some fonts' underscores fall outside the row and vanish.
      lineHeight: 1.2,
      theme: { background: '#0f1419', foreground: '#e6e1cf', cursor: '#f29718', selectionBackground: '#3e4b59' },
    });
    this.term.open(container);
    this.term.textarea?.setAttribute('aria-label', 'Recorded terminal (read only)');
  }

  dispose(): void {
    this.generation++;
    this.ac.abort();
    cancelAnimationFrame(this.raf);
    this.term.dispose();
  }

  /** The visible screen as text: one line per row, trailing blanks and blank last rows trimmed. */
  screenText(): string {
    const b = this.term.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < this.term.rows; y++) lines.push(b.getLine(b.baseY + y)?.translateToString(true) ?? '');
    while (lines.length && lines[lines.length - 1] === '') lines.pop();
    return lines.join('\n');
  }

  /** Resolves once every write handed to the terminal has been parsed. */
  whenIdle(): Promise<void> {
    if (this.writes === 0 && this.state !== 'seeking') return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  private write(data: Uint8Array | string): void {
    this.writes++;
    this.term.write(data, () => {
      if (--this.writes === 0 && this.state !== 'seeking') this.wake();
    });
  }

  private wake(): void {
    const w = this.idleWaiters;
    this.idleWaiters = [];
    for (const f of w) f();
  }

  private apply(f: Frame): void {
    if ('data' in f) this.write(f.data);
    else this.term.resize(f.cols, f.rows);
  }

  play(): void {
    if (this.state === 'live') return;
    if (this.state === 'ended' || (this.duration !== null && this.time >= this.duration && this.eof && this.frames.length === 0)) {
      void this.seek(0).then(() => this.play());
      return;
    }
    this.wantPlay = true;
    if (this.state === 'seeking') return;
    this.state = 'playing';
    this.lastWall = performance.now();
    cancelAnimationFrame(this.raf);
    this.raf = requestAnimationFrame((t) => this.tick(t));
    this.onChange();
  }

  pause(): void {
    this.wantPlay = false;
    cancelAnimationFrame(this.raf);
    if (this.state !== 'seeking') this.state = 'paused';
    this.onChange();
  }

  toggle(): void {
    if (this.wantPlay) this.pause();
    else this.play();
  }

  get playing(): boolean {
    return this.wantPlay;
  }

  /** Shows the screen at `t` seconds and continues from there (playing if it was). */
  async seek(t: number): Promise<void> {
    const gen = ++this.generation;
    this.ac.abort();
    this.ac = new AbortController();
    const signal = this.ac.signal;
    this.fetching = null;
    cancelAnimationFrame(this.raf);
    this.state = 'seeking';
    this.error = null;
    t = Math.max(0, this.duration !== null ? Math.min(t, this.duration) : t);
    this.onChange();
    try {
      const screen = await this.source.screenAt(t, signal);
      if (gen !== this.generation) return;
      this.term.reset();
      this.frames = [];
      this.eof = false;
      if (screen) {
        if (typeof screen.duration === 'number') this.duration = screen.duration;
        this.term.resize(screen.cols, screen.rows);
        this.write(screen.repaint);
        this.nextOffset = screen.offset;
        this.time = t;
      } else {
        // No keyframes on this server: replay from the start up to t.
        this.term.resize(this.opts.cols, this.opts.rows);
        this.nextOffset = 0;
        this.time = 0;
        while (!this.eof) {
          await this.fetchChunk(signal, gen);
          if (gen !== this.generation) return;
          const last = this.frames[this.frames.length - 1];
          if (last && last.t > t) break;
        }
        this.drainUpTo(t);
        this.time = t;
      }
      this.state = this.wantPlay ? 'playing' : 'paused';
      if (this.writes === 0) this.wake();
      this.onChange();
      this.ensureAhead();
      if (this.wantPlay) this.play();
    } catch (err) {
      if (gen !== this.generation || (err as Error).name === 'AbortError') return;
      this.error = err as Error;
      this.state = 'paused';
      this.wantPlay = false;
      this.wake();
      this.onChange();
    }
  }

  /**
   * Jump to now on a live session: the screen at the end of what was written so far; the
   * player then shows what `liveChunk` hands it as it comes. Returns the data-stream position
   * to follow from.
   */
  async goLive(): Promise<number> {
    const gen = ++this.generation;
    this.ac.abort();
    this.ac = new AbortController();
    this.fetching = null;
    this.wantPlay = false;
    cancelAnimationFrame(this.raf);
    this.state = 'seeking';
    this.error = null;
    this.onChange();
    const screen = await this.source.screenNow(this.ac.signal);
    if (gen !== this.generation) throw new DOMException('superseded', 'AbortError');
    this.term.reset();
    this.frames = [];
    this.eof = true;
    this.term.resize(screen.cols, screen.rows);
    this.write(screen.repaint);
    this.nextOffset = screen.offset;
    this.time = screen.duration ?? screen.at;
    this.duration = Math.max(this.duration ?? 0, this.time);
    this.state = 'live';
    if (this.writes === 0) this.wake();
    this.onChange();
    return screen.offset;
  }

  /** What a live session appended: shown at once when live, else it only makes the session longer. */
  liveChunk(items: readonly ChunkItem[], endOffset: number): void {
    if (this.startMs === null) this.startMs = firstTime(items) ?? 0;
    const frames = chunkFrames(items, this.startMs);
    const last = frames[frames.length - 1];
    let t = 0;
    for (const it of items) if (typeof it.time === 'number') t = (it.time - this.startMs) / 1000;
    this.duration = Math.max(this.duration ?? 0, t, last?.t ?? 0);
    if (this.state === 'live') {
      this.frames.push(...frames);
      this.drainUpTo(Infinity);
      this.nextOffset = endOffset;
      this.time = this.duration;
    } else if (this.eof && this.nextOffset < endOffset) {
      // Replaying behind the live edge: there is more to fetch now.
      this.eof = false;
      if (this.state === 'ended') this.state = 'paused';
    }
    this.onChange();
  }

  /** The live session is complete: from now on it is a recording like any other. */
  endLive(): void {
    if (this.state === 'live') this.state = 'ended';
    this.onChange();
  }

  /** Writes every queued frame up to time t (as one write where possible). */
  private drainUpTo(t: number): void {
    let n = 0;
    const parts: Uint8Array[] = [];
    const flush = () => {
      if (!parts.length) return;
      const size = parts.reduce((s, p) => s + p.length, 0);
      const buf = new Uint8Array(size);
      let o = 0;
      for (const p of parts) {
        buf.set(p, o);
        o += p.length;
      }
      parts.length = 0;
      this.write(buf);
    };
    while (n < this.frames.length && this.frames[n]!.t <= t) {
      const f = this.frames[n++]!;
      if ('data' in f) parts.push(f.data);
      else {
        flush();
        this.apply(f);
      }
    }
    flush();
    if (n) this.frames.splice(0, n);
  }

  private async fetchChunk(signal: AbortSignal, gen: number): Promise<void> {
    const c = await this.source.chunk(this.nextOffset, CHUNK_BYTES, signal);
    if (gen !== this.generation) return;
    this.totalBytes = c.bytes;
    if (this.startMs === null) this.startMs = firstTime(c.log) ?? 0;
    this.frames.push(...chunkFrames(c.log, this.startMs));
    this.nextOffset = c.start + c.len;
    if (c.len === 0 || this.nextOffset >= c.bytes) {
      this.eof = true;
      const last = this.frames[this.frames.length - 1];
      if (this.duration === null && last) this.duration = last.t;
    }
  }

  /** Keeps a few seconds of frames queued ahead of the clock. */
  private ensureAhead(): void {
    if (this.fetching || this.eof) return;
    const last = this.frames[this.frames.length - 1];
    if (last && last.t - this.time > AHEAD_SECONDS * Math.max(1, this.speed)) return;
    const gen = this.generation;
    const signal = this.ac.signal;
    this.fetching = this.fetchChunk(signal, gen)
      .catch((err: Error) => {
        if (gen !== this.generation || err.name === 'AbortError') return;
        this.error = err;
        this.pause();
      })
      .finally(() => {
        if (gen !== this.generation) return;
        this.fetching = null;
        this.ensureAhead();
      });
  }

  private tick(wall: number): void {
    if (!this.wantPlay || this.state === 'seeking') return;
    const dt = Math.min(0.25, (wall - this.lastWall) / 1000); // a background tab does not jump
    this.lastWall = wall;
    const next = this.frames[0];
    if (!next && !this.eof) {
      // Waiting for the network: the clock holds.
      this.state = 'buffering';
      this.ensureAhead();
    } else {
      this.state = 'playing';
      // The next thing to happen: the next output, or the session's end once everything is here.
      const nextT = next ? next.t : this.eof ? this.duration : null;
      if (nextT !== null && this.skipIdle && nextT - this.time > IDLE_LIMIT) this.time = nextT - IDLE_LIMIT;
      this.time += dt * this.speed;
      if (this.eof && !this.frames.length && (this.duration === null || this.time >= this.duration)) {
        this.time = this.duration ?? this.time;
        this.drainUpTo(this.time);
        this.wantPlay = false;
        this.state = 'ended';
        this.onChange();
        return;
      }
      if (this.duration !== null) this.time = Math.min(this.time, this.duration);
      // The clock never passes output that has not arrived: a tick may move it further than
      // the queued frames reach, and a pause there left the screen short of the time shown
      // (seen in CI: one line behind at 4x).
      const queuedTo = this.frames[this.frames.length - 1];
      if (!this.eof && queuedTo) this.time = Math.min(this.time, queuedTo.t);
      this.drainUpTo(this.time);
      this.ensureAhead();
    }
    this.onChange();
    this.raf = requestAnimationFrame((t) => this.tick(t));
  }
}
