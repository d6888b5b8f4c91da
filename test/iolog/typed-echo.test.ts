// The echo judgement of typed input: a line is hidden only when the terminal echoed none of
// its keys (a no-echo prompt), never because it was edited, recalled or redrawn. The answers
// below are the output bash 5.2 (readline) wrote to each key in the recorded sessions of
// fixtures/iolog/timeline-corpus and fixtures/iolog/sudo-typed.
import { describe, expect, it } from 'vitest';
import { TypedInput, type TypedLine } from '../../src/replay/text/typed-input/index.js';

const b = (s: string) => Buffer.from(s, 'utf8');

/** [keys, the terminal's answer] per input write, 100 ms apart, the answer 1 ms after its keys. */
type Step = [keys: string, answer: string];

function play(prompt: string, steps: Step[], hidden: 'keep' | 'redact' = 'keep', cols?: number): TypedLine[] {
  const x = new TypedInput(cols !== undefined ? { hidden, cols } : { hidden });
  let t = 0;
  x.observeOutput(b(prompt), t);
  for (const [keys, answer] of steps) {
    x.writeAt(b(keys), (t += 100), 0);
    if (answer !== '') x.observeOutput(b(answer), t + 1);
  }
  return [...x.takeLines(), ...x.end()];
}

/** Each character of `s` typed on its own and echoed. */
const typedEchoed = (s: string): Step[] => [...s].map((c) => [c, c]);
/** Each character of `s` typed on its own, nothing echoed. */
const typedSilent = (s: string): Step[] => [...s].map((c) => [c, '']);

const PROMPT = 'evtyped@vm:/tmp$ ';
const NEXT = `\r\n\x1b[?2004l\rdone\r\n\x1b[?2004h${PROMPT}`;

describe('an edited line is not hidden', () => {
  it('emacs mode: ^A, Alt-f, then " -h" inserted with ICH', () => {
    const lines = play(PROMPT, [
      ...typedEchoed('ls -l /etc/hosts'),
      ['\x01', '\b'.repeat(16)],
      ['\x1bf', '\x1b[C\x1b[C'],
      [' ', '\x1b[C\x1b[1@ \b'],
      ['-', '\x1b[1@-'],
      ['h', '\x1b[1@h'],
      ['\r', NEXT],
    ]);
    expect(lines).toEqual([expect.objectContaining({ text: 'ls -h -l /etc/hosts', edited: true })]);
    expect(lines[0]).not.toHaveProperty('hidden');
  });

  it('emacs mode: ^U, ^W, ^A, Alt-f, ^E', () => {
    const lines = play(
      PROMPT,
      [
        ...typedEchoed('rm -rf /x'),
        ['\x15', '\b'.repeat(9) + '\x1b[K'],
        ...typedEchoed('echo one two'),
        ['\x17', '\b\b\b\x1b[K'],
        ['\x01', '\b'.repeat(9)],
        ['\x1bf', '\x1b[C'.repeat(4)],
        ['\x05', '\x1b[C'.repeat(5)],
        ...typedEchoed('four'),
        ['\r', NEXT],
      ],
      'redact',
    );
    expect(lines.map((l) => [l.text, l.hidden ?? false])).toEqual([['echo one four', false]]);
  });

  it('vi mode: a recalled line changed with commands only (ESC k $ x)', () => {
    const lines = play(PROMPT, [
      ['\x1b', ''],
      ['k', 'echo one three' + '\b'.repeat(14)],
      ['$', '\x1b[C'.repeat(13)],
      ['x', '\x1b[K\b'],
      ['\r', `\r\n\x1b[?2004l\rone thre\r\n\x1b[?2004h${PROMPT}`],
    ]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toHaveProperty('hidden');
    expect(lines[0]!.shown).toBe('echo one thre');
  });

  it('vi mode: ESC 0 w i "-h " Enter shows the line run', () => {
    const lines = play(PROMPT, [
      ...typedEchoed('ls -l /etc/hosts'),
      ['\x1b', ''],
      ['0', '\b'.repeat(16)],
      ['w', '\x1b[C\x1b[C\x1b[C'],
      ['i', ''],
      ['-', '\x1b[C\x1b[1@-\b'],
      ['h', '\x1b[1@h'],
      [' ', '\x1b[1@ '],
      ['\r', NEXT],
    ]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toHaveProperty('hidden');
    expect(lines[0]!.shown).toBe('ls -h -l /etc/hosts');
  });

  it('^R: the line run is what the shell showed once accepted, not the search text', () => {
    const p = 'typedin@vm:/tmp$ ';
    const lines = play(p, [
      ['\x12', "\r(reverse-i-search)`': \x1b[K"],
      ['unam', "\b\b\bu': \x1b[7mu\x1b[27mname -s" + '\b'.repeat(11) + "\x1b[1@n': \x1b[7mun\x1b[27m\b\b\b\b\b\x1b[1@a': \x1b[7muna\x1b[27m" + '\b'.repeat(6) + "\x1b[1@m': \x1b[7munam\x1b[27m\b\b\b\b"],
      ['\r', `\r\x1b[9P${p}unam\b\b\b\b\r\n\x1b[?2004l\rLinux\r\n${p}`],
    ]);
    expect(lines).toEqual([expect.objectContaining({ text: 'unam', shown: 'uname -s', recalled: true })]);
    expect(lines[0]).not.toHaveProperty('hidden');
  });
});

describe('a line longer than the window', () => {
  // bash 5.2 in a 100-column window: the recalled line wraps onto a second row; ^A goes up to
  // it, and each key inserted near its start rewrites the first row, pushes a character onto
  // the second (ICH) and comes back up.
  const P = '\x1b[?2004hevtyped@vm:/tmp$ ';
  const LONG = 'echo this is a rather long command line that goes past the one hundred columns of the window and wraps';
  const redraw = (ch: string, tail: string, push: string, right: number) => `${ch} ${tail}\x1b[1@${push}\x1b[A${'\x1b[C'.repeat(right)}`;

  it('recalled and edited across the wrap: shown is the whole line as run', () => {
    const lines = play(
      P,
      [
        ['\x1b[A', LONG],
        ['\x01', '\x1b[A\b\b'],
        ['\x1bf', '\x1b[C\x1b[C\x1b[C\x1b[C'],
        [' ', '\x1b[C this is a rather long command line that goes past the one hundred columns of t\x1b[1@h\x1b[A' + '\x1b[C'.repeat(20)],
        ['a', redraw('a', 'this is a rather long command line that goes past the one hundred columns of ', 't', 21)],
        ['g', redraw('g', 'this is a rather long command line that goes past the one hundred columns of', ' ', 22)],
        ['\r', '\r\n\r\r\n\x1b[?2004l\rag this is a rather long command line that goes past the one hundred columns of the window and wraps\r\n' + P],
      ],
      'keep',
      100,
    );
    expect(lines).toEqual([expect.objectContaining({ text: ' ag', shown: 'echo ag this is a rather long command line that goes past the one hundred columns of the window and wraps', recalled: true })]);
  });
});

describe('zsh: a right prompt, and a line editor that draws below the line', () => {
  // zsh 5.9 with RPROMPT='[%?] %*' in a 100-column window: the right prompt is drawn at column
  // 70 and the cursor taken back to the end of the left prompt.
  const ZP = 'evtyped@vm /tmp % ';
  const zprompt = (rp: string) => `\r\x1b[0m\x1b[J${ZP}\x1b[K\x1b[70C${rp}\x1b[81D\x1b[?2004h`;
  const zenter = (out: string, rp: string) => `\x1b[?2004l\r\r\n${out}\r\n${zprompt(rp)}`;

  it('the right prompt is not part of the line shown', () => {
    const lines = play(zprompt('[0] 1:26:19'), [
      ['\x1bOA', 'echo one two four'],
      ['\x01', '\x1b[17D'],
      ['\x1bf', '\x1b[5C'],
      [' ', ' one two four\x1b[12D'],
      ['z', 'zone two four\x1b[12D'],
      ['\r', zenter('zone two four', '[0] 1:26:21')],
    ]);
    expect(lines).toEqual([expect.objectContaining({ text: ' z', shown: 'echo  zone two four', recalled: true })]);
  });

  it('a line typed as shown has no shown, though a right prompt stands on its row', () => {
    const lines = play(zprompt('[0] 1:26:08'), [...typedEchoed('echo hi'), ['\r', zenter('hi', '[0] 1:26:09')]]);
    expect(lines).toEqual([expect.objectContaining({ text: 'echo hi' })]);
    expect(lines[0]).not.toHaveProperty('shown');
  });

  it('Tab listing the matches below the line: the line as completed', () => {
    const lines = play(zprompt('[1] 1:26:14'), [
      ...typedEchoed('ls /etc/sysctl.'),
      ['\t', '\r\r\n\x1b[Jsysctl.conf  sysctl.d/\x1b[A\x1b[0m\r\x1b[18Cls /etc/sysctl.\x1b[K\x1b[55C[1] 1:26:14\x1b[66D'],
      ['c', 'c'],
      ['\t', 'onf\x1b[1m \x1b[0m'],
      ['\r', '\b\x1b[0m \b' + zenter('/etc/sysctl.conf', '[0] 1:26:16')],
    ]);
    expect(lines).toEqual([expect.objectContaining({ text: 'ls /etc/sysctl.c', shown: 'ls /etc/sysctl.conf', completed: true })]);
  });

  it('vi mode: Esc then k recalls a line with no key typed into it: the line shown is entered', () => {
    const ZP0 = '\r\x1b[0m\x1b[J' + ZP + '\x1b[K\x1b[?2004h';
    const lines = play(ZP0, [
      ['\x1b', ''],
      ['k', 'echo hello world\b'],
      ['\r', '\x1b[?2004l\r\r\nhello world\r\n' + ZP0],
    ]);
    expect(lines).toEqual([expect.objectContaining({ text: '', shown: 'echo hello world', inexact: true })]);
  });

  it('keys typed before the first prompt was drawn: the line after the prompt zsh then drew', () => {
    const lines = play('', [
      ['e', 'e'],
      ['c', `c\x1b[1m\x1b[7m%\x1b[27m\x1b[1m\x1b[0m${' '.repeat(20)}\r \r\r\x1b[0m\x1b[J${ZP}\x1b[K\x1b[?2004he\bec`],
      ...typedEchoed('ho hi'),
      ['\r', `\x1b[?2004l\r\r\nhi\r\n${zprompt('[0] 1:26:09')}`],
      ...typedEchoed('echo two'),
      ['\r', `\x1b[?2004l\r\r\ntwo\r\n${zprompt('[0] 1:26:10')}`],
    ]);
    expect(lines.map((l) => [l.shown ?? l.text, l.program ?? false])).toEqual([
      ['echo hi', false],
      ['echo two', false],
    ]);
  });

  it('^R: the search line is drawn below and the cursor comes back: echoed, not hidden', () => {
    const lines = play(
      zprompt('[0] 1:26:22'),
      [
        ['\x12', '\r\r\nbck-i-search: _\x1b[K\x1b[A\x1b[3C'],
        ['z', 'echo  \x1b[4mz\x1b[24meroone two four\x1b[1B\x1b[26Dz_\x1b[A\x1b[8C'],
        ['s', '\b\x1b[4mz\x1b[4ms\x1b[24mh-first        \x1b[1B\x1b[25Ds_\x1b[A\x1b[6C'],
        ['\r', '\x1b[24mz\x1b[24ms\x1b[1B\r\x1b[K\x1b[A\x1b[23C\x1b[?2004l\x1b[1B\rzsh-first\r\n' + zprompt('[0] 1:26:23')],
      ],
      'redact',
    );
    expect(lines).toEqual([expect.objectContaining({ text: 'zs', shown: 'echo zsh-first', recalled: true })]);
    expect(lines[0]).not.toHaveProperty('hidden');
  });
});

describe('history expansion: the command run is the expanded line bash prints', () => {
  const P2 = `\x1b]7;file://vm/tmp\x07\x1b[?2004h\x1b[1;32mevtyped@vm\x1b[0m /tmp\r\r\n$ `;
  /** bash 5.2's answer to the Enter: the expansion (if any) on the row after the line, then the output. */
  const ran = (rows: string[]) => `\r\n\x1b[?2004l\r${rows.map((r) => `${r}\r\n`).join('')}${P2}`;
  const run = (typed: string, rows: string[]) => play(P2, [...typedEchoed(typed), ['\r', ran(rows)]]);

  it('^old^new, !string and !!:n give the expanded line as shown', () => {
    expect(run('^root^daemon', ['echo daemon daemon', 'daemon daemon'])[0]).toMatchObject({ text: '^root^daemon', shown: 'echo daemon daemon' });
    expect(run('!grep', ['grep -c root /etc/passwd', '1'])[0]).toMatchObject({ text: '!grep', shown: 'grep -c root /etc/passwd' });
    expect(run('echo !!:1', ['echo -c', '-c'])[0]).toMatchObject({ text: 'echo !!:1', shown: 'echo -c' });
  });

  it("a failed expansion, or a ! bash does not expand, takes no row for the command", () => {
    for (const [typed, rows] of [
      ['!nosuch', ['bash: !nosuch: event not found']],
      ['!nosuch', ['zsh: event not found: nosuch']],
      ['!!:9', ['bash: :9: bad word specifier']],
      ['!!:9', ['zsh: no such word in event']],
      ['!!:z', ['zsh: illegal modifier: z']],
      ['^zz^yy', ['bash: :s^zz^yy: substitution failed']],
      ["echo 'a!b'", ['a!b']],
      ['[ ! -f /x ] && echo no', ['no']],
      ['echo a!=b', ['a!=b']],
    ] as const) {
      const lines = run(typed, [...rows]);
      expect(lines).toEqual([expect.objectContaining({ text: typed })]);
      expect(lines[0]).not.toHaveProperty('shown');
    }
  });
});

describe('a shell without line editing (dash: the kernel\'s canonical mode)', () => {
  // dash 0.5.12 reads the tty in canonical mode: the kernel echoes ← as ^[[D and the line holds its bytes.
  it('a cursor key echoed in caret notation is part of the line, as the shell runs it', () => {
    const lines = play('$ ', [...typedEchoed('echo ab'), ['\x1b[D', '^[[D'], ['X', 'X'], ['\r', '\r\nab\x1b[DX\r\n$ ']]);
    expect(lines).toEqual([expect.objectContaining({ text: 'echo ab\x1b[DX' })]);
    expect(lines[0]).not.toHaveProperty('shown');
    expect(lines[0]).not.toHaveProperty('edited');
  });

  it('erase, kill and word erase apply; other control keys are bytes of the line', () => {
    const lines = play('$ ', [...typedEchoed('echo a b'), ['\x7f', '\b \b'], ['c', 'c'], ['\x1bOH', '^[OH'], ['\x01', '^A'], ['\r', '\r\n$ ']]);
    expect(lines).toEqual([expect.objectContaining({ text: 'echo a c\x1bOH\x01', edited: true })]);
    const killed = play('$ ', [...typedEchoed('rm x'), ['\x15', '\r\n'], ...typedEchoed('ls one two'), ['\x1b[D', '^[[D'], ['\x17', '\b\b\b\b\b\b    '], ['\r', '\r\n$ ']]);
    expect(killed).toEqual([expect.objectContaining({ text: 'ls one', edited: true })]);
  });

  it('with a line editor (readline) the same keys edit the line', () => {
    const lines = play(PROMPT, [...typedEchoed('echo ab'), ['\x1b[D', '\b'], ['X', 'Xb\b'], ['\r', NEXT]]);
    expect(lines).toEqual([expect.objectContaining({ text: 'echo aXb', edited: true })]);
  });
});

describe('keys read by another program', () => {
  // bash 5.2 with a two-line prompt; less and top (procps 4) as Debian 12 runs them.
  const P2 = `\x1b]7;file://vm/tmp\x07\x1b[?2004h\x1b[1;32mevtyped@vm\x1b[0m /tmp\r\r\n$ `;

  it('lines typed while the alternate screen is active are flagged program; the key that quits it begins no line', () => {
    const lines = play(P2, [
      ...typedEchoed('less /etc/services'),
      ['\r', '\r\n\x1b[?2004l\r\x1b[?1049h\x1b[22;0;0t\x1b[?1h\x1b=\r# Network services\r\n\x1b[7m/etc/services\x1b[27m\x1b[K'],
      ['/', '\r\x1b[K/'],
      ['s', '\x1b[Ks\bs'],
      ['h', '\x1b[Kh\bh'],
      ['\r', '\r\x1b[K\x1b[1;1H# Network services\r\n:\x1b[K'],
      ['q', `\r\x1b[K\x1b[?1l\x1b>\x1b[?1049l\x1b[23;0;0t${P2}`],
      ...typedEchoed('echo after-less'),
      ['\r', `\r\n\x1b[?2004l\rafter-less\r\n${P2}`],
    ]);
    expect(lines.map((l) => [l.text, l.program ?? false])).toEqual([
      ['less /etc/services', false],
      ['/sh', true],
      ['echo after-less', false],
    ]);
  });

  it('a key read without echo by a program that then exits does not begin the next line (top\'s q)', () => {
    const lines = play(P2, [
      ...typedEchoed('top -d 1'),
      ['\r', '\r\n\x1b[?2004l\r\x1b[?1h\x1b=\x1b[H\x1b[2Jtop - 01:25:32 up 23 min\x1b[K\r\nTasks: 107 total'],
      ['q', `\x1b[?1l\x1b>\x1b[31;1H\r\n\x1b[?12l\x1b[?25h\x1b[K${P2}`],
      ...typedEchoed('echo after-top'),
      ['\r', `\r\n\x1b[?2004l\rafter-top\r\n${P2}`],
    ]);
    expect(lines.map((l) => l.text)).toEqual(['top -d 1', 'echo after-top']);
  });

  it("lines typed at a REPL's prompt are flagged program; continuation lines of a shell command are not", () => {
    const lines = play(P2, [
      ...typedEchoed('for i in 1 2'),
      ['\r', '\r\n\x1b[?2004l\r\x1b[?2004h> '],
      ...typedEchoed('do echo loop $i'),
      ['\r', '\r\n\x1b[?2004l\r\x1b[?2004h> '],
      ...typedEchoed('done'),
      ['\r', `\r\n\x1b[?2004l\rloop 1\r\nloop 2\r\n${P2}`],
      ...typedEchoed('python3 -q'),
      ['\r', '\r\n\x1b[?2004l\r>>> '],
      ...typedEchoed('print(6*7)'),
      ['\r', '\r\n42\r\n>>> '],
      ...typedEchoed('exit()'),
      ['\r', `\r\n${P2}`],
      ...typedEchoed('echo end'),
      ['\r', `\r\n\x1b[?2004l\rend\r\n${P2}`],
    ]);
    expect(lines.map((l) => [l.text, l.program ?? false])).toEqual([
      ['for i in 1 2', false],
      ['do echo loop $i', false],
      ['done', false],
      ['python3 -q', false],
      ['print(6*7)', true],
      ['exit()', true],
      ['echo end', false],
    ]);
  });

  it('a command typed ahead while another ran is the shell\'s: readline drew the prompt and it after', () => {
    const P1 = '\x1b[?2004hevtyped@vm:/etc$ ';
    const lines = play(P1, [
      ...typedEchoed('sleep 2'),
      ['\r', '\r\n\x1b[?2004l\r'],
      ...typedEchoed('echo typed-ahe'),
      ['a', `${P1}echo typed-ahea`],
      ['d', 'd'],
      ['\r', `\r\n\x1b[?2004l\rtyped-ahead\r\n${P1}`],
      ...typedEchoed('read x'),
      ['\r', '\r\n\x1b[?2004l\r'],
      ...typedEchoed('typed to read'),
      ['\r', `\r\n${P1}`],
    ]);
    expect(lines.map((l) => [l.shown ?? l.text, l.program ?? false])).toEqual([
      ['sleep 2', false],
      ['echo typed-ahead', false],
      ['read x', false],
      ['typed to read', true],
    ]);
  });

  it('a prompt changed by PS1 (bash-5.2$ then $) is still the shell\'s', () => {
    const lines = play('\x1b[?2004hbash-5.2$ ', [
      ['PS1="\\$ "\r', 'PS1="\\$ "\r\n\x1b[?2004l\r\x1b[?2004h$ '],
      ...typedEchoed('echo one'),
      ['\r', '\r\n\x1b[?2004l\rone\r\n\x1b[?2004h$ '],
    ]);
    expect(lines.map((l) => [l.text, l.program ?? false])).toEqual([
      ['PS1="\\$ "', false],
      ['echo one', false],
    ]);
  });

  it('a first key answered by a job notice and the prompt redrawn with it is kept (zsh notify)', () => {
    const ZP = 'evtyped@vm /tmp % ';
    const lines = play(ZP, [
      ['l', `\r\n[1]  + done       sleep 1\r\n${ZP}l`],
      ['s', 's'],
      ['\r', `\r\nfile\r\n${ZP}`],
    ]);
    expect(lines.map((l) => l.text)).toEqual(['ls']);
  });

  it('a command typed without echo (stty -echo) is hidden, not dropped, though output moved on a row', () => {
    const lines = play(PROMPT, [...typedSilent('rm -rf /x'), ['', '\r\n[1]+  Done  sleep 1\r\n'], ['\r', `\r\n${PROMPT}`]]);
    expect(lines.map((l) => [l.text, l.hidden ?? false])).toEqual([['rm -rf /x', true]]);
  });
});

describe('a secret is still hidden', () => {
  it('typed without echo, though the next prompt holds its letters in order', () => {
    const lines = play(PROMPT, [...typedEchoed('read -s y'), ['\r', '\r\n\x1b[?2004l\r'], ...typedSilent('vtp@m/tp'), ['\r', `\x1b[?2004h${PROMPT}`]], 'redact');
    expect(lines.map((l) => [l.text, l.hidden ?? false])).toEqual([
      ['read -s y', false],
      ['', true],
    ]);
  });

  it('typed at once with its Enter (one write), while a command so typed is shown', () => {
    const silent = (secret: string): Step[] => [...typedEchoed('read -s z'), ['\r', '\r\n\x1b[?2004l\r'], [`${secret}\r`, `\x1b[?2004h${PROMPT}`]];
    const lines = play(PROMPT, [...silent('p4ss-at-0nce'), ...silent('vtp@m/tp'), ['ls -la\r', 'ls -la\r\n\x1b[?2004l\rtotal 0\r\n' + PROMPT], ['true\r', `\r\x1b[9P${PROMPT}true\r\n\x1b[?2004l\r${PROMPT}`]], 'redact');
    expect(lines.map((l) => [l.text, l.hidden ?? false])).toEqual([
      ['read -s z', false],
      ['', true],
      ['read -s z', false],
      ['', true], // its letters are in the prompt, in order
      ['ls -la', false],
      ['true', false], // echoed with the prompt redrawn
    ]);
  });

  it('masked with a * per key at a prompt that does not say password', () => {
    const lines = play('Token: ', [...[...'s3cr3t'].map((c): Step => [c, '*']), ['\r', '\r\n$ ']], 'redact');
    expect(lines.map((l) => [l.text, l.hidden ?? false])).toEqual([['', true]]);
  });

  it("another program's output while it is typed is not its echo", () => {
    const lines = play('Token: ', [['s', ''], ['3', ''], ['c', '64 bytes from 127.0.0.1: icmp_seq=1 ttl=64 time=0.04 ms\r\n'], ['r', ''], ['\x1b[D', ''], ['e', ''], ['\r', '\r\n$ ']], 'redact');
    expect(lines.map((l) => [l.text, l.hidden ?? false])).toEqual([['', true]]);
  });
});
