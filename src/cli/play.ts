// `evio iolog play FILE [--speed X] [--at SECONDS] [--idle-limit SECONDS] [--raw]`: plays a
// session in the terminal at its recorded pace, as sudoreplay does: pauses longer than the idle
// limit are cut to it (sudoreplay -m), the speed divides every pause (sudoreplay -s). Unlike
// sudoreplay, what the recording wrote passes the terminal filter first (src/app/iolog-play.ts):
// no clipboard, title, hyperlink or query reaches this terminal; --raw writes the bytes as
// recorded. When standard input is a terminal it is put in raw mode for the keys (space, < > - +,
// . n, q), read so that the terminal's own answers are never taken for keys; pending input is
// read and dropped before the terminal is restored on every way out (end, q, Ctrl-C, SIGTERM, an
// error). Without a terminal it plays without keys.
import { reportDamage } from './damage.js';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { KeyInput, playCommands, playFrames, playStart, type PlayCommand } from '../app/iolog-play.js';
import { iologEventSession } from '../app/iolog.js';
import { evioError } from '../errors.js';
import { parseFlags, strFlag, wantsHelp } from './flags.js';
import { usageError, type CliIo } from './io.js';
import { printable } from './printable.js';

export const PLAY_HELP = `Usage: evio iolog play FILE [--speed X] [--at SECONDS] [--idle-limit SECONDS] [--follow] [--raw] [--unredacted]

Plays a session's output in this terminal at its recorded pace, like sudoreplay. As sudoreplay
does, it first says what it replays (\`Replaying sudo session: COMMAND\`, on standard error) and
warns when this terminal is smaller than the session was.
  --speed X          faster (2, 16) or slower (0.5); 1/16 to 64, default 1
  --at SECONDS       start at that time: the screen there is drawn first (from the seek index)
  --idle-limit S     pauses longer than S seconds (after the speed) are cut to S; default 2,
                     0 keeps every pause
  --follow           a session still being written (sudo or the log server is recording it):
                     at its end, wait for more and play it as it comes, until the session is
                     complete (like sudoreplay -F); q stops following
  --raw              write the recorded bytes unfiltered. By default only what draws the
                     screen is written (text, colours, cursor, erase, scrolling, charsets,
                     screen modes); what the recorded user could aim at this terminal is
                     dropped: clipboard (OSC 52), titles, hyperlinks and every other OSC, DCS,
                     APC, queries and reports, window operations, mouse and focus reporting.
                     With --raw the recording can set your clipboard and make your terminal type.
  --unredacted       play the session as recorded: by default, when the redact setting holds
                     rules, what they match (and typed passwords) plays as *
Keys (when standard input is a terminal):
  space  pause / resume        < or -  half the speed     > or +  double the speed
  . or n jump to the next command (when the session's command timeline is known)
  q or Ctrl-C  quit
FILE is absolute or relative to the first I/O log root (iologdirs).

Example:
  evio iolog play 00/00/04 --speed 2 --at 30
`;

const MIN_SPEED = 1 / 16;
const MAX_SPEED = 64;

function decimal(text: string | undefined, name: string, dflt: number): number {
  if (text === undefined) return dflt;
  if (!/^\d{1,9}(\.\d{1,9})?$/.test(text)) throw usageError(`--${name} "${text.slice(0, 20)}" is not a decimal number`);
  return Number(text);
}

async function write(out: Writable, data: string | Uint8Array): Promise<void> {
  if (!out.write(data)) await once(out, 'drain');
}

/** What the keys change; `wake` ends the current pause early. */
export class PlayState {
  paused = false;
  quit = false;
  /** Called when a key quits (the caller stops waiting for a followed session's next record). */
  onQuit: (() => void) | null = null;
  /** Seconds to jump to (next command). */
  jumpTo: number | null = null;
  private wakers: Array<() => void> = [];
  constructor(public speed: number) {}

  wake(): void {
    const w = this.wakers;
    this.wakers = [];
    for (const f of w) f();
  }

  /** Sleeps `ms`, or less when a key changes something. */
  sleep(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (ms <= 0 || signal.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
      this.wakers.push(done);
    });
  }

  async whilePaused(signal: AbortSignal): Promise<void> {
    while (this.paused && !this.quit && this.jumpTo === null && !signal.aborted) await this.sleep(60_000, signal);
  }
}

/**
 * The player's keys from terminal input: `write` each read. Sequences that begin with ESC —
 * cursor keys, and the terminal's answers (CPR `ESC [ 12;40 R`, XTVERSION `ESC P > | tmux 3.3a
 * ESC \`, DA ...) — are consumed whole, also when split over reads, so their spaces, `>` or `q`
 * never pause, speed up or quit.
 */
export function playKeys(state: PlayState, onNext: () => void): { write(buf: Uint8Array): void } {
  const input = new KeyInput((k) => {
    if (k === 'q' || k === 'Q' || k === '\x03') {
      state.quit = true;
      state.onQuit?.();
    } else if (k === ' ') state.paused = !state.paused;
    else if (k === '<' || k === '-') state.speed = Math.max(MIN_SPEED, state.speed / 2);
    else if (k === '>' || k === '+') state.speed = Math.min(MAX_SPEED, state.speed * 2);
    else if (k === '.' || k === 'n') onNext();
  });
  return {
    write(buf) {
      input.write(buf);
      state.wake();
    },
  };
}

/** Two turns of the event loop: what the terminal had already sent has been read by then. */
function readPending(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}

/**
 * Raw-mode key reading on a terminal. `drain` reads and drops what is pending (a late answer of
 * the terminal must not reach the shell after exit), `close` gives the terminal back as it was.
 */
function keyReader(state: PlayState, onNext: () => void): { drain(): Promise<void>; close(): void } {
  const stdin = process.stdin;
  const wasRaw = stdin.isRaw;
  stdin.setRawMode(true);
  stdin.resume();
  const keys = playKeys(state, onNext);
  let onData = (buf: Buffer) => keys.write(buf);
  const listener = (buf: Buffer) => onData(buf);
  stdin.on('data', listener);
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    stdin.off('data', listener);
    try {
      stdin.setRawMode(wasRaw);
    } catch {
      // the terminal is gone
    }
    stdin.pause();
  };
  const drain = async () => {
    if (closed) return;
    // Still in raw mode: an answer without a line end is readable now, not after the restore.
    onData = () => {};
    await readPending();
  };
  process.once('exit', close);
  return { drain, close };
}

/**
 * sudoreplay's header and size warning, on standard error (standard output stays the session's
 * bytes, also when piped): `Replaying sudo session: COMMAND`, and when the terminal is smaller
 * than the session, sudoreplay's warning with both geometries (lines x columns). evio does not
 * resize the terminal as sudoreplay does with CSI 8 t: that window operation is what the filter
 * keeps a recording from doing.
 */
async function playHeader(io: CliIo, engine: ReturnType<CliIo['engine']>, file: string, start: { cols: number; rows: number }): Promise<void> {
  const session = await iologEventSession(engine, { iolog: file }).catch(() => null);
  // The command is the recorded user's text: its control characters are shown, not sent.
  if (session?.runcmd) io.err.write(`Replaying sudo session: ${printable(session.runcmd)}\n`);
  const out = io.out as Writable & { isTTY?: boolean; columns?: number; rows?: number };
  if (out.isTTY && out.columns && out.rows && (out.columns < start.cols || out.rows < start.rows)) {
    io.err.write(`Warning: your terminal is too small to properly replay the log.\nLog geometry is ${start.rows} x ${start.cols}, your terminal's geometry is ${out.rows} x ${out.columns}.\n`);
  }
}

export async function runPlay(argv: string[], io: CliIo, allow = false): Promise<number> {
  if (wantsHelp(argv, PLAY_HELP, io.out)) return 0;
  const f = parseFlags(argv, { command: 'iolog play', values: ['speed', 'at', 'idle-limit'], switches: ['raw', 'follow', 'unredacted'], positionals: 1 });
  if (f.positionals.length !== 1) throw usageError('give exactly one FILE (evio iolog play FILE)');
  const file = f.positionals[0]!;
  const speedText = strFlag(f, 'speed');
  const speed = speedText === undefined ? 1 : /^\d{1,9}(\.\d{1,9})?$/.test(speedText) ? Number(speedText) : NaN;
  if (!(speed >= MIN_SPEED && speed <= MAX_SPEED)) throw evioError('IOLOG_PLAY_BAD_SPEED', `--speed "${String(speedText).slice(0, 20)}": give a number from 0.0625 to 64`);
  const idleMs = decimal(strFlag(f, 'idle-limit'), 'idle-limit', 2) * 1000;
  const at = strFlag(f, 'at');
  const warnings: string[] = [];
  const options = { raw: f.bools.has('raw'), follow: f.bools.has('follow'), unredacted: f.bools.has('unredacted'), warnings };
  const engine = io.engine();
  // Stopped by SIGINT/SIGTERM or by the q key (a followed session may wait for ever otherwise).
  const stopping = new AbortController();
  const signal = AbortSignal.any([io.signal, stopping.signal]);
  const state = new PlayState(speed);
  let start = await playStart(engine, file, at, signal, options);
  await playHeader(io, engine, file, start);
  let commands: Promise<PlayCommand[] | null> | null = null;
  let now = at === undefined ? 0 : Number(at);
  const onNext = () => {
    commands ??= playCommands(engine, file, signal, options);
    void commands.then((list) => {
      const next = list?.find((c) => c.at > now + 0.001);
      if (next) state.jumpTo = next.at;
      else io.out.write('\x07');
      state.wake();
    });
  };
  const keys = process.stdin.isTTY ? keyReader(state, onNext) : null;
  const stop = () => {
    state.quit = true;
    state.wake();
  };
  io.signal.addEventListener('abort', stop, { once: true });
  state.onQuit = () => stopping.abort();
  try {
    if (start.repaint) await write(io.out, start.repaint);
    let from = start.offset;
    for (;;) {
      let jumped = false;
      for await (const frame of playFrames(engine, file, from, signal, options)) {
        const pause = frame.gapMs / state.speed;
        await state.sleep(idleMs > 0 ? Math.min(pause, idleMs) : pause, signal);
        await state.whilePaused(signal);
        if (state.quit || signal.aborted) return 0;
        if (state.jumpTo !== null) {
          now = state.jumpTo;
          state.jumpTo = null;
          start = await playStart(engine, file, String(now.toFixed(6)), signal, options);
          await write(io.out, start.repaint);
          from = start.offset;
          jumped = true;
          break;
        }
        if (frame.bytes.length) await write(io.out, frame.bytes);
        now += frame.gapMs / 1000;
      }
      if (!jumped) return reportDamage(io, 'play', warnings, allow);
    }
  } finally {
    io.signal.removeEventListener('abort', stop);
    if (keys) {
      await keys.drain();
      keys.close();
    }
  }
}
