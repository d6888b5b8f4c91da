// The line as the kernel's canonical mode reads it (ICANON with IEXTEN, the Linux defaults): a
// program without a line editor of its own (dash, `cat`, `read` without -e) gets these bytes.
// There the cursor and function keys are no editing: their bytes are characters of the line
// (dash runs `echo ab␛[DX` as typed), and so are the other control keys but the few the
// kernel acts on: erase (DEL, ^H) removes the last character, kill (^U) the line, word erase
// (^W) the last word; ^V takes the next key literally; reprint (^R), and the signal and flow
// keys, are not text. The line editor (line-editor.ts) keeps one beside its own line; the echo
// judge (echo-judge.ts) takes it when the terminal echoed a key in caret notation (`^[[D`), which
// only the kernel's echo does.
import { TEXT_LINE_MAX } from '../limits.js';

/** The control keys canonical mode acts on and keeps out of the line (Linux defaults). */
const NOT_TEXT = new Set([
  0x03, // ^C intr
  0x04, // ^D eof
  0x0f, // ^O discard
  0x11, // ^Q start
  0x12, // ^R reprint
  0x13, // ^S stop
  0x1a, // ^Z susp
  0x1c, // ^\ quit
]);

export class CanonicalLine {
  private chars: string[] = [];
  private literalNext = false;
  /** An erase, kill or word-erase key changed the line. */
  edited = false;

  get text(): string {
    return this.chars.join('');
  }

  reset(): void {
    this.chars = [];
    this.literalNext = false;
    this.edited = false;
  }

  private put(text: string): void {
    for (const ch of text) if (this.chars.length < TEXT_LINE_MAX) this.chars.push(ch);
  }

  /** A printable character. */
  char(ch: string): void {
    this.literalNext = false;
    this.put(ch);
  }

  /** A C0 control or DEL other than the line's end. */
  control(code: number): void {
    if (this.literalNext) {
      this.literalNext = false;
      this.put(String.fromCharCode(code));
      return;
    }
    switch (code) {
      case 0x7f: // erase
      case 0x08:
        if (this.chars.length > 0) {
          this.chars.pop();
          this.edited = true;
        }
        return;
      case 0x15: // kill
        if (this.chars.length > 0) this.edited = true;
        this.chars = [];
        return;
      case 0x17: { // word erase: blanks, then the word before them
        let i = this.chars.length;
        while (i > 0 && /\s/.test(this.chars[i - 1]!)) i--;
        while (i > 0 && !/\s/.test(this.chars[i - 1]!)) i--;
        if (i < this.chars.length) this.edited = true;
        this.chars.length = i;
        return;
      }
      case 0x16: // lnext
        this.literalNext = true;
        return;
      default:
        if (!NOT_TEXT.has(code)) this.put(String.fromCharCode(code));
    }
  }

  /** The bytes of a key the line editor read as one sequence (ESC and what follows). */
  sequence(bytes: string): void {
    this.literalNext = false;
    this.put(bytes);
  }
}

/** `bytes` as the kernel echoes them with ECHOCTL: a control character as `^` and a letter. */
export function caretNotation(bytes: string): string {
  let out = '';
  for (const ch of bytes) {
    const c = ch.charCodeAt(0);
    out += c < 0x20 || c === 0x7f ? `^${String.fromCharCode(c ^ 0x40)}` : ch;
  }
  return out;
}
