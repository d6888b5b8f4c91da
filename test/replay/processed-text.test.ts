import { describe, expect, it } from 'vitest';
import { ProcessedText } from '../../src/replay/processed-text.js';
import { renderScreen } from '../../src/replay/render.js';
import { Screen } from '../../src/replay/screen.js';
import { readAsciicast, readSudoSession, sampleTtySessions, type SampleSession } from './helpers/sample-sessions.js';
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
      pt.write(data.subarray(k), 0, false);
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

const FIXTURES = new URL('../../fixtures/iolog/', import.meta.url).pathname;
const cast = (name: string): SampleSession => readAsciicast(`${FIXTURES}screen-casts/${name}.cast`);

/** Every line of a session, each record written in pieces of `piece` bytes (0: whole). */
function linesOf(s: SampleSession, piece = 0): Array<{ text: string; timeMs: number }> {
  const pt = new ProcessedText({ cols: s.cols, rows: s.rows });
  const out: Array<{ text: string; timeMs: number }> = [];
  for (const e of s.events) {
    if (e.kind === 'resize') pt.resize(e.cols, e.rows);
    else if (piece === 0) pt.write(e.bytes, e.timeMs);
    else for (let k = 0; k < e.bytes.length || k === 0; k += piece) pt.write(e.bytes.subarray(k, k + piece), e.timeMs, k === 0);
    out.push(...pt.takeLines());
  }
  return [...out, ...pt.end()];
}

describe('processed text of what full-screen programs and window changes showed', () => {
  it('keeps the tail of a wrapped line when the window narrows', () => {
    const texts = linesOf(cast('narrowed-wrap')).map((l) => l.text);
    expect(texts).toContain('HEAD-' + 'x'.repeat(60) + '-TAIL');
    expect(texts).toContain('$ ls');
    expect(texts).toContain('$ exit');
  });

  it('joins rows only where autowrap continued the text (a stale wrap mark glues nothing)', () => {
    const lines = linesOf(cast('stale-wrap'));
    expect(lines.map((l) => l.text)).toEqual(['aaaaaaaaaaaaaaaaaaaa', 'bbbbbbbbbb', 'november', 'xxxxxxxxxxxxxxxxxxxx', 'whiskey117', 'done']);
    // The wrapped pair was one line: joined while the first row ran to the margin.
    expect(linesOf({ cols: 20, rows: 3, name: 'w', events: [{ kind: 'data', bytes: enc.encode('a'.repeat(20) + 'b'.repeat(10) + '\r\n'), timeMs: 1 }] }).map((l) => l.text)).toEqual(['a'.repeat(20) + 'b'.repeat(10)]);
  });

  it('emits rows repainted in place or erased with ESC[K, each text once, stamped when it stood complete', () => {
    const lines = linesOf(cast('repaint-in-place'));
    expect([...lines].sort((a, b) => a.timeMs - b.timeMs || (a.text < b.text ? -1 : 1))).toEqual([
      { text: 'Status: starting', timeMs: 100 },
      { text: 'process alpha', timeMs: 100 },
      { text: 'CPU 12%', timeMs: 600 }, // repainted unchanged at 600: on screen after that write too
      { text: 'Status: running', timeMs: 600 },
      { text: 'CPU 97%', timeMs: 1100 },
      { text: 'process bravo', timeMs: 1100 },
      { text: 'Status: done', timeMs: 1600 },
      { text: '$', timeMs: 2400 },
    ]);
  });

  it('a record read in pieces gives the same lines as read whole', () => {
    const sessions = [cast('narrowed-wrap'), cast('stale-wrap'), cast('repaint-in-place'), ...['02', '03', '05'].map((n) => readSudoSession(`${FIXTURES}screen-corpus/00/00/${n}`))];
    for (const s of sessions) {
      const whole = linesOf(s);
      expect(whole.length).toBeGreaterThan(4);
      for (const piece of [1, 2, 3, 7, 100]) expect(linesOf(s, piece), `${s.name} in pieces of ${piece}`).toEqual(whole);
    }
  });

  it('cuts a record at every offset without changing the lines', () => {
    const s = cast('repaint-in-place');
    const whole = linesOf(s);
    s.events.forEach((e, i) => {
      if (e.kind !== 'data') return;
      for (let k = 1; k < e.bytes.length; k++) {
        const events = [...s.events.slice(0, i), { ...e, bytes: e.bytes.subarray(0, k) }, { ...e, bytes: e.bytes.subarray(k) }, ...s.events.slice(i + 1)];
        const pt = new ProcessedText({ cols: s.cols, rows: s.rows });
        const out: Array<{ text: string; timeMs: number }> = [];
        events.forEach((x, j) => {
          if (x.kind === 'resize') pt.resize(x.cols, x.rows);
          else pt.write(x.bytes, x.timeMs, j !== i + 1);
          out.push(...pt.takeLines());
        });
        expect([...out, ...pt.end()], `record ${i} cut at ${k}`).toEqual(whole);
      }
    });
  });

  it('reads a pipe stream (lineFeedIsNewline) as its lines, not as a staircase', () => {
    const pt = new ProcessedText({ cols: 20, rows: 3, lineFeedIsNewline: true });
    pt.write(enc.encode('one\ntwo\nthree\nfour\n'), 5);
    expect([...pt.takeLines(), ...pt.end()].map((l) => l.text)).toEqual(['one', 'two', 'three', 'four']);
  });

  it('remembers a bounded number of texts', () => {
    const pt = new ProcessedText({ cols: 20, rows: 3 });
    // The same repaint a thousand times gives its text once.
    for (let i = 0; i < 1000; i++) pt.write(enc.encode(`\x1b[Hsame text\x1b[K`), i);
    pt.write(enc.encode(`\x1b[Hother\x1b[K`), 1000);
    expect([...pt.takeLines(), ...pt.end()].map((l) => l.text)).toEqual(['same text', 'other']);
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
