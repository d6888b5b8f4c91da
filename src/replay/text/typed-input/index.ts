// The lines a person entered, from an input stream (ttyin, stdin, asciicast "i" events): the
// keys are replayed through a line editor, so `ls -la⏎` gives "ls -la" however it was typed.
// CR, LF and CR LF each end a line (CR is the Enter key on a terminal, LF in a pipe). What the
// editor cannot know is flagged, never guessed:
// - edited: keys changed the text already typed (BS/DEL, ^U, ^W, ^K, ^Y, ^T, ^D, cursor moves).
//   BS, DEL, ^U and ^W mean the same to the kernel's canonical mode and to readline; the cursor
//   keys (←/→, Home/End, ^A/^E/^B/^F, Alt-b/f, Delete) are applied as readline (bash's line
//   editor) applies them; a program in canonical mode would have taken them as characters.
// - recalled: history (↑/↓, ^P/^N, PgUp/PgDn, ^R, Alt-. ) put text in the line that the keys
//   do not show; `text` holds only the typed part.
// - completed: Tab asked for completion; `text` holds only what was typed.
// - inexact: a key whose effect cannot be known (undo ^_, Alt+other key) was pressed.
// - hidden: the line was typed at a no-echo prompt (see below).
// - program: with the output watched, the line was typed to another program than the shell,
//   not a shell command: while a full-screen program had the alternate screen active (vim,
//   less), or at a prompt not of the shell's shape when no shell command was left unfinished
//   (python's `>>> `, psql's `test=# `, `read`: shell-lines.ts).
//   A line still open when the alternate screen is left is dropped: its keys were that
//   program's (the `q` that quits top does not begin the next command).
// With the output watched, `shown` is what the terminal showed of the line when it was entered
// (the cursor's row after the prompt the first key was typed at, as it was when the output
// left that row after the Enter, else as it was at the Enter), when that differs from `text`: a
// recalled, searched (^R), completed or vi-mode line as the shell displayed it when it ran it.
// Text that stood right of the cursor when the line began and still stands there (zsh's right
// prompt) is not part of it.
// Never set on hidden lines.
// ^C discards the line, ^D on an empty line ends input, other control keys are not text.
// Escape sequences (function and cursor keys, mouse and focus reports, terminal answers such
// as cursor-position reports and OSC colour replies) never become text; bracketed paste
// (ESC[200~ … ESC[201~) is taken as text, its lines flagged pasted.
//
// No-echo prompts: when the caller feeds the terminal's output (observeOutput), a line is
// hidden when (a) the row the cursor was on when its first key was typed reads like a secret
// prompt (`Password:`, `[sudo] password for bob:`, `bob@host's password:`, `Passphrase:`,
// `Enter PIN:` …), or (b) its keys inserted characters and the terminal echoed none of its keys
// while it was open, output having been seen in the session. Never because it was edited,
// recalled, completed or redrawn: what is judged is the keys as typed, not the final text.
// Each input write (a record: one key when a person types) is answered by the terminal before
// the next one; its answer is the output after it, up to the next input write and at most
// ECHO_GRACE_MS later. The keys of a record were echoed when
// - what they inserted begins the answer (at least half of it: an echo comes first); or, for
//   several keys that ended a line, it ends the answer's first row (the row the Enter's echo
//   ended: the prompt and the line redrawn); or, for several keys in a record that ended no
//   line, it occurs in order in the answer (a redraw, ^R's `(reverse-i-search)` line); a further
//   line ended in the same record (a paste) must occur whole, after the previous line's echo;
// - they inserted something, ended no line, and the answer has no printable character at all
//   (cursor moves and erasing: readline's redraw of an edit, vi-mode commands);
// - they inserted nothing (cursor keys, ^R, Tab, a vi command taken as an Alt key), ended no
//   line, and something answered them within the row (no line feed: not another program's line),
//   or the answer left the cursor on the row it found it on (zsh draws its completion list and
//   ^R search line below the line and comes back).
// The output after an Enter belongs to the command and the next prompt: there only the echo of
// characters typed in the Enter's own record is looked for, at its start, so the letters of a
// password are not found in a prompt that happens to contain them. A mask (`*` per key) is
// printable and not the key: no echo. A record whose answer overflows the bounded buffer (a
// huge paste) counts as echoed: it cannot be judged, so it is shown. Lines whose judgement is
// still open are held until ECHO_GRACE_MS after their Enter.
//
// A program without a line editor (dash, `cat`) reads the keys in the kernel's canonical mode:
// a key sequence such as ← is then bytes of the line, and the kernel echoes it in caret
// notation (`^[[D`), which no line editor does. When a line's key sequence was so echoed, its
// text is the keys as canonical mode gives them (canonical-line.ts: erase, kill and word erase
// applied, the rest literal), without the editor's flags and `shown`.
//
// A pipe (sudo logs stdin only when it is not a terminal) has no line editing: with
// `editing: false` no key edits or flags anything, CR, LF and CR LF end lines, a tab is text,
// escape sequences and other control characters are dropped.
//
// Output read only for that (the search) may be parsed lazily: while nobody is typing, only its
// last OUTPUT_TAIL_MAX bytes are kept, and parsed when the next key comes (the prompt's row is at
// the end of the output); while a line is open or its echo undecided, every byte is parsed.
//
// History expansion (history-expansion.ts): bash prints the expanded line on the row after a
// line that asked for one (`!!`, `!grep`, `^old^new`); that row is then `shown`.
//
// Three parts, one concern each: the key decoder (key-decoder.ts: bytes to keys, a handler of the
// one parser of src/replay with its input table), the line editor (line-editor.ts: keys to
// lines and flags) and the echo judge (echo-judge.ts: the output observed, echo and secret
// judgement, lines held until judged). All state is kept between writes, so a stream split
// anywhere gives the same lines (and flags; the echo judgement uses the writes, which are the
// recording's).
// Memory is bounded: a line holds at most TEXT_LINE_MAX characters (a longer one is emitted in
// pieces), the answer kept for a record at most ECHO_MAX characters.
import type { TextExtractor } from '../text-extractor.js';
import { EchoJudge, type HiddenLines, type TypedLine } from './echo-judge.js';
import { KeyDecoder } from './key-decoder.js';
import { LineEditor } from './line-editor.js';

export { ECHO_GRACE_MS, type HiddenLines, type TypedLine } from './echo-judge.js';
export { LINE_FLAGS, type LineFlags } from './line-editor.js';

export interface TypedInputOptions {
  cols?: number;
  rows?: number;
  hidden?: HiddenLines;
  /** Parse the output only around typed lines (no OSC 7 directory, prompts only at first keys). */
  lazyOutput?: boolean;
  /** false for a pipe (stdin): no line editing, no flags. Default true (a terminal). */
  editing?: boolean;
}

export class TypedInput implements TextExtractor {
  private readonly judge: EchoJudge;
  private readonly editor: LineEditor;
  private readonly keys: KeyDecoder;

  constructor(opts: TypedInputOptions = {}) {
    this.judge = new EchoJudge(opts.hidden ?? 'keep', opts.lazyOutput ?? false, opts.cols);
    this.editor = new LineEditor(this.judge, opts.editing ?? true);
    this.judge.lineOpen = () => this.editor.open;
    this.judge.discardLine = () => this.editor.discard();
    this.keys = new KeyDecoder(this.editor);
  }

  /** Starts judging echo: the caller feeds the terminal's output in order with the input. */
  watchOutput(): void {
    this.judge.watchOutput();
  }

  observeOutput(bytes: Uint8Array, timeMs: number): void {
    this.judge.observeOutput(bytes, timeMs);
  }

  /** The directory the output's last OSC 7 reported (null without one or without output). */
  get outputCwd(): string | null {
    return this.judge.outputCwd;
  }

  /** The output row before the cursor (the prompt, when a person is about to type). */
  promptText(): string {
    return this.judge.promptText();
  }

  write(bytes: Uint8Array, timeMs: number): void {
    this.writeAt(bytes, timeMs, -1);
  }

  /** write() with `pos`, the data-stream position of bytes[0] (for the Enter's position). */
  writeAt(bytes: Uint8Array, timeMs: number, pos: number): void {
    this.judge.decideUntil(timeMs);
    this.judge.closeRecord(); // the answer to the previous write ends where this one begins
    this.judge.now = timeMs;
    this.editor.now = timeMs;
    this.keys.write(bytes, pos);
  }

  resize(cols: number, _rows: number): void {
    this.judge.resize(cols);
  }

  takeLines(): TypedLine[] {
    return this.judge.takeLines();
  }

  end(): TypedLine[] {
    this.keys.end();
    // The last line was never entered (no Enter): it is not a line the person entered.
    this.judge.decideUntil(Infinity);
    return this.takeLines();
  }
}
