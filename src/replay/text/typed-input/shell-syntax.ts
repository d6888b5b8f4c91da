// Whether the lines entered so far leave a shell command unfinished, so that the next line
// continues it (typed at the shell's continuation prompt, PS2: `> `, zsh's `for> `): a trailing
// backslash, an open quote, a here-document not yet ended by its word, a compound command
// (`for`/`while`/`until`/`select` … `done`, `if` … `fi`, `case` … `esac`, `{` … `}`) not yet
// closed, or a line ending in `|`, `&&` or `||`. The POSIX shell grammar, read only as far as
// that question needs (no expansion, no aliases); bash, zsh and dash agree on it.

const OPENS = new Set(['for', 'while', 'until', 'select', 'if', 'case', '{']);
const CLOSES = new Set(['done', 'fi', 'esac', '}']);
/** Words after which a command begins (so a keyword there is one). */
const LEADS = new Set(['do', 'then', 'else', 'elif', 'if', 'while', 'until', '!', '{', 'time']);

export class ShellContinuation {
  private quote = '';
  private depth = 0;
  /** Here-documents whose body is being typed (the first one's), and those opened by the last line. */
  private heredocs: Array<{ word: string; strip: boolean }> = [];
  private trailing = false;

  /** The command begun is not finished: the next line continues it. */
  get open(): boolean {
    return this.quote !== '' || this.depth > 0 || this.heredocs.length > 0 || this.trailing;
  }

  reset(): void {
    this.quote = '';
    this.depth = 0;
    this.heredocs = [];
    this.trailing = false;
  }

  /** Reads one entered line. */
  feed(line: string): void {
    const doc = this.heredocs[0];
    if (doc) {
      if ((doc.strip ? line.replace(/^\t+/, '') : line) === doc.word) this.heredocs.shift();
      return;
    }
    this.trailing = false;
    let word = '';
    let command = this.quote === ''; // a line that continues a quote continues a word
    let quotedWord = this.quote !== '';
    const endWord = (): void => {
      if (word !== '' && !quotedWord && command) {
        if (OPENS.has(word)) this.depth++;
        else if (CLOSES.has(word)) this.depth = Math.max(0, this.depth - 1);
        command = LEADS.has(word) || CLOSES.has(word);
      } else if (word !== '' || quotedWord) command = false;
      word = '';
      quotedWord = false;
    };
    for (let i = 0; i < line.length; i++) {
      const c = line[i]!;
      if (this.quote === "'") {
        if (c === "'") this.quote = '';
        continue;
      }
      if (this.quote === '"') {
        if (c === '\\') i++;
        else if (c === '"') this.quote = '';
        continue;
      }
      if (c === '\\') {
        if (i === line.length - 1) {
          this.trailing = true; // backslash-newline: the line goes on
          return;
        }
        word += line[++i]!;
      } else if (c === "'" || c === '"') {
        this.quote = c;
        quotedWord = true;
      } else if (c === '#' && word === '' && !quotedWord) break;
      else if (c === ' ' || c === '\t') endWord();
      else if (c === ';' || c === '&' || c === '|' || c === '(' || c === ')') {
        endWord();
        command = c !== ')';
        if ((c === '|' || c === '&') && line.slice(i + 1).trim() === '' && !(c === '&' && line[i - 1] !== '&')) this.trailing = true;
      } else if (c === '<' && line.startsWith('<<<', i)) {
        word += '<<<'; // a here-string: no body follows
        i += 2;
      } else if (c === '<' && line[i + 1] === '<') {
        const m = /^<<(-?)\s*(['"]?)([^\s'";&|<>()]+)\2/.exec(line.slice(i));
        if (m) {
          this.heredocs.push({ word: m[3]!, strip: m[1] === '-' });
          i += m[0].length - 1;
        } else word += c;
      } else word += c;
    }
    endWord();
  }
}
