// The line editor of typed input: keys (from key-decoder.ts) in, entered lines out. Keys are
// applied as the kernel's canonical mode and readline (bash's line editor) apply them, and what
// the editor cannot know is flagged, never guessed (index.ts lists the flags). With
// `editing: false` (a pipe) no key edits or flags anything: CR, LF and CR LF end lines, a tab is
// text, escape sequences and other control characters are dropped. Bracketed paste
// (CSI 200~ … CSI 201~) is taken as text, its lines flagged pasted.
//
// What happens around a line (its prompt, the echo of its keys) is the hooks' business
// (echo-judge.ts): the editor says when a line begins, which characters its keys inserted, and
// when it is entered or discarded.
import type { Params } from '../../params.js';
import { TEXT_LINE_MAX } from '../limits.js';
import { CanonicalLine } from './canonical-line.js';
import type { KeySink } from './key-decoder.js';

/** How a typed line came about, beyond plain typing: each set only when true. */
export const LINE_FLAGS = ['recalled', 'completed', 'edited', 'inexact', 'pasted', 'hidden', 'program'] as const;
export type LineFlags = Partial<Record<(typeof LINE_FLAGS)[number], true>>;

export type Flag = 'recalled' | 'completed' | 'edited' | 'inexact' | 'pasted';

/** A line as the editor knows it when its Enter is typed. */
export interface EnteredLine {
  text: string;
  flags: ReadonlySet<Flag>;
  /** When its first key was typed (-1: none was; the Enter's time is taken). */
  startMs: number;
  /** Stream position of the Enter byte (-1 when unknown). */
  endPos: number;
  /** The same keys as the kernel's canonical mode reads them (canonical-line.ts). */
  canonical: { text: string; edited: boolean };
}

export interface LineEditorHooks {
  /** The first key of a new line is about to act. */
  begin(): void;
  /** A key acts on the open line (after begin, for each key). */
  touch(): void;
  /** A key inserted `ch` into the open line. */
  inserted(ch: string): void;
  /** The open line was entered (not called for a blank line). */
  entered(line: EnteredLine): void;
  /** The open line is gone (entered, blank, or discarded with ^C). */
  cleared(): void;
  /** A key read as one sequence acted on the open line (its bytes: ESC and what follows). */
  sequence(bytes: string): void;
}

/** The bytes of a CSI key without intermediates (`ESC [ 1 ; 5 D`). */
function csiBytes(params: Params, final: number): string {
  const values = params.length === 1 && params.values[0] === 0 ? [] : Array.from(params.values.subarray(0, params.length));
  return `\x1b[${values.join(';')}${String.fromCharCode(final)}`;
}

function isWordChar(ch: string): boolean {
  return /[\p{L}\p{N}_]/u.test(ch);
}

export class LineEditor implements KeySink {
  private chars: string[] = [];
  private cursor = 0;
  private flags = new Set<Flag>();
  private kill = '';
  /** The key before this one killed text: readline appends consecutive kills to one entry. */
  private killedBefore = false;
  private killedNow = false;
  private startMs = -1;
  private paste = false;
  private quoted = false;
  private lastCr = false;
  private pos = -1;
  /** The keys as a program without a line editor would read them. */
  private readonly canon = new CanonicalLine();
  /** Time of the current input write. */
  now = 0;

  constructor(
    private readonly hooks: LineEditorHooks,
    private readonly editing: boolean,
  ) {}

  /** A line is open (a key acted since the last Enter). */
  get open(): boolean {
    return this.startMs >= 0;
  }

  // ---- the line

  private touch(): void {
    if (this.startMs < 0) {
      this.hooks.begin();
      this.startMs = this.now;
    }
    this.hooks.touch();
  }

  private reset(): void {
    this.chars = [];
    this.cursor = 0;
    this.flags.clear();
    this.startMs = -1;
    this.canon.reset();
    this.hooks.cleared();
  }

  /** The open line is dropped, as ^C drops it (its keys were another program's: echo-judge.ts). */
  discard(): void {
    if (this.open) this.reset();
  }

  private enter(): void {
    const text = this.chars.join('').trimEnd();
    // A blank line is no command, unless history filled it or a key of unknown effect acted
    // (vi mode's `Esc k` recalls a line): its text is then unknown here (the echo judge may
    // know it from the row, and drops it if not).
    if (text.trim() === '' && !this.flags.has('recalled') && !this.flags.has('inexact')) {
      this.reset();
      return;
    }
    const canonical = { text: this.canon.text.trimEnd(), edited: this.canon.edited };
    this.hooks.entered({ text, flags: new Set(this.flags), startMs: this.startMs, endPos: this.pos, canonical });
    this.reset();
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
    this.hooks.inserted(ch);
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

  /** A key that is a sequence (Alt+key, CSI, SS3): kills before it are not appended to. */
  private sequenceKey(): void {
    this.killedBefore = false;
    this.killedNow = false;
    this.lastCr = false;
  }

  // ---- keys (KeySink)

  /** A key read as a sequence acted on the open line: its bytes are characters in canonical mode. */
  private sequenceBytes(bytes: string): void {
    if (!this.open) return;
    this.canon.sequence(bytes);
    this.hooks.sequence(bytes);
  }

  char(ch: string, pos: number): void {
    this.pos = pos;
    if (this.editing && !this.paste) this.canon.char(ch);
    if (this.quoted) {
      this.quoted = false;
      if (ch.charCodeAt(0) < 0x7f) this.insert(ch);
      else this.flag('inexact'); // a literal control character: not text
      return;
    }
    this.killedBefore = this.killedNow;
    this.killedNow = false;
    this.lastCr = false;
    this.insert(ch);
    if (this.paste) this.flags.add('pasted');
  }

  control(b: number, pos: number): void {
    this.pos = pos;
    if (this.editing && !this.paste && b !== 0x0d && b !== 0x0a) this.canon.control(b);
    if (this.quoted) {
      this.quoted = false;
      this.flag('inexact');
      return;
    }
    this.killedBefore = this.killedNow;
    this.killedNow = false;
    const wasCr = this.lastCr;
    this.lastCr = false;
    if (this.paste || !this.editing) {
      // Pasted (or piped) text is inserted as it is; its line ends end lines, other controls are dropped.
      if (b === 0x0d) {
        this.lastCr = true;
        this.enter();
      } else if (b === 0x0a) {
        if (!wasCr) this.enter();
      } else if (b === 0x09) this.insert('\t');
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
        this.quoted = true;
        return;
      default:
        return; // ^G, ^L, ^Z and the rest: no text
    }
  }

  alt(b: number, pos: number): void {
    this.pos = pos;
    this.quoted = false;
    this.sequenceKey();
    if (!this.editing) return;
    if (b >= 0x80) this.char(String.fromCodePoint(b), pos); // Alt with a non-ASCII key: taken as the key
    else if (this.paste) return; // other escapes inside a paste are dropped
    else if (b === 0x7f || b === 0x08) this.killRange(this.wordStartBefore(this.cursor, isWordChar), this.cursor); // Alt-Backspace
    else if (b === 0x62) this.move(this.wordStartBefore(this.cursor, isWordChar)); // Alt-b
    else if (b === 0x66) this.move(this.wordEndAfter(this.cursor)); // Alt-f
    else if (b === 0x64) this.killRange(this.cursor, this.wordEndAfter(this.cursor)); // Alt-d
    else if (b === 0x2e || b === 0x3c || b === 0x3e) this.flag('recalled'); // Alt-. Alt-< Alt->
    else if (b === 0x0d || b === 0x0a) this.enter();
    else this.flag('inexact');
    this.sequenceBytes(`\x1b${String.fromCodePoint(b)}`);
  }

  ss3(b: number, pos: number): void {
    this.pos = pos;
    this.quoted = false;
    this.sequenceKey();
    if (!this.editing) return;
    this.key(b, 0);
    this.sequenceBytes(`\x1bO${String.fromCodePoint(b)}`);
  }

  csi(params: Params, collect: number, final: number): void {
    this.quoted = false;
    this.sequenceKey();
    if (!this.editing) return;
    if (final === 0x7e) {
      const code = params.values[0]!;
      if (code === 200) this.paste = true;
      else if (code === 201) this.paste = false;
      else if (!this.paste && collect === 0) {
        this.tilde(code);
        this.sequenceBytes(csiBytes(params, final));
      }
      return;
    }
    if (this.paste) return;
    if (collect !== 0) return; // mouse (SGR), terminal answers (DA ...)
    this.key(final, params.length > 1 && params.values[1]! > 0 ? params.values[1]! : 1);
    this.sequenceBytes(csiBytes(params, final));
  }

  /** A cursor key (CSI or SS3 final); modifier 5 means Ctrl, 3 Alt (0: an SS3 key). */
  private key(f: number, mod: number): void {
    const word = mod === 3 || mod === 5; // Alt or Ctrl with ←/→: word moves
    switch (f) {
      case 0x41: // A, B: ↑ ↓
      case 0x42:
        this.flag('recalled');
        return;
      case 0x43: // C: →
        this.move(word ? this.wordEndAfter(this.cursor) : this.cursor + 1);
        return;
      case 0x44: // D: ←
        this.move(word ? this.wordStartBefore(this.cursor, isWordChar) : this.cursor - 1);
        return;
      case 0x48: // H: Home
        this.move(0);
        return;
      case 0x46: // F: End
        this.move(this.chars.length);
        return;
      case 0x5a: // Z: Shift-Tab, completion menus
        this.flag('completed');
        return;
      case 0x4d: // M: numeric keypad Enter (SS3 M)
        if (mod === 0) this.enter();
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
