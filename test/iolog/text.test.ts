import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ControlStripper } from '../../src/replay/text/control-stripper.js';

function lines(input: Buffer | string, splits: number[] = []): string[] {
  const b = Buffer.isBuffer(input) ? input : Buffer.from(input, 'utf8');
  const x = new ControlStripper();
  const out: string[] = [];
  let prev = 0;
  for (const s of [...splits, b.length]) {
    x.write(b.subarray(prev, s), 0);
    out.push(...x.takeLines().map((l) => l.text));
    prev = s;
  }
  out.push(...x.end().map((l) => l.text));
  return out;
}

describe('ControlStripper', () => {
  it('removes CSI, OSC, DCS and ESC sequences', () => {
    expect(lines('\x1b[01;32mgreen\x1b[0m and \x1b[1;4mbold\x1b[m\r\n')).toEqual(['green and bold']);
    expect(lines('\x1b]0;window title\x07after\x1b]2;t\x1b\\x\n')).toEqual(['afterx']);
    expect(lines('\x1bP1$r0m\x1b\\dcs gone\n')).toEqual(['dcs gone']);
    expect(lines('\x1b(B\x1b=\x1b>keypad\n')).toEqual(['keypad']);
    expect(lines('\x1b[?2004hbash-5.2# \x1b[?2004l\r\n')).toEqual(['bash-5.2#']);
  });
  it('applies CR overwrite, backspace, EL and tabs', () => {
    expect(lines('12345\rab\n')).toEqual(['ab345']);
    expect(lines('12345\rab\x1b[K\n')).toEqual(['ab']);
    expect(lines('abc\b\bX\n')).toEqual(['aXc']);
    expect(lines('a\tb\n')).toEqual(['a       b']);
    expect(lines('\r\x1b[K\rbash-5.2# exit\r\n')).toEqual(['bash-5.2# exit']);
  });
  it('ends a line at absolute positions and vertical moves', () => {
    expect(lines('\x1b[H\x1b[2Jtop line\x1b[3;1Hrow three\x1b[5;10Hx\n')).toEqual(['top line', 'row three', '         x']);
  });
  it('decodes UTF-8 split across writes and keeps the same lines at every split offset', () => {
    const input = Buffer.from('h\u00e9llo \x1b[31mw\u00f6rld\x1b[0m\r\n\u65e5\u672c\x1b]0;t\x07\r\nlast', 'utf8');
    const whole = lines(input);
    expect(whole).toEqual(['h\u00e9llo w\u00f6rld', '\u65e5\u672c', 'last']);
    for (let i = 0; i <= input.length; i++) expect(lines(input, [i])).toEqual(whole);
  });
  it('never throws, never yields a newline inside a line, bounds line length (fuzzed, seeded)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), fc.nat(400), (bytes, cut) => {
        const b = Buffer.from(bytes);
        const out = lines(b, [Math.min(cut, b.length)]);
        for (const l of out) {
          expect(l.includes('\n')).toBe(false);
          expect(l.length).toBeLessThanOrEqual(16 * 1024);
        }
        expect(out).toEqual(lines(b));
      }),
      { seed: 3, numRuns: 1500 },
    );
  });
  it('breaks an endless line at the limit', () => {
    const out = lines('x'.repeat(40000));
    expect(out.map((l) => l.length)).toEqual([16384, 16384, 40000 - 32768]);
  });
});
