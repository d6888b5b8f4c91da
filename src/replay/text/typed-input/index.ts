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
// With the output watched, `shown` is what the terminal showed of the line when it was entered
// (the cursor's row after the prompt the first key was typed at, as it was when the output
// left that row after the Enter, else as it was at the Enter), when that differs from `text`: a
// recalled, searched (^R), completed or vi-mode line as the shell displayed it when it ran it.
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
//   line, and something answered them within the row (no line feed: not another program's line).
// The output after an Enter belongs to the command and the next prompt: there only the echo of
// characters typed in the Enter's own record is looked for, at its start, so the letters of a
// password are not found in a prompt that happens to contain them. A mask (`*` per key) is
// printable and not the key: no echo. A record whose answer overflows the bounded buffer (a
// huge paste) counts as echoed: it cannot be judged, so it is shown. Lines whose judgement is
// still open are held until ECHO_GRACE_MS after their Enter.
//
// A pipe (sudo logs stdin only when it is not a terminal) has no line editing: with
// `editing: false` no key edits or flags anything, CR, LF and CR LF end lines, a tab is text,
// escape sequences and other control characters are dropped.
//
// Output read only for that (the search) may be parsed lazily: while nobody is typing, only its
// last OUTPUT_TAIL_MAX bytes are kept, and parsed when the next key comes (the prompt's row is at
// the end of the output); while a line is open or its echo undecided, every byte is parsed.
//
// Parsing is byte by byte with all state kept between writes, so a stream split anywhere gives
// the same lines (and flags; the echo judgement uses the writes, which are the recording's).
// Memory is bounded: a line holds at most TEXT_LINE_MAX characters (a longer one is emitted in
// pieces), the answer kept for a record at most ECHO_MAX characters.
import { TEXT_LINE_MAX } from '../limits.js';
import { OutputLine } from '../output-line.js';
import type { TextExtractor, TextLine } from '../text-extractor.js';

/** How long after its Enter a line's echo may still arrive (the pty echoes at once). */
export const ECHO_GRACE_MS = 200;
const ECHO_MAX = 2 * TEXT_LINE_MAX;
const OUTPUT_TAIL_MAX = 4096;
/** Lines awaiting their echo judgement at most (a paste of many lines in one moment). */
const WAITING_MAX = 1024;
const MAX_PARAMS = 32;

/** A prompt asking for a secret, as the text before the cursor ends. */
const SECRET_PROMPT = /(?:^|[^a-z])(?:password|passphrase|passwort|kennwort|mot de passe|contraseña|senha|passcode|pin|otp|verification code|one-time code|secret)\b[^\n]{0,80}[:?]\s*$/i;

/** How a typed line came about, beyond plain typing: each set only when true. */
export const LINE_FLAGS = ['recalled', 'completed', 'edited', 'inexact', 'pasted', 'hidden'] as const;
export type LineFlags = Partial<Record<(typeof LINE_FLAGS)[number], true>>;

export interface TypedLine extends TextLine, LineFlags {
  /** When its first key was typed (ms since the session start). */
  timeMs: number;
  /** When its Enter was typed. */
  endMs: number;
  /** Data-stream position of the Enter byte (-1 when the caller gave no positions). */
  endPos: number;
  /** The line as the terminal showed it at the Enter, when not equal to text. */
  shown?: string;
}

/** What to do with lines typed at a no-echo prompt: leave them out, blank their text, or keep. */
export type HiddenLines = 'drop' | 'redact' | 'keep';

export interface TypedInputOptions {
  cols?: number;
  rows?: number;
  hidden?: HiddenLines;
  /** Parse the output only around typed lines (no OSC 7 directory, prompts only at first keys). */
  lazyOutput?: boolean;
  /** false for a pipe (stdin): no line editing, no flags. Default true (a terminal). */
  editing?: boolean;
}

const enum St {
  Ground,
  Esc,
  Csi,
  Ss3,
  Str,
  StrEsc,
  Mouse,
  Quoted,
}

type Flag = 'recalled' | 'completed' | 'edited' | 'inexact' | 'pasted';

/** The echo judgement of one line. */
interface Judge {
  /** Characters its keys inserted (typed, pasted, yanked), deleted ones too. */
  typed: number;
  /** Some record of its keys was echoed (or could not be judged). */
  echoed: boolean;
}

/** The keys of one record that acted on one line. */
interface Segment {
  judge: Judge;
  /** What they inserted, in the order typed (at most TEXT_LINE_MAX characters). */
  ins: string;
  /** The line's Enter was among them. */
  enter: boolean;
}

/** One input write and the terminal's answer to it. */
interface KeyRecord {
  timeMs: number;
  segs: Segment[];
  /** Printable output after it ('\n' for a line feed), at most ECHO_MAX characters. */
  answer: string;
  /** Bytes of output after it. */
  bytes: number;
  overflow: boolean;
}

interface Pending {
  line: TypedLine;
  judge: Judge | null;
}

/** Length of the common prefix of `a` and `b` from `from`. */
function commonPrefix(a: string, b: string, from: number): number {
  let i = 0;
  while (i < a.length && from + i < b.length && a.charCodeAt(i) === b.charCodeAt(from + i)) i++;
  return i;
}

/** True when `needle`'s characters occur in order in `hay` from `from` (blanks may be missing). */
function isSubsequence(needle: string, hay: string, from: number): boolean {
  let j = from;
  for (const ch of needle) {
    if (ch === ' ' || ch === '\t') continue;
    const k = hay.indexOf(ch, j);
    if (k < 0) return false;
    j = k + ch.length;
  }
  return true;
}

function isWordChar(ch: string): boolean {
  return /[\p{L}\p{N}_]/u.test(ch);
}

export class TypedInput implements TextExtractor {
  private readonly hiddenMode: HiddenLines;
  private chars: string[] = [];
  private cursor = 0;
  private flags = new Set<Flag>();
  private kill = '';
  /** The key before this one killed text: readline appends consecutive kills to one entry. */
  private killedBefore = false;
  private killedNow = false;
  private startMs = -1;
  private secretPrompt = false;
  /** The output row before the cursor when the first key was typed (the prompt), if watched. */
  private prompt: string | null = null;
  /** The echo judgement of the open line (null while none is open). */
  private judge: Judge | null = null;
  private state: St = St.Ground;
  private params = '';
  private mouseLeft = 0;
  private paste = false;
  private lastCr = false;
  /** UTF-8 sequence being collected. */
  private utf8: number[] = [];
  private utf8Need = 0;
  private now = 0;
  private pos = -1;
  private out: TypedLine[] = [];

  // Echo: the current input record and the terminal's answer to it.
  private output: OutputLine | null = null;
  private rec: KeyRecord | null = null;
  /** The last line entered, until the output leaves its row: what the shell showed of it. */
  private shownWatch: { line: TypedLine; prompt: string } | null = null;
  private waiting: Pending[] = [];
  /** Output was seen: without any (a session recorded without ttyout) echo cannot be judged. */
  private outputSeen = false;
  private readonly lazy: boolean;
  private readonly editing: boolean;
  /** Lazy mode: output not parsed yet (its last OUTPUT_TAIL_MAX bytes), and whether older bytes were dropped. */
  private tail: Buffer[] = [];
  private tailLen = 0;
  private tailCut = false;
  private tailMs = 0;

  constructor(opts: TypedInputOptions = {}) {
    this.hiddenMode = opts.hidden ?? 'keep';
    this.lazy = opts.lazyOutput ?? false;
    this.editing = opts.editing ?? true;
  }

  /** Starts judging echo: the caller feeds the terminal's output in order with the input. */
  watchOutput(): void {
    this.output ??= this.newOutput();
  }

  private newOutput(): OutputLine {
    return new OutputLine(
      (t) => this.addEcho(t),
      (row) => this.rowEnded(row),
    );
  }

  observeOutput(bytes: Uint8Array, timeMs: number): void {
    this.watchOutput();
    this.decideUntil(timeMs);
    if (bytes.length > 0) this.outputSeen = true;
    if (this.rec) this.rec.bytes += bytes.length;
    if (this.lazy && this.startMs < 0 && this.waiting.length === 0 && this.rec === null && this.shownWatch === null) {
      this.tail.push(Buffer.from(bytes));
      this.tailLen += bytes.length;
      this.tailMs = timeMs;
      while (this.tail.length > 1 && this.tailLen - this.tail[0]!.length >= OUTPUT_TAIL_MAX) {
        this.tailLen -= this.tail.shift()!.length;
        this.tailCut = true;
      }
      return;
    }
    this.catchUp();
    this.output!.write(bytes, timeMs);
  }

  /** Lazy mode: parses the output held back (from a fresh row model when some was dropped). */
  private catchUp(): void {
    if (this.tailLen === 0) return;
    let raw = Buffer.concat(this.tail);
    if (this.tailCut || raw.length > OUTPUT_TAIL_MAX) {
      this.output = this.newOutput();
      raw = raw.subarray(Math.max(0, raw.length - OUTPUT_TAIL_MAX));
    }
    this.tail = [];
    this.tailLen = 0;
    this.tailCut = false;
    this.output!.write(raw, this.tailMs);
  }

  /** The directory the output's last OSC 7 reported (null without one or without output). */
  get outputCwd(): string | null {
    return this.output?.cwd ?? null;
  }

  /** The output row before the cursor (the prompt, when a person is about to type). */
  promptText(): string {
    return this.output?.beforeCursor() ?? '';
  }

  write(bytes: Uint8Array, timeMs: number): void {
    this.writeAt(bytes, timeMs, -1);
  }

  /** write() with `pos`, the data-stream position of bytes[0] (for the Enter's position). */
  writeAt(bytes: Uint8Array, timeMs: number, pos: number): void {
    this.decideUntil(timeMs);
    this.closeRecord(); // the answer to the previous write ends where this one begins
    this.now = timeMs;
    for (let i = 0; i < bytes.length; i++) {
      this.pos = pos >= 0 ? pos + i : -1;
      this.byte(bytes[i]!);
    }
  }

  resize(_cols: number, _rows: number): void {}

  takeLines(): TypedLine[] {
    const lines = this.out;
    this.out = [];
    return lines;
  }

  end(): TypedLine[] {
    if (this.utf8Need > 0) this.insert('\ufffd');
    this.utf8Need = 0;
    this.utf8 = [];
    // The last line was never entered (no Enter): it is not a line the person entered.
    this.decideUntil(Infinity);
    return this.takeLines();
  }

  // ---- echo and no-echo judgement

  private addEcho(text: string): void {
    const r = this.rec;
    if (!r || r.overflow) return;
    if (r.answer.length + text.length > ECHO_MAX) r.overflow = true;
    else r.answer += text;
  }

  private rowEnded(row: string): void {
    const w = this.shownWatch;
    if (!w) return;
    this.shownWatch = null;
    if (!row.startsWith(w.prompt)) return;
    const shown = row.slice(w.prompt.length).trim();
    if (shown !== w.line.text.trim()) w.line.shown = shown;
    else delete w.line.shown;
  }

  /** The current record's keys that act on the open line (null when output is not watched). */
  private segment(): Segment | null {
    if (this.output === null || this.judge === null) return null;
    this.rec ??= { timeMs: this.now, segs: [], answer: '', bytes: 0, overflow: false };
    const last = this.rec.segs.at(-1);
    if (last && last.judge === this.judge && !last.enter) return last;
    const s: Segment = { judge: this.judge, ins: '', enter: false };
    this.rec.segs.push(s);
    return s;
  }

  /** Judges the current record by its answer: which of its lines' keys were echoed. */
  private closeRecord(): void {
    const r = this.rec;
    if (!r) return;
    this.rec = null;
    const text = r.answer;
    let p = 0;
    r.segs.forEach((s, i) => {
      if (r.overflow) {
        s.judge.echoed = true;
        return;
      }
      if (s.ins === '') {
        // Editing keys: an answer within the row is the line editor's (a redraw, a recalled
        // line, a bell); one with a line feed may be another program's output.
        if (!s.enter && r.bytes > 0 && !text.includes('\n')) s.judge.echoed = true;
        return;
      }
      while (p < text.length && text[p] === '\n') p++;
      if (i === 0) {
        // The echo of the first keys comes first.
        const k = commonPrefix(s.ins, text, p);
        const nl = s.enter ? text.indexOf('\n', p) : -1;
        if (k > 0 && 2 * k >= s.ins.length) {
          s.judge.echoed = true;
          p += k;
        } else if (nl >= 0 && s.ins.length > 1 && text.slice(p, nl).endsWith(s.ins)) {
          // The echo ends the row the Enter's own echo ends (a redraw of the prompt and the line).
          s.judge.echoed = true;
          p = nl;
        } else if (!s.enter && s.ins.length > 1 && isSubsequence(s.ins, text, p)) s.judge.echoed = true; // a redraw, ^R's search line
      } else {
        // A further line of the same write (a paste): its echo follows the previous one's.
        const k = text.indexOf(s.ins, p);
        if (k >= 0) {
          s.judge.echoed = true;
          p = k + s.ins.length;
        }
      }
      // An answer without any printable character: cursor moves and erasing (an edit's redraw, vi commands).
      if (!s.enter && r.bytes > 0 && text === '') s.judge.echoed = true;
    });
  }

  private decideUntil(timeMs: number): void {
    if (this.rec && (timeMs === Infinity || timeMs > this.rec.timeMs + ECHO_GRACE_MS)) this.closeRecord();
    while (this.waiting.length > 0 && (timeMs === Infinity || timeMs > this.waiting[0]!.line.endMs + ECHO_GRACE_MS)) {
      const p = this.waiting.shift()!;
      if (this.outputSeen && p.judge !== null && p.judge.typed > 0 && !p.judge.echoed) p.line.hidden = true;
      this.release(p.line);
    }
  }

  private release(line: TypedLine): void {
    if (this.shownWatch?.line === line) this.shownWatch = null;
    if (line.hidden) {
      delete line.shown;
      if (this.hiddenMode === 'drop') return;
      if (this.hiddenMode === 'redact') line.text = '';
    }
    this.out.push(line);
  }

  // ---- the line

  private touch(): void {
    if (this.startMs < 0) {
      this.catchUp();
      this.shownWatch = null; // a new line is typed: the last one's row is no longer watched
      this.startMs = this.now;
      this.prompt = this.output !== null ? this.output.beforeCursor() : null;
      this.secretPrompt = this.prompt !== null && SECRET_PROMPT.test(this.prompt);
      this.judge = { typed: 0, echoed: false };
    }
    this.segment();
  }

  private reset(): void {
    this.chars = [];
    this.cursor = 0;
    this.flags.clear();
    this.startMs = -1;
    this.secretPrompt = false;
    this.prompt = null;
    this.judge = null;
  }

  private enter(): void {
    const text = this.chars.join('').trimEnd();
    // A blank line is no command, unless history filled it (its text is then unknown here).
    if (text.trim() === '' && !this.flags.has('recalled')) {
      this.reset();
      return;
    }
    const line: TypedLine = { text, timeMs: this.startMs >= 0 ? this.startMs : this.now, endMs: this.now, endPos: this.pos };
    for (const f of this.flags) line[f] = true;
    if (this.prompt !== null && this.output) {
      const row = this.output.rowText();
      if (row.startsWith(this.prompt)) {
        const shown = row.slice(this.prompt.length).trim();
        if (shown !== text.trim()) line.shown = shown;
      }
    }
    if (this.secretPrompt) line.hidden = true;
    const judge = this.judge;
    if (judge !== null && this.rec) {
      const s = this.rec.segs.at(-1);
      if (s && s.judge === judge) s.enter = true;
    }
    // The shell redraws an accepted line (^R's search line becomes the line run): the row as
    // the output leaves it is what was shown.
    if (this.prompt !== null && this.output && !line.hidden) this.shownWatch = { line, prompt: this.prompt };
    this.reset();
    if (this.waiting.length >= WAITING_MAX) this.release(this.waiting.shift()!.line); // bounded: left unjudged
    if (this.output && !line.hidden) {
      this.waiting.push({ line, judge });
      return;
    }
    if (this.waiting.length > 0) this.waiting.push({ line, judge });
    else this.release(line);
  }

  private insert(ch: string): void {
    this.touch();
    if (this.chars.length >= TEXT_LINE_MAX) {
      if (this.cursor < this.chars.length) return; // no room in the middle: the key is lost
      // A line longer than the bound (a paste without newlines) is emitted in pieces.
      const flags = new Set(this.flags);
      this.enter();
      this.touch();
      for (const f of flags) this.flags.add(f);
    }
    if (this.cursor === this.chars.length) this.chars.push(ch);
    else this.chars.splice(this.cursor, 0, ch);
    this.cursor++;
    this.judge!.typed++;
    const s = this.segment();
    if (s && s.ins.length < TEXT_LINE_MAX) s.ins += ch;
  }

  private flag(f: Flag): void {
    this.touch();
    this.flags.add(f);
  }

  private killRange(from: number, to: number): void {
    if (to <= from) {
      // Nothing typed to kill there, but history or completion put text in the line: it was edited.
      if (this.flags.has('recalled') || this.flags.has('completed')) this.flag('edited');
      return;
    }
    const text = this.chars.slice(from, to).join('');
    if (!this.killedBefore) this.kill = text;
    else this.kill = from < this.cursor ? text + this.kill : this.kill + text;
    this.killedNow = true;
    this.chars.splice(from, to - from);
    this.cursor = from;
    this.flag('edited');
  }

  private wordStartBefore(i: number, word: (c: string) => boolean): number {
    while (i > 0 && !word(this.chars[i - 1]!)) i--;
    while (i > 0 && word(this.chars[i - 1]!)) i--;
    return i;
  }

  private wordEndAfter(i: number): number {
    while (i < this.chars.length && !isWordChar(this.chars[i]!)) i++;
    while (i < this.chars.length && isWordChar(this.chars[i]!)) i++;
    return i;
  }

  private move(to: number): void {
    this.flag('edited');
    this.cursor = Math.max(0, Math.min(this.chars.length, to));
  }

  // ---- keys

  private byte(b: number): void {
    if (this.utf8Need > 0) {
      if ((b & 0xc0) === 0x80) {
        this.utf8.push(b);
        if (--this.utf8Need === 0) {
          this.textChar(Buffer.from(this.utf8).toString('utf8'));
          this.utf8 = [];
        }
        return;
      }
      this.utf8Need = 0;
      this.utf8 = [];
      this.textChar('\ufffd');
    }
    switch (this.state) {
      case St.Ground:
        this.ground(b);
        return;
      case St.Quoted:
        this.state = St.Ground;
        if (b >= 0x20 && b < 0x7f) this.insert(String.fromCharCode(b));
        else this.flag('inexact'); // a literal control character: not text
        return;
      case St.Esc:
        this.escape(b);
        return;
      case St.Csi:
        if (b === 0x4d && this.params === '') this.state = St.Mouse; // X10 mouse report: ESC [ M and 3 bytes
        else if (b >= 0x40 && b <= 0x7e) {
          this.state = St.Ground;
          this.csi(b);
        } else if (b >= 0x20 && b <= 0x3f) {
          if (this.params.length < MAX_PARAMS) this.params += String.fromCharCode(b);
        } else if (b === 0x1b) this.state = St.Esc;
        else if (b === 0x18 || b === 0x1a) this.state = St.Ground;
        return;
      case St.Ss3:
        this.state = St.Ground;
        this.ss3(b);
        return;
      case St.Mouse:
        if (--this.mouseLeft <= 0) this.state = St.Ground;
        return;
      case St.Str:
        if (b === 0x07) this.state = St.Ground;
        else if (b === 0x1b) this.state = St.StrEsc;
        return;
      case St.StrEsc:
        if (b === 0x5c) this.state = St.Ground;
        else {
          this.state = St.Esc;
          this.escape(b);
        }
        return;
    }
  }

  private textChar(ch: string): void {
    this.lastCr = false;
    const c = ch.codePointAt(0)!;
    if (c >= 0x80 && c < 0xa0) return; // C1 controls are not text
    this.insert(ch);
    if (this.paste) this.flags.add('pasted');
  }

  private ground(b: number): void {
    this.killedBefore = this.killedNow;
    this.killedNow = false;
    const wasCr = this.lastCr;
    this.lastCr = false;
    if (b >= 0x80) {
      if (b >= 0xc2 && b <= 0xf4) {
        this.utf8 = [b];
        this.utf8Need = b >= 0xf0 ? 3 : b >= 0xe0 ? 2 : 1;
      } else this.textChar('\ufffd');
      return;
    }
    if (b >= 0x20 && b < 0x7f) {
      this.insert(String.fromCharCode(b));
      if (this.paste) this.flags.add('pasted');
      return;
    }
    if (this.paste || !this.editing) {
      // Pasted (or piped) text is inserted as it is; its line ends end lines, other controls are dropped.
      if (b === 0x0d) {
        this.lastCr = true;
        this.enter();
      } else if (b === 0x0a) {
        if (!wasCr) this.enter();
      } else if (b === 0x09) this.insert('\t');
      else if (b === 0x1b) this.state = St.Esc;
      return;
    }
    switch (b) {
      case 0x0d: // CR: Enter
        this.lastCr = true;
        this.enter();
        return;
      case 0x0a: // LF: Enter, unless it follows a CR
        if (!wasCr) this.enter();
        return;
      case 0x08: // BS, ^H
      case 0x7f: // DEL (the Backspace key)
        if (this.cursor > 0) this.killRange(this.cursor - 1, this.cursor);
        else if (this.chars.length > 0) this.flag('edited');
        return;
      case 0x15: // ^U: kill to the start of the line
        this.killRange(0, this.cursor);
        return;
      case 0x17: // ^W: kill the whitespace-delimited word before the cursor
        this.killRange(this.wordStartBefore(this.cursor, (c) => c !== ' ' && c !== '\t'), this.cursor);
        return;
      case 0x0b: // ^K: kill to the end
        this.killRange(this.cursor, this.chars.length);
        return;
      case 0x19: // ^Y: yank the last kill
        if (this.kill !== '') {
          for (const ch of this.kill) this.insert(ch);
          this.flag('edited');
        }
        return;
      case 0x14: // ^T: transpose
        if (this.chars.length >= 2 && this.cursor > 0) {
          const at = this.cursor === this.chars.length ? this.cursor - 1 : this.cursor;
          const a = this.chars[at - 1]!;
          this.chars[at - 1] = this.chars[at]!;
          this.chars[at] = a;
          this.cursor = at + 1;
          this.flag('edited');
        }
        return;
      case 0x03: // ^C: the line is discarded
        this.reset();
        return;
      case 0x04: // ^D: end of input on an empty line, else delete the character at the cursor
        if (this.cursor < this.chars.length) this.killRange(this.cursor, this.cursor + 1);
        return;
      case 0x01: // ^A
        this.move(0);
        return;
      case 0x05: // ^E
        this.move(this.chars.length);
        return;
      case 0x02: // ^B
        this.move(this.cursor - 1);
        return;
      case 0x06: // ^F
        this.move(this.cursor + 1);
        return;
      case 0x10: // ^P, ^N: history
      case 0x0e:
      case 0x12: // ^R, ^S: history search
      case 0x13:
        this.flag('recalled');
        return;
      case 0x09: // Tab: completion
        this.flag('completed');
        return;
      case 0x1f: // ^_: undo
        this.flag('inexact');
        return;
      case 0x16: // ^V: the next key is taken literally
        this.state = St.Quoted;
        return;
      case 0x1b:
        this.state = St.Esc;
        return;
      default:
        return; // ^G, ^L, ^Z and the rest: no text
    }
  }

  private escape(b: number): void {
    this.killedBefore = this.killedNow;
    this.killedNow = false;
    this.state = St.Ground;
    if (!this.editing && b !== 0x5b && b !== 0x4f && b !== 0x5d && b !== 0x50 && b !== 0x58 && b !== 0x5e && b !== 0x5f && b !== 0x1b) return;
    if (b === 0x5b) {
      this.state = St.Csi;
      this.params = '';
      this.mouseLeft = 3;
    } else if (b === 0x4f) this.state = St.Ss3;
    else if (b === 0x5d || b === 0x50 || b === 0x58 || b === 0x5e || b === 0x5f) this.state = St.Str; // OSC, DCS, SOS, PM, APC
    else if (b === 0x1b) this.state = St.Esc;
    else if (b >= 0x80) this.ground(b); // Alt with a non-ASCII key: taken as the key
    else if (this.paste) return; // other escapes inside a paste are dropped
    else if (b === 0x7f || b === 0x08) this.killRange(this.wordStartBefore(this.cursor, isWordChar), this.cursor); // Alt-Backspace
    else if (b === 0x62) this.move(this.wordStartBefore(this.cursor, isWordChar)); // Alt-b
    else if (b === 0x66) this.move(this.wordEndAfter(this.cursor)); // Alt-f
    else if (b === 0x64) this.killRange(this.cursor, this.wordEndAfter(this.cursor)); // Alt-d
    else if (b === 0x2e || b === 0x5f || b === 0x3c || b === 0x3e) this.flag('recalled'); // Alt-. Alt-_ Alt-< Alt->
    else if (b === 0x0d || b === 0x0a) this.enter();
    else this.flag('inexact');
  }

  private ss3(b: number): void {
    if (this.editing) this.key(String.fromCharCode(b), '');
  }

  private csi(final: number): void {
    const f = String.fromCharCode(final);
    if (!this.editing) return;
    if (f === '~') {
      const code = Number.parseInt(this.params.split(';')[0] ?? '', 10);
      if (code === 200) this.paste = true;
      else if (code === 201) this.paste = false;
      else if (!this.paste) this.tilde(code);
      return;
    }
    if (this.paste) return;
    if (this.params.startsWith('<') || this.params.startsWith('?') || this.params.startsWith('>')) return; // mouse (SGR), terminal answers
    this.key(f, this.params);
  }

  /** A cursor key (CSI or SS3 final); `params` `1;5` means Ctrl. */
  private key(f: string, params: string): void {
    const mod = Number.parseInt(params.split(';')[1] ?? '1', 10) || 1;
    const word = mod === 3 || mod === 5; // Alt or Ctrl with ←/→: word moves
    switch (f) {
      case 'A':
      case 'B':
        this.flag('recalled');
        return;
      case 'C':
        this.move(word ? this.wordEndAfter(this.cursor) : this.cursor + 1);
        return;
      case 'D':
        this.move(word ? this.wordStartBefore(this.cursor, isWordChar) : this.cursor - 1);
        return;
      case 'H':
        this.move(0);
        return;
      case 'F':
        this.move(this.chars.length);
        return;
      case 'Z': // Shift-Tab: completion menus
        this.flag('completed');
        return;
      case 'M': // numeric keypad Enter (SS3 M)
        if (params === '') this.enter();
        return;
      default:
        return; // F1-F4, focus reports (I, O), cursor-position reports (R) and the rest
    }
  }

  private tilde(code: number): void {
    switch (code) {
      case 1:
      case 7:
        this.move(0);
        return;
      case 4:
      case 8:
        this.move(this.chars.length);
        return;
      case 3: // Delete
        if (this.cursor < this.chars.length) this.killRange(this.cursor, this.cursor + 1);
        return;
      case 5:
      case 6:
        this.flag('recalled');
        return;
      default:
        return;
    }
  }
}
