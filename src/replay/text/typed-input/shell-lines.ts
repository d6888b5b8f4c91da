// Which entered lines were the shell's (a command, or the continuation of one) and which were
// typed to another program that read the terminal while the shell waited for it (python's or
// psql's prompt, `read`, `cat`): told apart by the prompt each line was typed at.
//
// A prompt is the shell's when it ends as shells' prompts do (`$`, `#` or `%` after a letter,
// digit, `_`, `]`, `)`, `~`, `/` or a blank: `$ `, `bash-5.2$ ` after PS1 changed, a nested
// `su -` root shell's `root@vm:~# `, zsh's `vm% `), or when it has the shape of the shell's
// prompt, learned from the lines (the prompt of the first line typed at one, then of each line
// taken for the shell's): its text with each run of letters, digits and `_.~/+-` as one
// letter and no blanks at the end, the same as the shell's last one's, or one shape ending with
// the other, at least 3 long (`(venv) ` before a prompt; a shell whose prompt ends otherwise,
// `λ `, fish's `~> `). REPLs' prompts are neither: `>>> `, `... `,
// `mysql> `, `sqlite> `, psql's `test=# `. A line typed while the shell's command is not finished
// (shell-syntax.ts: a `for` loop, a here-document, a trailing backslash) is the shell's at any
// prompt (its continuation prompt). Any other line is another program's input: not a command.
// A line typed before any prompt was drawn (typed ahead while a command ran, or before the
// shell's first prompt) is the shell's when the shell then drew its prompt and the line after
// it on the line's row (its line editor reads what was typed ahead); else another program's
// (`read`, `cat`, `bc` draw no prompt).
// What is not a prompt of the shell's shape is never taken for one, so a program's lines are
// not counted as commands; a command typed after the prompt changed shape (PS1 set to `>>> `)
// is kept, flagged, never dropped.
import { ShellContinuation } from './shell-syntax.js';

/** The shape of a prompt: what stays when words, numbers and paths change. */
export function promptShape(prompt: string): string {
  return prompt.trimEnd().replace(/[\p{L}\p{N}_.~/+-]+/gu, 'w');
}

function sameShape(a: string, b: string): boolean {
  if (a === b) return true;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return short.length >= 3 && long.endsWith(short);
}

/**
 * A prompt as shells draw them: ending with `$`, `#` or `%` (and blanks) after a letter, digit,
 * `_`, `]`, `)`, `~`, `/` or a blank, or alone (`$ `, `bash-5.2$ `, `root@vm:~# `, `vm% `,
 * `[user@host dir]$ `, `/ # `); not a REPL's (`>>> `, `mysql> `, `sqlite> `, psql's `test=# `).
 */
const SHELL_PROMPT = /(?:^|[\p{L}\p{N}_\])~/\s])[$#%]\s*$/u;

/** A prompt's end: a shell's mark and a blank (`$ `, `# `, `% `, `> `, `❯ `). */
const PROMPT_END = /^(.{0,1024}?[$#%>❯»] )(\S.*)$/u;

export class ShellLines {
  private shell: string | null = null;
  private shellShape = '';
  private readonly continuation = new ShellContinuation();

  /**
   * Whether the line typed at `prompt`, shown on its row as `row` after the prompt (the row's
   * text after it as the output left it) and typed as `typed`, was the shell's (then read), and
   * the command the row shows.
   */
  take(prompt: string, row: string, typed: string): { shell: boolean; command: string } {
    let command = row;
    if (prompt.trim() === '') {
      // Typed before a prompt was drawn (ahead, while a command ran, or before the shell's first
      // prompt): the shell's if its line editor then drew its prompt and the line after it.
      const at = this.shell !== null && this.shell.trim() !== '' ? row.lastIndexOf(this.shell) : -1;
      if (at >= 0 && row.slice(at + this.shell!.length).trim() === typed.trim()) {
        prompt = this.shell!;
        command = typed.trim();
      } else if (this.shell === null) {
        const m = PROMPT_END.exec(row);
        if (m) command = m[2]!.trim();
      }
    }
    let shells: boolean;
    if (this.shell === null || prompt === this.shell) {
      // The shell's own prompt again: whatever was unfinished was abandoned (^C) or ran.
      this.continuation.reset();
      shells = true;
    } else shells = this.continuation.open || sameShape(promptShape(prompt), this.shellShape) || SHELL_PROMPT.test(prompt);
    if (!shells) return { shell: false, command };
    // The shell's prompt is learned from lines typed at one (not before one was drawn).
    if (!this.continuation.open && prompt.trim() !== '') {
      this.shell = prompt;
      this.shellShape = promptShape(prompt);
    }
    for (const l of command.split('\n')) this.continuation.feed(l);
    return { shell: true, command };
  }
}
