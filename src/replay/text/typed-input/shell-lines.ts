// Which entered lines were the shell's (a command, or the continuation of one) and which were
// typed to another program that read the terminal while the shell waited for it (python's or
// psql's prompt, `read`, `cat`): told apart by the prompt each line was typed at.
//
// The shell's prompt is learned: the prompt of the first line, then of each line taken for the
// shell's. A prompt is the shell's when it has the same shape — its text with each run of
// letters, digits and `_.~/+-` as one letter, without the final `$ # % > ❯` mark and blanks — as
// the shell's last one, or when one shape ends with the other, at least 3 long (`(venv) ` before
// a prompt, a nested `su -` root shell: `evtyped@vm:/tmp$ ` and `root@vm:~# ` have one shape;
// `>>> `, `test=# `, `mysql> ` have others). A line typed while the shell's command is not finished
// (shell-syntax.ts: a `for` loop, a here-document, a trailing backslash) is the shell's at any
// prompt (its continuation prompt). Any other line is another program's input: not a command.
// What is not a prompt of the shell's shape is never taken for one, so a program's lines are
// not counted as commands; a command typed after the prompt changed shape (PS1 set to `>>> `)
// is kept, flagged, never dropped.
import { ShellContinuation } from './shell-syntax.js';

/** The shape of a prompt: what stays when words, numbers and paths change. */
export function promptShape(prompt: string): string {
  return prompt
    .trimEnd()
    .replace(/[$#%>❯»]$/u, '')
    .trimEnd()
    .replace(/[\p{L}\p{N}_.~/+-]+/gu, 'w');
}

function sameShape(a: string, b: string): boolean {
  if (a === b) return true;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return short.length >= 3 && long.endsWith(short);
}

export class ShellLines {
  private shell: string | null = null;
  private shellShape = '';
  private readonly continuation = new ShellContinuation();

  /** Whether the line `command` (as run), typed at `prompt`, was the shell's; reads it if so. */
  take(prompt: string, command: string): boolean {
    let shells: boolean;
    if (this.shell === null || prompt === this.shell) {
      // The shell's own prompt again: whatever was unfinished was abandoned (^C) or ran.
      this.continuation.reset();
      shells = true;
    } else shells = this.continuation.open || sameShape(promptShape(prompt), this.shellShape);
    if (!shells) return false;
    if (!this.continuation.open) {
      this.shell = prompt;
      this.shellShape = promptShape(prompt);
    }
    for (const l of command.split('\n')) this.continuation.feed(l);
    return true;
  }
}
