// Hostile input: random bytes and random sessions never make the tokenizer, the screen model or
// processed text throw, and what they produce stays bounded. Seeded, bounded runs.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ProcessedText, PROCESSED_LINE_MAX } from '../../src/replay/processed-text.js';
import { renderScreen } from '../../src/replay/render.js';
import { Screen } from '../../src/replay/screen.js';
import { Tokenizer } from '../../src/replay/tokenizer.js';
import type { ReplayItem } from '../../src/replay/types.js';
import { randomSession } from './helpers/random-session.js';

const interesting = fc.constantFrom(0x1b, 0x5b, 0x5d, 0x50, 0x3b, 0x3a, 0x3f, 0x07, 0x0d, 0x0a, 0x08, 0x09, 0x18, 0x1a, 0x9c, 0xc2, 0x9b, 0x48, 0x4a, 0x4b, 0x4c, 0x4d, 0x72, 0x68, 0x6c, 0x31, 0x39, 0xe6, 0x97, 0xa5);
const chunk = fc.uint8Array({ maxLength: 200 }).chain((base) => fc.array(fc.oneof(fc.constant(-1), interesting), { maxLength: 200 }).map((extra) => Uint8Array.from([...base, ...extra.filter((b) => b >= 0)])));
const step = fc.oneof({ arbitrary: chunk.map((bytes) => ({ bytes })), weight: 8 }, { arbitrary: fc.tuple(fc.integer({ min: -5, max: 3000 }), fc.integer({ min: -5, max: 2000 })).map(([cols, rows]) => ({ cols, rows })), weight: 1 });

describe('fuzz', () => {
  it('tokenizer, screen and processed text survive random bytes and window changes', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 12 }), (steps) => {
        const tok = new Tokenizer({ term: 'xterm-256color', terminfo: { dirs: [] }, maxStringLength: 64 });
        const screen = new Screen({ cols: 20, rows: 5, scrollback: 10 });
        const pt = new ProcessedText({ cols: 20, rows: 5 });
        let bytes = 0;
        const items: ReplayItem[] = [];
        for (const [t, s] of steps.entries()) {
          if ('bytes' in s) {
            bytes += s.bytes.length;
            items.push(...tok.write(s.bytes, t));
            screen.write(s.bytes);
            pt.write(s.bytes, t);
          } else {
            items.push(...tok.resize(s.cols, s.rows));
            screen.resize(s.cols, s.rows);
            pt.resize(s.cols, s.rows);
          }
          pt.takeLines();
        }
        items.push(...tok.end());
        pt.end();
        expect(items.length).toBeLessThanOrEqual(bytes + steps.length + 1);
        const rows = renderScreen(screen);
        expect(rows.length).toBe(screen.rows);
        expect(screen.cursorX).toBeLessThanOrEqual(screen.cols);
        expect(screen.cursorY).toBeLessThan(screen.rows);
      }),
      { seed: 5, numRuns: 400 },
    );
  });

  it('random sessions with origin mode and resizes keep the cursor on the screen', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const screen = new Screen({ cols: 25, rows: 6 });
      for (const e of randomSession(seed, 25, 6, { steps: 80, resizes: true, originMode: true })) {
        if (e.kind === 'data') screen.write(e.bytes);
        else screen.resize(e.cols, e.rows);
        expect(screen.cursorX).toBeLessThanOrEqual(screen.cols);
        expect(screen.cursorY).toBeLessThan(screen.rows);
      }
    }
  });

  it('huge counts cost nothing and a line that never ends is cut into bounded pieces', () => {
    const screen = new Screen({ cols: 80, rows: 24 });
    screen.write(new TextEncoder().encode('\x1b[999999999L\x1b[999999999M\x1b[2147483647@\x1b[999999999S\x1b[999999999X\x1b[99999999999;99999999999H'));
    expect(screen.cursorX).toBe(79);
    expect(screen.cursorY).toBe(23);
    // REP repeats at most a screenful.
    screen.write(new TextEncoder().encode('\x1b[Hx\x1b[999999999b'));
    expect(renderScreen(screen)).toEqual([...Array<string>(23).fill('x'.repeat(80)), 'x']);
    const pt = new ProcessedText({ cols: 80, rows: 5 });
    pt.write(new Uint8Array(200_000).fill(0x61), 1);
    const lines = [...pt.takeLines(), ...pt.end()];
    expect(lines.every((l) => l.text.length <= PROCESSED_LINE_MAX)).toBe(true);
    expect(lines.reduce((n, l) => n + l.text.length, 0)).toBe(200_000);
  });
});
