// The player's key handling (playKeys in src/cli/play.ts): the terminal's answers that reach
// standard input — XTVERSION `ESC P > | tmux 3.3a ESC \`, a cursor report `ESC [ 12;40 R`, DA —
// are consumed whole, also split over reads, and never pause, quit, change speed or jump; the
// keys themselves still work, before, between and after them.
import { describe, expect, it } from 'vitest';
import { PlayState, playKeys } from '../../src/cli/play.js';

const E = '\x1b';
const XTVERSION = `${E}P>|tmux 3.3a${E}\\`;
const CPR = `${E}[12;40R`;
const ANSWERS = [XTVERSION, CPR, `${E}[?64;1;2;6;9;15;18;21;22c`, `${E}[>84;0;0c`, `${E}]11;rgb:0000/0000/0000${E}\\`, `${E}P1$r0;1m${E}\\`, `${E}[?2004;2$y`, `${E}[I`, `${E}[<0;10;5M`];

function fresh() {
  const state = new PlayState(1);
  let next = 0;
  const keys = playKeys(state, () => next++);
  const view = () => ({ paused: state.paused, quit: state.quit, speed: state.speed, next });
  return { state, keys, view, feed: (s: string) => keys.write(Buffer.from(s, 'utf8')) };
}

const UNCHANGED = { paused: false, quit: false, speed: 1, next: 0 };

describe('play: keys and terminal answers', () => {
  it('an XTVERSION answer and a cursor report change nothing', () => {
    const t = fresh();
    t.feed(XTVERSION);
    t.feed(CPR);
    expect(t.view()).toEqual(UNCHANGED);
  });

  it('nor does any answer, whole, split at every offset, or byte by byte', () => {
    for (const a of ANSWERS) {
      const whole = fresh();
      whole.feed(a);
      expect(whole.view(), JSON.stringify(a)).toEqual(UNCHANGED);
      for (let k = 0; k <= a.length; k++) {
        const t = fresh();
        t.feed(a.slice(0, k));
        t.feed(a.slice(k));
        expect(t.view(), `${JSON.stringify(a)} split at ${k}`).toEqual(UNCHANGED);
      }
      const bytes = fresh();
      for (const ch of a) bytes.feed(ch);
      expect(bytes.view()).toEqual(UNCHANGED);
    }
  });

  it('keys around answers still act: space, > and <, n, q', () => {
    const t = fresh();
    t.feed(` ${XTVERSION}`);
    expect(t.view()).toEqual({ ...UNCHANGED, paused: true });
    t.feed(`${CPR}>>${E}[A`);
    expect(t.view()).toEqual({ paused: true, quit: false, speed: 4, next: 0 });
    t.feed(`<n${XTVERSION} `);
    expect(t.view()).toEqual({ paused: false, quit: false, speed: 2, next: 1 });
    t.feed('q');
    expect(t.view().quit).toBe(true);
  });

  it('Ctrl-C quits even inside an unfinished answer', () => {
    const t = fresh();
    t.feed(`${E}P>|tmux`);
    t.feed('\x03');
    expect(t.view().quit).toBe(true);
  });
});
