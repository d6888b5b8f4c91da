// Random terminal sessions built from the controls a screen model must get right; seeded, so a
// failure is reproducible. Used by the fidelity tests (against @xterm/headless) and the fuzzers.
import { prng } from '../../../src/prng.js';
import type { SessionEvent } from './session-events.js';

/** Small deterministic PRNG (mulberry32), the project's one. */
export const rng = prng;

const WORDS: readonly string[] = ['ls', 'total', 'drwxr-xr-x', 'root', 'héllo', 'naïve', '日本語', '한국어', 'ｗｉｄｅ', 'e\u0301', 'a\u0308\u0323', '😀', 'x', '   ', '-rw-r--r--', 'Ω≈ç√', '─│┌┐'];

export interface RandomSessionOptions {
  steps?: number;
  resizes?: boolean;
  /** Include origin mode (where the model deliberately differs from xterm.js in relative moves). */
  originMode?: boolean;
  /** Include many SGR forms (colours 16/256/RGB, flags, resets) written before text and erases. */
  sgr?: boolean;
}

const SGR: readonly string[] = [
  '0', '1', '2', '3', '4', '4:0', '4:3', '5', '7', '8', '9', '21', '22', '23', '24', '25', '27', '28', '29', '53', '55',
  '31', '42', '37;44', '90', '97;101', '39', '49', '38;5;208', '48;5;17', '38;5;3', '38;2;255;128;0', '48;2;0;0;96',
  '38:2::10:20:30', '48:5:123', '1;7;33;46', '0;4;38;5;250', '', '38;2;1;2', '58;5;4',
];
// Not '59' (default underline colour): xterm.js then revives an underline style a DECRC dropped
// (it restores fg/bg but not its extended attributes), which the model does not imitate.


export function randomSession(seed: number, cols: number, rows: number, opts: RandomSessionOptions = {}): SessionEvent[] {
  const r = rng(seed);
  const int = (n: number): number => Math.floor(r() * n);
  const pick = <T>(a: readonly T[]): T => a[int(a.length)]!;
  const words = WORDS;
  const enc = new TextEncoder();
  const events: SessionEvent[] = [];
  let t = 0;
  let c = cols;
  let h = rows;
  const steps = opts.steps ?? 60;
  for (let s = 0; s < steps; s++) {
    const k = opts.sgr && r() < 0.25 ? 34 : int(34);
    let out = '';
    switch (k) {
      case 0: case 1: case 2: case 3: case 4: out = pick(words) + (r() < 0.5 ? ' ' : ''); break;
      case 5: out = 'abcdefghijklmnopqrstuvwxyz0123456789'.slice(0, 1 + int(36)).repeat(1 + int(4)); break;
      case 6: out = '\r\n'; break;
      case 7: out = '\n'; break;
      case 8: out = '\r'; break;
      case 9: out = '\b'.repeat(1 + int(3)); break;
      case 10: out = '\t'; break;
      case 11: out = `\x1b[${1 + int(h + 2)};${1 + int(c + 2)}H`; break;
      case 12: out = `\x1b[${pick(['', '0', '1', '2'])}K`; break;
      // ED 1 only from column 0: at the last column xterm.js (the oracle) throws when the
      // cursor is on the last line of its buffer (it clears the wrap flag of the line below).
      case 13: out = pick(['\x1b[J', '\x1b[0J', '\r\x1b[1J', '\x1b[2J', '\x1b[3J']); break;
      case 14: out = `\x1b[${int(4)}${pick(['A', 'B', 'C', 'D', 'E', 'F', 'G', '`', 'a', 'd', 'e'])}`; break;
      case 15: out = `\x1b[${int(4)}${pick(['L', 'M', '@', 'P', 'X', 'S', 'T'])}`; break;
      case 16: { const top = 1 + int(h); const bot = top + int(h - top + 2); out = `\x1b[${top};${bot}r`; break; }
      case 17: out = pick(['\x1bD', '\x1bM', '\x1bE', '\x1b7', '\x1b8', '\x1b[s', '\x1b[u']); break;
      case 18: out = pick(['\x1b[?1049h', '\x1b[?1049l', '\x1b[?47h', '\x1b[?47l', '\x1b[?1047h', '\x1b[?1047l', '\x1b[?1048h', '\x1b[?1048l']); break;
      case 19: out = pick(['\x1b[4h', '\x1b[4l', '\x1b[?7l', '\x1b[?7h']); break;
      case 20: out = pick(['\x1b(0', '\x1b(B', '\x0e', '\x0f', '\x1b)0', '\x1b(A']) + pick(words); break;
      case 21: out = pick(['\x1bH', '\x1b[g', '\x1b[3g', '\x1b[2I', '\x1b[Z']); break;
      case 22: out = `\x1b[${1 + int(3)}b`; break;
      case 23: out = pick(['\x1b[1;31m', '\x1b[0m', '\x1b[38;5;208m', '\x1b[38:2::255:0:0m', '\x1b]0;title\x07', '\x1b]2;t\x1b\\', '\x1bP$qm\x1b\\', '\x1b_apc\x1b\\']); break;
      case 24: out = '\x1b[?25l\x1b[?25h\x1b[?2004h\x1b=\x1b>'; break;
      case 25: out = pick(words).repeat(1 + int(Math.ceil(c / 3))); break;
      case 26: out = `\x1b[${int(3)} @`.replace(' @', r() < 0.5 ? ' @' : ' A'); break;
      case 27: out = `\x1b[${int(3)}'${pick(['}', '~'])}`; break;
      case 28: out = pick(['\x1b[?45h', '\x1b[?45l', '\x1b[20h', '\x1b[20l']); break;
      case 29: out = '\x1b#8'; break;
      case 30: out = r() < 0.2 ? '\x1b[!p' : '\x1bc'.repeat(r() < 0.1 ? 1 : 0); break;
      case 31: if (opts.originMode) out = pick(['\x1b[?6h', '\x1b[?6l']); break;
      case 32: out = '\x1b[' + pick(['', '5', '99']) + 'X' + pick(words); break;
      case 33:
        if (opts.resizes) {
          c = 10 + int(60);
          h = 3 + int(20);
          events.push({ kind: 'resize', cols: c, rows: h, timeMs: t++ });
        }
        continue;
      case 34:
        out = `\x1b[${pick(SGR)}m` + (r() < 0.5 ? pick(words) : pick(['\x1b[K', '\x1b[2J', '\x1b[3X', '\x1b[2@', '\x1b[P', '\x1b[L', '\x1b[M', '\r\n', '\x1bM', '\x1b7', '\x1b8', '\x1b[S', '\x1b[?1049h', '\x1b[?1049l', '\x1b[!p']));
        break;
    }
    if (out) events.push({ kind: 'data', bytes: enc.encode(out), timeMs: t++ });
  }
  return events;
}
