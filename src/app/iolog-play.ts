// The terminal player's use case (`evio iolog play`): a session's output as frames to write at
// their recorded pace, read chunk by chunk through the chunk call (from the seek index's
// nearest keyframe, so a long session starts at once), and the start at a time as a repaint of
// the screen there. The CLI does the terminal: pacing, speed, keys.
//
// Everything written for the terminal passes the terminal filter (src/replay/terminal-filter.ts)
// unless `raw`: the recorded user wrote those bytes, and OSC 52, titles, hyperlinks and queries
// must not reach the auditor's terminal (docs/security.md). One filter per run of frames keeps a
// sequence split over two records whole. The keys typed during play are read with KeyInput,
// which consumes the terminal's answers whole instead of taking their characters for keys.
import type { Engine } from '../engine.js';
import { KeyInput } from '../replay/key-input.js';
import { TerminalFilter, filterTerminalOutput } from '../replay/terminal-filter.js';
import { iologChunk, iologCommands, iologScreen, iologSessionLive, type Params } from './iolog.js';
import type { TailHint } from '../iolog/seek.js';

export { KeyInput };

export interface PlayOptions {
  /** Write the session's bytes as recorded, without the terminal filter (sudoreplay's way). */
  raw?: boolean;
  /**
   * Follow a session still being written (sudoreplay -F): at its end, wait for more records
   * until the session is complete (its timing file loses its write bits).
   */
  follow?: boolean;
  /** Read the session as recorded, not through the redaction rules (CLI --unredacted). */
  unredacted?: boolean;
  /** Receives the session's damage warnings (each once) as the chunks read meet them. */
  warnings?: string[];
}

/** How often a followed session is looked at again once all of it was played, ms. */
export const FOLLOW_POLL_MS = 250;

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Output streams a terminal shows. */
const SHOWN = new Set(['ttyout', 'stdout', 'stderr']);

export interface PlayFrame {
  /** Recorded milliseconds since the previous frame (the first: since the start point). */
  gapMs: number;
  /** Bytes to write (output streams only). */
  bytes: Buffer;
  /** Data-stream position after this frame. */
  pos: number;
}

export interface PlayStart {
  /** Escape sequences showing the screen at the start time (empty from the beginning). */
  repaint: string;
  /** Data-stream position to play from. */
  offset: number;
  cols: number;
  rows: number;
  duration: number;
}

/** Where playing starts: the screen at `at` seconds (absent: the start, nothing to repaint). */
export async function playStart(engine: Engine, file: string, at: string | undefined, signal?: AbortSignal, options: PlayOptions = {}): Promise<PlayStart> {
  const s = await iologScreen(engine, { file, at: at ?? '0' }, signal, { unredacted: options.unredacted === true });
  if (at === undefined) return { repaint: '', offset: 0, cols: s.cols, rows: s.rows, duration: s.duration };
  // The repaint is made by the screen model from the cells, so it holds only what the filter
  // passes; filtered all the same, so that nothing reaches the terminal unfiltered.
  const repaint = options.raw ? s.repaint : Buffer.from(filterTerminalOutput(Buffer.from(s.repaint, 'utf8'))).toString('utf8');
  return { repaint, offset: s.offset, cols: s.cols, rows: s.rows, duration: s.duration };
}

/**
 * The frames from data-stream position `start` to the end, 256 KiB of data per chunk call; their
 * bytes filtered for the terminal unless `options.raw` (a frame may then be empty: its record
 * held only dropped sequences, or the start of one that the next record ends).
 */
export async function* playFrames(engine: Engine, file: string, start: number, signal?: AbortSignal, options: PlayOptions = {}): AsyncGenerator<PlayFrame> {
  const filter = options.raw ? null : new TerminalFilter();
  let pos = start;
  let lastMs: number | null = null;
  // Followed: each read resumes the timing where the last one ended (not from the start each 100 ms).
  let tail: TailHint | null = null;
  for (;;) {
    const params: Params = { file, start: String(pos), len: String(256 * 1024) };
    const c = await iologChunk(engine, params, signal, { unredacted: options.unredacted === true }, options.follow ? { from: tail } : undefined);
    if (c.tail) tail = c.tail;
    for (const w of c.warnings) if (options.warnings && !options.warnings.includes(w)) options.warnings.push(w);
    let time: number | null = null;
    let p = c.start;
    for (const item of c.items) {
      if ('time' in item) {
        time = item.time;
        continue;
      }
      if (!('blob' in item)) continue;
      p += item.blen;
      if (!SHOWN.has(item.cmd)) continue;
      const gapMs: number = lastMs === null || time === null ? 0 : Math.max(0, time - lastMs);
      if (time !== null) lastMs = time;
      const bytes = Buffer.from(item.blob, 'base64');
      yield { gapMs, bytes: filter ? toBuffer(filter.write(bytes)) : bytes, pos: p };
    }
    pos = c.start + c.len;
    if (c.len === 0 || pos >= c.bytes) {
      if (!options.follow || signal?.aborted) break;
      // Followed: the end of what is written so far. Once the session is complete, whatever
      // came before its mark is read by one more round; then it ends.
      if (!(await iologSessionLive(engine, { file }))) {
        const last = await iologChunk(engine, { file, start: String(pos), len: '1' }, signal, { unredacted: options.unredacted === true });
        if (last.bytes <= pos) break;
        continue;
      }
      await pause(FOLLOW_POLL_MS, signal);
      if (signal?.aborted) break;
    }
  }
  // A character cut off by the end of the recording shows as U+FFFD, as it would have.
  const cut = filter?.end();
  if (cut && cut.length) yield { gapMs: 0, bytes: toBuffer(cut), pos };
}

function toBuffer(a: Uint8Array): Buffer {
  return Buffer.from(a.buffer, a.byteOffset, a.length);
}

/** A command of the session's timeline: when it was entered (seconds from the start) and where. */
export interface PlayCommand {
  at: number;
  offset?: number;
}

/**
 * The session's commands from its command timeline (`iologCommands`), for the player's "next
 * command" key: the moment each line was entered and its data-stream position. Null when the
 * timeline cannot be built (the player then rings the bell).
 */
export async function playCommands(engine: Engine, file: string, signal?: AbortSignal, options: PlayOptions = {}): Promise<PlayCommand[] | null> {
  try {
    const timeline = await iologCommands(engine, { file }, signal, { unredacted: options.unredacted === true });
    return timeline.log.map((c) => ({ at: c.at, offset: c.offset })).sort((a, b) => a.at - b.at);
  } catch {
    return null;
  }
}
