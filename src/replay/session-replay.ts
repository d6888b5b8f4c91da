// Replaying a recorded session: its events in, replay items (or a screen) out.
//
// The events only need the shape below, which src/iolog's session reader yields; replay does not
// import the I/O-log engine (DESIGN §1), the front doors compose the two. Positions are offsets
// in the session's data stream (all recorded bytes, input included, in timing order); only the
// output streams (ttyout, stdout, stderr) are shown.
import { Screen } from './screen.js';
import type { Tokenizer } from './tokenizer.js';
import type { ReplayItem } from './types.js';

/** One event of a recorded session, as far as replay needs it. */
export interface ReplaySourceEvent {
  readonly kind: string;
  /** Data-stream position of the event. */
  readonly pos: number;
  readonly sec: number;
  readonly nsec: number;
  /** kind "data": the stream and its bytes. */
  readonly stream?: string;
  readonly bytes?: Uint8Array;
  /** kind "winch": the new window size. */
  readonly cols?: number;
  readonly rows?: number;
}

/** Streams whose bytes went to the user's terminal. */
export const OUTPUT_STREAMS: ReadonlySet<string> = new Set(['ttyout', 'stdout', 'stderr']);

/**
 * Bytes before the requested range fed to the tokenizer (items dropped) so that a range starting
 * inside an escape sequence or a UTF-8 character reads as it would from the session's start.
 */
export const REPLAY_WARMUP_BYTES = 4096;

export interface ReplayRangeOptions {
  /** First data-stream byte of the range. */
  start: number;
  /** End of the range (exclusive). */
  end: number;
  /** Window size at the session's start (log.json columns/lines, asciicast width/height). */
  cols: number;
  rows: number;
  /** The time a text item carries for an event (the I/O-log API uses Unix milliseconds). */
  timeMs: (sec: number, nsec: number) => number;
}

/**
 * The replay items of [start, end): first `sz` with the window size in force at `start`, then
 * text and tokens of the output streams, window changes as `sz`. Give it the session's events
 * from `max(0, start - REPLAY_WARMUP_BYTES)`.
 */
export async function* replayRange(events: AsyncIterable<ReplaySourceEvent>, tokenizer: Tokenizer, opts: ReplayRangeOptions): AsyncGenerator<ReplayItem> {
  let cols = opts.cols;
  let rows = opts.rows;
  let started = false;
  const begin = function* (): Generator<ReplayItem> {
    if (started) return;
    started = true;
    tokenizer.flush(); // what the warm-up left pending belongs before the range
    yield* tokenizer.resize(cols, rows);
  };
  for await (const ev of events) {
    if (ev.pos >= opts.end && started) break;
    if (ev.kind === 'winch' && ev.cols !== undefined && ev.rows !== undefined) {
      if (!started && ev.pos <= opts.start) {
        // In force when the range begins.
        cols = ev.cols;
        rows = ev.rows;
      } else if (ev.pos < opts.end) {
        yield* begin();
        yield* tokenizer.resize(ev.cols, ev.rows);
      }
      continue;
    }
    if (ev.kind !== 'data' || !ev.bytes || !OUTPUT_STREAMS.has(ev.stream ?? '')) continue;
    const bytes = ev.bytes;
    const from = ev.pos;
    const to = ev.pos + bytes.length;
    const time = opts.timeMs(ev.sec, ev.nsec);
    if (from < opts.start) {
      // Warm-up: keep the parser's state, drop the items.
      tokenizer.write(bytes.subarray(0, Math.min(bytes.length, opts.start - from)), time);
      if (to <= opts.start) continue;
    }
    yield* begin();
    const a = Math.max(0, opts.start - from);
    const b = Math.min(bytes.length, opts.end - from);
    if (b > a) yield* tokenizer.write(bytes.subarray(a, b), time);
    if (to >= opts.end) break;
  }
  yield* begin();
  yield* tokenizer.end();
}

export interface ScreenAtOptions {
  cols: number;
  rows: number;
  /** Offset from the session's start (ms); events after it are not applied. Infinity = the end. */
  atMs: number;
  /**
   * The session had a tty: its screen is what the tty displayed (ttyout); stdout and stderr went
   * to a pipe or file, not to that screen. Without a tty every output stream is shown.
   */
  ttyOnly?: boolean;
}

const TTY_STREAMS: ReadonlySet<string> = new Set(['ttyout']);

/**
 * Applies one output record to a session's screen: ttyout as the tty drew it; with `ttyOnly`
 * nothing else; otherwise a pipe stream (stdout, stderr) with a bare LF as a new line
 * (Screen.lineFeedIsNewline, as sudoreplay shows it). That flag is not the terminal's LNM: a
 * program's own CSI 20 h/l stays in force across records, as on one terminal, and a screen
 * restored from a keyframe carries both.
 */
export function writeSessionOutput(screen: Screen, stream: string, bytes: Uint8Array, ms: number, ttyOnly: boolean): void {
  if (!(ttyOnly ? TTY_STREAMS : OUTPUT_STREAMS).has(stream)) return;
  if (!ttyOnly) screen.lineFeedIsNewline = stream !== 'ttyout';
  screen.time = ms;
  screen.write(bytes);
}

/** The screen model after the session's output up to `atMs`. */
export async function screenAt(events: AsyncIterable<ReplaySourceEvent>, opts: ScreenAtOptions): Promise<Screen> {
  const screen = new Screen({ cols: opts.cols, rows: opts.rows });
  const ttyOnly = opts.ttyOnly ?? false;
  for await (const ev of events) {
    const ms = ev.sec * 1000 + ev.nsec / 1e6;
    if (ms > opts.atMs) break;
    if (ev.kind === 'winch' && ev.cols !== undefined && ev.rows !== undefined) screen.resize(ev.cols, ev.rows);
    else if (ev.kind === 'data' && ev.bytes && ev.stream !== undefined) writeSessionOutput(screen, ev.stream, ev.bytes, ms, ttyOnly);
  }
  screen.end();
  return screen;
}
