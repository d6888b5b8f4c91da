import { describe, expect, it } from 'vitest';
import { ProcessedText } from '../../src/replay/processed-text.js';
import { renderScreen } from '../../src/replay/render.js';
import { Screen } from '../../src/replay/screen.js';
import { sampleTtySessions } from './helpers/sample-sessions.js';
import { colouredLsLines } from './helpers/scenarios.js';
import { concatData } from './helpers/session-events.js';

const enc = new TextEncoder();
const E = '\x1b';

function run(chunks: Array<[string, number]>, cols = 40, rows = 5): Array<{ text: string; timeMs: number }> {
  const pt = new ProcessedText({ cols, rows });
  const out: Array<{ text: string; timeMs: number }> = [];
  for (const [s, t] of chunks) {
    pt.write(enc.encode(s), t);
    out.push(...pt.takeLines());
  }
  return [...out, ...pt.end()];
}

describe('processed text', () => {
  it('emits lines as they scroll off, the rest at end(), with escape sequences gone', () => {
    const lines = colouredLsLines(8).map((l) => l.replace(/\r\n$/, ''));
    const pt = new ProcessedText({ cols: 200, rows: 5 });
    pt.write(enc.encode(colouredLsLines(8).join('')), 10);
    const scrolled = pt.takeLines();
    // 8 lines and the cursor row on 5 rows: 4 lines have scrolled off.
    expect(scrolled.map((l) => l.text)).toEqual(lines.slice(0, 4).map((l) => l.replace(/\x1b\[[0-9;]*m/g, '')));
    expect(scrolled.every((l) => l.timeMs === 10)).toBe(true);
    expect(pt.end().map((l) => l.text)).toEqual(lines.slice(4).map((l) => l.replace(/\x1b\[[0-9;]*m/g, '')));
  });

  it('resolves overwritten characters and line editing', () => {
    expect(run([['hello\rj', 1], ['\r\n', 2], ['abc\b\bX\r\n', 3], [`$ ls -l /tmpp\b \b\r${E}[K$ ls -l /tmp\r\n`, 4]]).map((l) => l.text)).toEqual(['jello', 'aXc', '$ ls -l /tmp']);
  });

  it('emits the screen when it is cleared, and lines leaving the alternate screen', () => {
    const got = run([['before clear\r\n', 1], [`${E}[H${E}[2J`, 2], ['after\r\n', 3], [`${E}[?1049h${E}[Hin vim${E}[?1049l`, 4]]);
    expect(got).toEqual([
      { text: 'before clear', timeMs: 1 },
      { text: 'in vim', timeMs: 4 },
      { text: 'after', timeMs: 3 },
    ]);
  });

  it('treats CSI H CSI J (vt100 clear) as a clear too', () => {
    expect(run([['one\r\ntwo', 1], [`${E}[H${E}[J`, 2], ['three', 3]]).map((l) => l.text)).toEqual(['one', 'two', 'three']);
  });

  it('joins rows continued by autowrap and trims trailing blanks', () => {
    expect(run([['x'.repeat(50) + '   \r\nshort   \r\n', 1]], 20, 3).map((l) => l.text)).toEqual(['x'.repeat(50), 'short']);
  });

  it('stamps a line with the time it was last written', () => {
    expect(run([['a', 1], ['b', 5], ['\r\nc', 9]])).toEqual([{ text: 'ab', timeMs: 5 }, { text: 'c', timeMs: 9 }]);
  });

  it('gives the same lines however the input is split', () => {
    const data = enc.encode(colouredLsLines(20).join('') + `\u65e5\u672c\u8a9e${E}[H${E}[2J` + 'x'.repeat(90));
    const whole = run([[new TextDecoder().decode(data), 0]]);
    for (let k = 0; k <= data.length; k += 7) {
      const pt = new ProcessedText({ cols: 40, rows: 5 });
      pt.write(data.subarray(0, k), 0);
      const a = pt.takeLines();
      pt.write(data.subarray(k), 0);
      expect([...a, ...pt.end()], `split at ${k}`).toEqual(whole);
    }
  });

  it('reads the sample ls session as its lines', () => {
    const s = sampleTtySessions().find((x) => x.name === 'sudo-io/00/00/01')!;
    const pt = new ProcessedText({ cols: s.cols, rows: s.rows });
    for (const e of s.events) if (e.kind === 'data') pt.write(e.bytes, e.timeMs);
    const lines = [...pt.takeLines(), ...pt.end()].map((l) => l.text);
    expect(lines[0]).toMatch(/total \d+$/);
    expect(lines.some((l) => /^drwxr-xr-x +\d+ root root +\d+ .* usr$/.test(l))).toBe(true);
    expect(lines.every((l) => !l.includes('\x1b'))).toBe(true);
  });
});

describe('renderScreen', () => {
  it('renders the visible screen as rows of text', () => {
    const s = new Screen({ cols: 10, rows: 3 });
    s.write(enc.encode(`hello${E}[2;3Hworld\u65e5${E}[3;1H`));
    expect(renderScreen(s)).toEqual(['hello', '  world\u65e5', '']);
    expect(renderScreen(s, { trimBottom: true })).toEqual(['hello', '  world\u65e5']);
    expect(renderScreen(s, { trimRight: false })[0]).toBe('hello     ');
  });

  it('shows the final screen of a sample session', () => {
    const s = sampleTtySessions().find((x) => x.name === 'sudo-io/00/00/04')!;
    const screen = new Screen({ cols: s.cols, rows: s.rows });
    for (const e of s.events) (e.kind === 'data' ? screen.write(e.bytes) : screen.resize(e.cols, e.rows));
    expect(renderScreen(screen, { trimBottom: true })).toEqual(['24 80', '30 100']);
    expect(concatData(s.events).length).toBe(15);
  });
});
