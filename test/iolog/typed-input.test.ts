// The typed-input line editor: the lines a person entered, editing applied where it is
// knowable, the rest flagged; no escape sequence leaks as text; split-invariant; never throws.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TEXT_LINE_MAX } from '../../src/iolog/limits.js';
import { TypedInput, type TypedLine } from '../../src/replay/text/typed-input/index.js';
import { promptShape, ShellLines } from '../../src/replay/text/typed-input/shell-lines.js';
import { ShellContinuation } from '../../src/replay/text/typed-input/shell-syntax.js';

const b = (s: string) => Buffer.from(s, 'utf8');

function typed(input: string | Buffer, opts: ConstructorParameters<typeof TypedInput>[0] = {}): TypedLine[] {
  const x = new TypedInput(opts);
  x.writeAt(typeof input === 'string' ? b(input) : input, 0, 0);
  return x.end();
}

const texts = (input: string | Buffer) => typed(input).map((l) => l.text);

describe('typed input', () => {
  it('CR is Enter: the issue\'s four commands come out as four lines', () => {
    expect(texts('ls --color=auto -la\rstty size\rls --color=auto -la\rexit\r')).toEqual(['ls --color=auto -la', 'stty size', 'ls --color=auto -la', 'exit']);
  });

  it('CR, LF and CR LF each end one line; empty lines and an unterminated tail are not lines', () => {
    expect(texts('a\rb\nc\r\nd\r\r\n\nunfinished')).toEqual(['a', 'b', 'c', 'd']);
  });

  it('applies backspace, DEL, ^U, ^W, ^K and ^Y and flags the line edited', () => {
    const lines = typed('lss\x7f -la\r' + 'cat\x08\x08\x08echo hi\r' + 'rm -rf /\x15ls\r' + 'git commit -m wip\x17\x17\x17push\r' + 'abc def\x01\x0bxyz\r');
    expect(lines.map((l) => l.text)).toEqual(['ls -la', 'echo hi', 'ls', 'git push', 'xyz']);
    expect(lines.every((l) => l.edited)).toBe(true);
    expect(texts('echo one two\x17\x17\x19\x19\r')).toEqual(['echo one twoone two']);
    expect(typed('plain\r')[0]).toEqual({ text: 'plain', timeMs: 0, endMs: 0, endPos: 5 });
  });

  it('^C discards the line; ^D on an empty line is no line', () => {
    expect(texts('rm -rf /\x03ls\r\x04')).toEqual(['ls']);
  });

  it('cursor keys edit as readline does, and the line says so', () => {
    const [l] = typed('ls -la\x1b[D\x1b[D\x1b[DX\r');
    expect(l).toMatchObject({ text: 'ls X-la', edited: true });
    expect(texts('world\x1bOH\x1b[1~hello \x1b[F\x1b[4~!\r')).toEqual(['hello world!']);
    expect(texts('abc\x1b[D\x1b[D\x1b[3~\r')).toEqual(['ac']);
    expect(texts('one two\x1bb\x1bb\x1bd\x1b[1;5C!\r')).toEqual([' two!']);
  });

  it('history recall and completion are flagged, not guessed', () => {
    expect(typed('\x1b[A\r')).toEqual([expect.objectContaining({ text: '', recalled: true })]); // nothing typed: text unknown
    expect(typed('\x1b[A --help\r')[0]).toMatchObject({ text: ' --help', recalled: true });
    expect(typed('\x1bOA\x1bOB\x10x\r')[0]).toMatchObject({ text: 'x', recalled: true });
    expect(typed('\x12ssh\r')[0]).toMatchObject({ text: 'ssh', recalled: true });
    expect(typed('cd /us\tlo\t\r')[0]).toMatchObject({ text: 'cd /uslo', completed: true });
  });

  it('escape sequences never leak as text', () => {
    const keys =
      'e\x1b[Ac\x1bOPh\x1b[15~o\x1b[1;5A \x1b[12;40R' + // cursor keys, F-keys, a cursor position report
      '\x1b]11;rgb:0000/0000/0000\x1b\\' + // an OSC colour answer
      '\x1b]10;rgb:ffff/ffff/ffff\x07' +
      '\x1b[?62;22c\x1b[>41;390;0c' + // device attributes answers
      '\x1b[I\x1b[O' + // focus
      '\x1b[M !!' + // X10 mouse
      '\x1b[<0;10;5M\x1b[<0;10;5m' + // SGR mouse
      'hi\r';
    const [l] = typed(keys);
    expect(l!.text).toBe('echo hi');
    expect(l!.text).not.toMatch(/[\x00-\x1f\x7f]/);
  });

  it('bracketed paste is text, its lines end lines, and they say pasted', () => {
    const lines = typed('\x1b[200~echo a\recho b\x1b[201~ c\r');
    expect(lines.map((l) => l.text)).toEqual(['echo a', 'echo b c']);
    expect(lines.every((l) => l.pasted)).toBe(true);
  });

  it('UTF-8 keys, split or not, are one character each; invalid bytes are U+FFFD', () => {
    expect(texts('echo héllo ☃ 😀\r')).toEqual(['echo héllo ☃ 😀']);
    expect(texts('naïve\x7f\x7f\x7f\x7fa\r')).toEqual(['na']);
    expect(texts(Buffer.from([0x61, 0xff, 0x62, 0x0d]))).toEqual(['a\ufffdb']);
  });

  it('times: the first key and the Enter; positions: the Enter byte in the data stream', () => {
    const x = new TypedInput();
    x.writeAt(b('l'), 1000, 100);
    x.writeAt(b('s'), 1200, 101);
    x.writeAt(b('\r'), 1500, 102);
    expect(x.takeLines()).toEqual([{ text: 'ls', timeMs: 1000, endMs: 1500, endPos: 102 }]);
  });

  it('the same bytes split at every offset give the same lines', () => {
    const input = b('ls -la\x1b[D\x1b[DX\r\x1b[200~pa\rste\x1b[201~\r\x1b]11;rgb:0/0/0\x1b\\é😀\x17x\r\x1b[M !!q\r\r\nlast\n');
    const whole = typed(input);
    expect(whole.map((l) => l.text)).toEqual(['ls -Xla', 'pa', 'ste', 'x', 'q', 'last']);
    for (let cut = 0; cut <= input.length; cut++) {
      const x = new TypedInput();
      x.writeAt(input.subarray(0, cut), 0, 0);
      x.writeAt(input.subarray(cut), 0, cut);
      expect(x.end()).toEqual(whole);
    }
    // one byte at a time
    const x = new TypedInput();
    for (let i = 0; i < input.length; i++) x.writeAt(input.subarray(i, i + 1), 0, i);
    expect(x.end()).toEqual(whole);
  });

  it('random bytes never throw and give bounded lines', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 200 }), { maxLength: 8 }), (pieces) => {
        const x = new TypedInput();
        x.watchOutput();
        let n = 0;
        let t = 0;
        for (const p of pieces) {
          x.writeAt(p, (t += 10), n);
          x.observeOutput(p, (t += 1));
          n += p.length;
        }
        const lines = [...x.takeLines(), ...x.end()];
        expect(lines.length).toBeLessThanOrEqual(n);
        for (const l of lines) {
          expect(l.text.length).toBeLessThanOrEqual(2 * TEXT_LINE_MAX);
          expect(l.text).not.toMatch(/[\x00-\x08\x0a-\x1f\x7f]/);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a pipe (stdin) has no line editing: control keys are dropped, lines still end', () => {
    const lines = typed('abc\x7fd\x15e\x1b[Af\tg\r\nnext\n', { editing: false });
    expect(lines.map((l) => l.text)).toEqual(['abcdef\tg', 'next']);
    expect(lines.every((l) => !l.edited && !l.recalled)).toBe(true);
  });

  it('a line longer than the bound is emitted in pieces', () => {
    const lines = texts('x'.repeat(TEXT_LINE_MAX * 2 + 5) + '\r');
    expect(lines.map((l) => l.length)).toEqual([TEXT_LINE_MAX, TEXT_LINE_MAX, 5]);
  });
});

describe('no-echo prompts', () => {
  /** Types `keys` one key every 100 ms; `echo` writes what the terminal showed after each. */
  function session(prompt: string, keys: string, echo: (k: string) => string, hidden: 'drop' | 'redact' | 'keep' = 'keep'): TypedLine[] {
    const x = new TypedInput({ hidden });
    let t = 0;
    x.observeOutput(b(prompt), t);
    for (const k of keys) {
      x.write(b(k), (t += 100));
      x.observeOutput(b(echo(k)), (t += 1));
    }
    x.observeOutput(b('$ '), (t += 1000));
    return [...x.takeLines(), ...x.end()];
  }
  const echoed = (k: string) => (k === '\r' ? '\r\n' : k);
  const silent = (k: string) => (k === '\r' ? '\r\n' : '');

  it('a line typed at a password prompt is hidden, even when something looks like echo', () => {
    for (const p of ['Password: ', '[sudo] password for bob: ', "bob@web01's password: ", 'Enter passphrase for key: ', 'Current password: ', 'Enter PIN: ']) {
      expect(session(p, 'hunter2\r', echoed)).toEqual([expect.objectContaining({ text: 'hunter2', hidden: true })]);
    }
  });

  it('a line whose characters are not echoed is hidden; an echoed one is not', () => {
    expect(session('$ ', 'hunter2\r', silent)).toEqual([expect.objectContaining({ hidden: true })]);
    expect(session('$ ', 'ls -la\r', echoed)[0]).not.toHaveProperty('hidden');
    // readline redraws (a cursor move, an insert) still show the text in order
    expect(session('$ ', 'ls\x1b[DX\r', (k) => (k === 'X' ? 'Xs\x1b[D' : k === '\x1b' || k === '[' || k === 'D' ? (k === 'D' ? '\b' : '') : echoed(k)))[0]).toMatchObject({ text: 'lXs' });
    expect(session('$ ', 'ls\x1b[DX\r', (k) => (k === 'X' ? 'Xs\x1b[D' : k === '\x1b' || k === '[' || k === 'D' ? (k === 'D' ? '\b' : '') : echoed(k)))[0]).not.toHaveProperty('hidden');
  });

  it('drop leaves hidden lines out, redact blanks them, keep keeps them', () => {
    const keys = 'ls\rhunter2\rid\r';
    let secret = false;
    const echo = (k: string) => {
      if (k === '\r') {
        secret = !secret;
        return secret ? '\r\nPassword: ' : '\r\n$ ';
      }
      return secret ? '' : k;
    };
    expect(session('$ ', keys, echo, 'drop').map((l) => l.text)).toEqual(['ls', 'id']);
    secret = false;
    expect(session('$ ', keys, echo, 'redact').map((l) => [l.text, l.hidden ?? false])).toEqual([['ls', false], ['', true], ['id', false]]);
  });

  it('a paste of many lines at one moment stays bounded and is not hidden for want of room', () => {
    const x = new TypedInput({ hidden: 'drop' });
    x.observeOutput(b('$ '), 0);
    const paste = Array.from({ length: 5000 }, (_, i) => `echo line ${i} ${'x'.repeat(20)}`).join('\r') + '\r';
    x.writeAt(b(`\x1b[200~${paste}\x1b[201~`), 1, 0);
    x.observeOutput(b(paste.replaceAll('\r', '\r\n')), 2);
    const lines = [...x.takeLines(), ...x.end()];
    expect(lines.length).toBe(5000);
    expect(lines.every((l) => l.pasted && !l.hidden)).toBe(true);
  });

  it('a session recorded without output cannot be judged: nothing is hidden', () => {
    const x = new TypedInput({ hidden: 'drop' });
    x.watchOutput();
    x.write(b('ls\r'), 0);
    expect(x.end().map((l) => l.text)).toEqual(['ls']);
  });
});

describe("the shell's lines, told from another program's by their prompts", () => {
  it('a shell command left unfinished continues on the next line', () => {
    const open = (...lines: string[]) => {
      const c = new ShellContinuation();
      for (const l of lines) c.feed(l);
      return c.open;
    };
    expect(open('for i in 1 2')).toBe(true);
    expect(open('for i in 1 2', 'do echo loop $i')).toBe(true);
    expect(open('for i in 1 2', 'do echo loop $i', 'done')).toBe(false);
    expect(open('for i in 1 2; do echo $i; done')).toBe(false);
    expect(open('if true; then', 'echo yes', 'fi')).toBe(false);
    expect(open('cat <<EOF')).toBe(true);
    expect(open('cat <<EOF', 'heredoc line one')).toBe(true);
    expect(open('cat <<EOF', 'heredoc line one', 'EOF')).toBe(false);
    expect(open("cat <<-'END'", '\tx', '\tEND')).toBe(false);
    expect(open('echo one \\')).toBe(true);
    expect(open('echo one \\', 'two')).toBe(false);
    expect(open('echo "one')).toBe(true);
    expect(open("echo 'it''s")).toBe(true);
    expect(open('ls |')).toBe(true);
    expect(open('make &&')).toBe(true);
    expect(open('sleep 9 &')).toBe(false);
    expect(open('echo for while if case {')).toBe(false); // not in command position
    expect(open('echo "for"; # if')).toBe(false);
    expect(open('cat <<<word')).toBe(false);
  });

  it('prompt shapes: the same shell after cd, su - or a venv; not a REPL', () => {
    expect(promptShape('evtyped@vm:/tmp$ ')).toBe(promptShape('evtyped@vm:/home/evtyped/a-b.c$ '));
    expect(promptShape('λ ~/src ')).toBe(promptShape('λ /etc '));
    expect(promptShape('sqlite> ')).not.toBe(promptShape('bash-5.2$ '));
    expect(promptShape('>>> ')).not.toBe(promptShape('$ '));
    expect(promptShape('test=# ')).not.toBe(promptShape('evtyped@vm:/tmp$ '));
    const s = new ShellLines();
    expect([
      s.take('evtyped@vm:/tmp$ ', 'python3 -q', 'python3 -q').shell,
      s.take('>>> ', 'print(6*7)', 'print(6*7)').shell,
      s.take('evtyped@vm:/tmp$ ', 'source venv/bin/activate', 'source venv/bin/activate').shell,
      s.take('(venv) evtyped@vm:/tmp$ ', 'for i in 1 2', 'for i in 1 2').shell,
      s.take('> ', 'do echo $i; done', 'do echo $i; done').shell,
      s.take('(venv) evtyped@vm:/tmp$ ', 'su -', 'su -').shell,
      s.take('root@vm:~# ', 'read x', 'read x').shell,
      s.take('', 'typed to read', 'typed to read').shell,
      s.take('root@vm:~# ', 'psql test', 'psql test').shell,
      s.take('test=# ', 'select 1;', 'select 1;').shell,
      s.take('mysql> ', 'select 1;', 'select 1;').shell,
      s.take('root@vm:~# ', 'PS1="$ "', 'PS1="$ "').shell,
      s.take('$ ', 'ls', 'ls').shell, // the prompt changed shape: still a shell's
      s.take('$ ', 'bash --norc', 'bash --norc').shell,
      s.take('bash-5.2$ ', 'echo nested', 'echo nested').shell, // a nested shell
      s.take('sqlite> ', '.quit', '.quit').shell,
    ]).toEqual([true, false, true, true, true, true, true, false, true, false, false, true, true, true, true, false]);
  });

  it('a line typed before a prompt was drawn: the shell\'s when its line editor drew the prompt and the line after it', () => {
    const s = new ShellLines();
    // before the shell's first prompt (zsh still starting): the line is what follows the prompt drawn
    expect(s.take('', 'evtyped@vm /tmp % echo hello world', 'echo hello')).toEqual({ shell: true, command: 'echo hello world' });
    expect(s.take('evtyped@vm:/etc$ ', 'sleep 2', 'sleep 2').shell).toBe(true);
    // typed ahead while sleep ran: the kernel's echo, then the prompt and the line redrawn
    expect(s.take('', 'echo typed-aheevtyped@vm:/etc$ echo typed-ahead', 'echo typed-ahead')).toEqual({ shell: true, command: 'echo typed-ahead' });
    // typed to read or cat: no prompt drawn after it
    expect(s.take('', 'typed to read', 'typed to read')).toEqual({ shell: false, command: 'typed to read' });
  });
});
