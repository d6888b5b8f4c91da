import { describe, expect, it } from 'vitest';
import { tparm } from '../../src/replay/tparm.js';

describe('tparm', () => {
  it('instantiates cursor addressing with %i', () => {
    expect(tparm('\x1b[%i%p1%d;%p2%dH', 4, 9)).toBe('\x1b[5;10H');
  });
  it('evaluates conditionals with else-if chains (xterm-256color setaf)', () => {
    const setaf = '\x1b[%?%p1%{8}%<%t3%p1%d%e%p1%{16}%<%t9%p1%{8}%-%d%e38;5;%p1%d%;m';
    expect(tparm(setaf, 1)).toBe('\x1b[31m');
    expect(tparm(setaf, 12)).toBe('\x1b[94m');
    expect(tparm(setaf, 200)).toBe('\x1b[38;5;200m');
  });
  it('handles nested conditionals, %c, %s, constants, variables and arithmetic', () => {
    expect(tparm('%?%p1%t%?%p2%tA%eB%;%eC%;', 1, 0)).toBe('B');
    expect(tparm('%?%p1%t%?%p2%tA%eB%;%eC%;', 0, 1)).toBe('C');
    expect(tparm('%p1%c%p2%s', 65, 'xy')).toBe('Axy');
    expect(tparm("%'a'%c%{66}%c")).toBe('aB');
    expect(tparm('%p1%Pa%ga%ga%*%d', 7)).toBe('49');
    expect(tparm('%p1%p2%-%d %p1%p2%/%d %p1%p2%m%d %p1%p2%&%d %p1%p2%|%d %p1%p2%^%d', 7, 3)).toBe('4 2 1 3 7 4');
    expect(tparm('%p1%!%d %p1%~%d %p1%{1}%=%d %p1%{2}%>%d %p1%{2}%<%d', 1)).toBe('0 -2 1 0 1');
    expect(tparm('%p1%l%d', 'abcd')).toBe('4');
  });
  it('formats with printf flags, width and precision', () => {
    expect(tparm('%p1%3d|%p1%:-3d|%p1%03d|%p1%x|%p1%X|%p1%o|%p1%2.2X', 10)).toBe(' 10|10 |010|a|A|12|0A');
  });
  it('drops padding and survives malformed strings', () => {
    expect(tparm('\x1b[J$<50>')).toBe('\x1b[J');
    expect(tparm('\x1b[?5h$<100/>\x1b[?5l')).toBe('\x1b[?5h\x1b[?5l');
    expect(() => tparm('%p%{12%?%t%e%;%;%')).not.toThrow();
    expect(tparm('%%%p9%d', 1, 2, 3, 4, 5, 6, 7, 8, 9)).toBe('%9');
  });
});
