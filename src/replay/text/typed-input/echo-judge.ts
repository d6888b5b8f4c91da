// The echo and secret judgement of typed lines (index.ts describes the rules), and the output
// observation it rests on: the terminal's output goes through OutputLine (../output-line.ts, a
// handler of the one parser), which gives the prompt row, the printable answer to each input
// record and the row a line was shown on. It is the line editor's hooks (line-editor.ts): told
// when a line begins, what its keys inserted and when it is entered, it holds the entered lines
// until their echo is judged and hands them out.
import { TEXT_LINE_MAX } from '../limits.js';
import { OutputLine } from '../output-line.js';
import { caretNotation } from './canonical-line.js';
import { historyWords, isExpansionOf } from './history-expansion.js';
import { ShellLines } from './shell-lines.js';
import type { TextLine } from '../text-extractor.js';
import type { EnteredLine, LineEditorHooks, LineFlags } from './line-editor.js';

/** How long after its Enter a line's echo may still arrive (the pty echoes at once). */
export const ECHO_GRACE_MS = 200;
const ECHO_MAX = 2 * TEXT_LINE_MAX;
const OUTPUT_TAIL_MAX = 4096;
/** At most this many unechoed characters are taken for keys that quit a program (rowEnded). */
const QUIT_KEYS_MAX = 2;
/** Lines awaiting their echo judgement at most (a paste of many lines in one moment). */
const WAITING_MAX = 1024;

/** A prompt asking for a secret, as the text before the cursor ends. */
const SECRET_PROMPT = /(?:^|[^a-z])(?:password|passphrase|passwort|kennwort|mot de passe|contraseña|senha|passcode|pin|otp|verification code|one-time code|secret)\b[^\n]{0,80}[:?]\s*$/i;

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

/** The echo judgement of one line. */
interface Judge {
  /** Characters its keys inserted (typed, pasted, yanked), deleted ones too. */
  typed: number;
  /** Some record of its keys was echoed (or could not be judged). */
  echoed: boolean;
  /** A key sequence was echoed in caret notation (`^[[D`): the kernel's canonical mode read the keys. */
  canonical: boolean;
  /** The first characters its keys inserted (QUIT_KEYS_MAX at most). */
  first: string;
}

/** The keys of one record that acted on one line. */
interface Segment {
  judge: Judge;
  /** What they inserted, in the order typed (at most TEXT_LINE_MAX characters). */
  ins: string;
  /** The line's Enter was among them. */
  enter: boolean;
  /** The first key among them read as a sequence (its bytes), if any. */
  seq: string | null;
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
  /** The output row the cursor was on when the keys were typed (OutputLine.rowNumber). */
  row: number;
}

interface Pending {
  line: TypedLine;
  judge: Judge | null;
  /** The line as canonical mode reads its keys: taken if the judge finds canonical mode. */
  canonical: EnteredLine['canonical'];
  /** The prompt it was typed at (null: output not watched, or a full-screen program's). */
  prompt: string | null;
}

/** What a row showed right of the cursor when a line began (zsh's right prompt): its column and text. */
interface RightText {
  at: number;
  text: string;
}

/**
 * The line a row shows after `prompt`, without the text that stood right of the cursor when the
 * line began if it still stands there (a right prompt is not part of the line); null when the
 * row no longer starts with the prompt.
 */
function lineOnRow(row: string, prompt: string, right: RightText | null): string | null {
  if (!row.startsWith(prompt)) return null;
  let body = row.slice(prompt.length);
  if (right !== null) {
    const at = right.at - prompt.length;
    if (body.length >= at && body.slice(at).trimEnd() === right.text) body = body.slice(0, at);
  }
  return body.trim();
}

/**
 * A line read in canonical mode (no line editor: dash, `cat`): its text is the keys' bytes as
 * the kernel gives them, the escape sequences included; the editor's flags do not apply, and
 * the row shows those bytes in caret notation, so there is no `shown`.
 */
function asCanonical(line: TypedLine, canonical: EnteredLine['canonical']): void {
  line.text = canonical.text;
  delete line.shown;
  for (const f of ['recalled', 'completed', 'edited', 'inexact'] as const) delete line[f];
  if (canonical.edited) line.edited = true;
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

export class EchoJudge implements LineEditorHooks {
  /** Time of the current input write. */
  now = 0;
  private out: TypedLine[] = [];
  /** Whether a line is open in the editor (set by the owner). */
  lineOpen: () => boolean = () => false;
  /** Drops the line open in the editor (set by the owner). */
  discardLine: () => void = () => {};
  /** The open line began while the alternate screen was active: a full-screen program's keys. */
  private inProgram = false;
  /** The open line's first key or two were not echoed when the output went to another row (rowEnded). */
  private quitKeys: Judge | null = null;
  private secretPrompt = false;
  /** The output row before the cursor when the first key was typed (the prompt), if watched. */
  private prompt: string | null = null;
  /** What the prompt's row showed right of the cursor then (a right prompt), if anything. */
  private right: RightText | null = null;
  /** The echo judgement of the open line (null while none is open). */
  private judge: Judge | null = null;
  private output: OutputLine | null = null;
  private rec: KeyRecord | null = null;
  /** The last line entered, until the output leaves its row: what the shell showed of it. */
  private shownWatch: { line: TypedLine; prompt: string; right: RightText | null; expansion?: string[] } | null = null;
  private waiting: Pending[] = [];
  /** Which lines were the shell's, by their prompts. */
  private readonly shellLines = new ShellLines();
  /** Output was seen: without any (a session recorded without ttyout) echo cannot be judged. */
  private outputSeen = false;
  /** Lazy mode: output not parsed yet (its last OUTPUT_TAIL_MAX bytes), and whether older bytes were dropped. */
  private tail: Buffer[] = [];
  private tailLen = 0;
  private tailCut = false;
  private tailMs = 0;

  constructor(
    private readonly hiddenMode: HiddenLines,
    private readonly lazy: boolean,
    /** The window's width, when known. */
    private cols?: number,
  ) {}

  /** Starts judging echo: the caller feeds the terminal's output in order with the input. */
  watchOutput(): void {
    this.output ??= this.newOutput();
  }

  private newOutput(): OutputLine {
    return new OutputLine(
      (t) => this.addEcho(t),
      () => this.rowEnded(),
      (on) => this.alternateSwitched(on),
      this.cols,
    );
  }

  /** The window's width changed (the output's rows wrap at it). */
  resize(cols: number): void {
    this.cols = cols;
    this.output?.resize(cols);
  }

  observeOutput(bytes: Uint8Array, timeMs: number): void {
    this.watchOutput();
    this.decideUntil(timeMs);
    if (bytes.length > 0) this.outputSeen = true;
    if (this.rec) this.rec.bytes += bytes.length;
    if (this.lazy && !this.lineOpen() && this.waiting.length === 0 && this.rec === null && this.shownWatch === null) {
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

  takeLines(): TypedLine[] {
    const lines = this.out;
    this.out = [];
    return lines;
  }

  private addEcho(text: string): void {
    const r = this.rec;
    if (!r || r.overflow) return;
    if (r.answer.length + text.length > ECHO_MAX) r.overflow = true;
    else r.answer += text;
  }

  /** Leaving the alternate screen: a line begun there was that program's keys (the key that quit it). */
  private alternateSwitched(on: boolean): void {
    if (!on && this.inProgram && this.lineOpen()) this.discardLine();
  }

  /** The output is about to leave the cursor's line. */
  private rowEnded(): void {
    // The output goes to another row while a line is open whose key or two inserted text that
    // nothing echoed yet: a program may have read them without echo (the `q` that quits top)
    // while the next prompt is drawn; closeRecord decides when the answer is complete. In the
    // alternate screen a program moves the cursor at will (vim's `:` goes to the last row):
    // there only leaving it ends its keys (alternateSwitched).
    const j = this.judge;
    if (j !== null && !this.inProgram && j.typed > 0 && j.typed <= QUIT_KEYS_MAX && !j.echoed && !/[^\n]/.test(this.rec?.answer ?? '')) this.quitKeys = j;
    const w = this.shownWatch;
    if (!w) return;
    this.shownWatch = null;
    const row = this.output!.rowText();
    if (w.expansion) {
      // The row after the line: bash's expansion of it, the command it ran.
      const typed = w.line.shown ?? w.line.text;
      const expanded = row.trim();
      if (isExpansionOf(typed, w.expansion, expanded)) w.line.shown = expanded;
      return;
    }
    const shown = lineOnRow(row, w.prompt, w.right);
    if (shown === null) return;
    if (shown !== w.line.text.trim()) w.line.shown = shown;
    else delete w.line.shown;
    const words = historyWords(shown);
    if (words.length > 0) this.shownWatch = { ...w, expansion: words };
  }

  /** The current record's keys that act on the open line (null when output is not watched). */
  private segment(): Segment | null {
    if (this.output === null || this.judge === null) return null;
    this.rec ??= { timeMs: this.now, segs: [], answer: '', bytes: 0, overflow: false, row: this.output.rowNumber };
    const last = this.rec.segs.at(-1);
    if (last && last.judge === this.judge && !last.enter) return last;
    const s: Segment = { judge: this.judge, ins: '', enter: false, seq: null };
    this.rec.segs.push(s);
    return s;
  }

  /** Judges the current record by its answer: which of its lines' keys were echoed. */
  closeRecord(): void {
    const r = this.rec;
    if (!r) return;
    this.rec = null;
    // A key or two that nothing echoed before the output went to another row (rowEnded), and
    // that the row the output ends on does not end with either (a line editor redrawing the
    // prompt and the line shows them): read by a program, they do not begin the next line.
    // More keys stay a line, judged as any other (a command typed after `stty -echo` is
    // hidden, never dropped).
    const quit = this.quitKeys;
    this.quitKeys = null;
    if (quit !== null && quit === this.judge && this.lineOpen() && this.output !== null && !this.output.beforeCursor().trimEnd().endsWith(quit.first)) {
      this.discardLine();
    }
    const text = r.answer;
    // The answer left the cursor on the row it found it on: drawn by the line editor (zsh draws
    // its completion list and ^R search line below the line and comes back), not another
    // program's lines.
    const sameRow = this.output !== null && this.output.rowNumber === r.row;
    let p = 0;
    r.segs.forEach((s, i) => {
      // Only the kernel echoes a key's bytes in caret notation: no line editor read them.
      if (s.seq !== null && text.includes(caretNotation(s.seq))) s.judge.canonical = true;
      if (r.overflow) {
        s.judge.echoed = true;
        return;
      }
      if (s.ins === '') {
        // Editing keys: an answer within the row is the line editor's (a redraw, a recalled
        // line, a bell); one that ends on another row may be another program's output.
        if (!s.enter && r.bytes > 0 && (!text.includes('\n') || sameRow)) s.judge.echoed = true;
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

  decideUntil(timeMs: number): void {
    if (this.rec && (timeMs === Infinity || timeMs > this.rec.timeMs + ECHO_GRACE_MS)) this.closeRecord();
    while (this.waiting.length > 0 && (timeMs === Infinity || timeMs > this.waiting[0]!.line.endMs + ECHO_GRACE_MS)) {
      const p = this.waiting.shift()!;
      if (this.outputSeen && p.judge !== null && p.judge.typed > 0 && !p.judge.echoed) p.line.hidden = true;
      if (p.judge?.canonical) asCanonical(p.line, p.canonical);
      this.release(p.line, p.prompt);
    }
  }

  private release(line: TypedLine, prompt: string | null): void {
    if (this.shownWatch?.line === line) this.shownWatch = null;
    // Typed to another program than the shell (told by its prompt: shell-lines.ts)?
    if (!line.hidden && !line.program && prompt !== null) {
      const r = this.shellLines.take(prompt, line.shown ?? line.text, line.text);
      if (!r.shell) line.program = true;
      if (r.command !== (line.shown ?? line.text)) {
        if (r.command === line.text) delete line.shown;
        else line.shown = r.command;
      }
    }
    // Nothing typed, nothing recalled, and the row showed no line: no line was entered.
    if (line.text === '' && !line.recalled && !line.hidden && !line.shown) return;
    if (line.hidden) {
      delete line.shown;
      if (this.hiddenMode === 'drop') return;
      if (this.hiddenMode === 'redact') line.text = '';
    }
    this.out.push(line);
  }

  // ---- LineEditorHooks

  begin(): void {
    this.catchUp();
    this.shownWatch = null; // a new line is typed: the last one's row is no longer watched
    this.inProgram = this.output?.alternate ?? false;
    this.prompt = this.output !== null && !this.inProgram ? this.output.beforeCursor() : null;
    this.right = null;
    if (this.prompt !== null) {
      const row = this.output!.rowText();
      const at = row.slice(this.prompt.length).search(/\S/);
      if (at >= 0) this.right = { at: this.prompt.length + at, text: row.slice(this.prompt.length + at).trimEnd() };
    }
    this.secretPrompt = this.prompt !== null && SECRET_PROMPT.test(this.prompt);
    this.judge = { typed: 0, echoed: false, canonical: false, first: '' };
  }

  touch(): void {
    this.segment();
  }

  sequence(bytes: string): void {
    const s = this.segment();
    if (s && s.seq === null) s.seq = bytes;
  }

  inserted(ch: string): void {
    if (this.judge!.typed++ < QUIT_KEYS_MAX) this.judge!.first += ch;
    const s = this.segment();
    if (s && s.ins.length < TEXT_LINE_MAX) s.ins += ch;
  }

  cleared(): void {
    this.secretPrompt = false;
    this.prompt = null;
    this.right = null;
    this.inProgram = false;
    this.judge = null;
  }

  entered(e: EnteredLine): void {
    const text = e.text;
    const line: TypedLine = { text, timeMs: e.startMs >= 0 ? e.startMs : this.now, endMs: this.now, endPos: e.endPos };
    for (const f of e.flags) line[f] = true;
    if (this.inProgram || this.output?.alternate) line.program = true;
    if (this.prompt !== null && this.output) {
      const shown = lineOnRow(this.output.rowText(), this.prompt, this.right);
      if (shown !== null && shown !== text.trim()) line.shown = shown;
    }
    if (this.secretPrompt) line.hidden = true;
    const judge = this.judge;
    if (judge !== null && this.rec) {
      const s = this.rec.segs.at(-1);
      if (s && s.judge === judge) s.enter = true;
    }
    // The shell redraws an accepted line (^R's search line becomes the line run): the row as
    // the output leaves it is what was shown.
    if (this.prompt !== null && this.output && !line.hidden) this.shownWatch = { line, prompt: this.prompt, right: this.right };
    const prompt = this.prompt;
    this.cleared();
    if (this.waiting.length >= WAITING_MAX) {
      const p = this.waiting.shift()!;
      this.release(p.line, p.prompt); // bounded: left unjudged
    }
    const pending: Pending = { line, judge, canonical: e.canonical, prompt };
    if (this.output && !line.hidden) {
      this.waiting.push(pending);
      return;
    }
    if (this.waiting.length > 0) this.waiting.push(pending);
    else this.release(line, prompt);
  }
}
