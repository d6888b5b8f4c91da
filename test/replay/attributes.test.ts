// Cell attributes (SGR) of the screen model against @xterm/headless: fed the same sessions
// (generated ones with many SGR forms, the recorded samples, the screen corpus of real vim /
// htop / mc / less sessions), every cell's colours and flags agree at many cut points; a
// snapshot keeps them; and the repaint, written into a fresh xterm.js, reproduces them.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import xtermHeadless from '@xterm/headless';
import { describe, expect, it } from 'vitest';
import { CM_MASK, CM_RGB, COLOR_MASK } from '../../src/replay/cell-attrs.js';
import { Screen } from '../../src/replay/screen.js';
import { CELL_FLAGS, cellFlags, repaintScreen, screenCells } from '../../src/replay/screen-repaint.js';
import { restoreScreen, snapshotScreen } from '../../src/replay/screen-snapshot.js';
import { randomSession } from './helpers/random-session.js';
import { readSudoSession, sampleTtySessions } from './helpers/sample-sessions.js';
import type { SessionEvent } from './helpers/session-events.js';

const { Terminal } = xtermHeadless;
const FIXTURES = join(import.meta.dirname, '../../fixtures/iolog');
type Term = InstanceType<typeof Terminal>;

/** One cell as both sides describe it: text, colour modes and colours, flags. */
interface Attr {
  t: string;
  fm: number;
  fc: number;
  bm: number;
  bc: number;
  f: string;
}

function colorOf(word: number): [number, number] {
  const mode = word & CM_MASK;
  if (mode === 0) return [0, -1];
  return [mode, mode === CM_RGB ? word & COLOR_MASK : word & 0xff];
}

function modelCell(screen: Screen, x: number, y: number): Attr {
  const line = screen.row(y);
  const fg = line.fg(x) >>> 0;
  const bg = line.bg(x) >>> 0;
  const [fm, fc] = colorOf(fg);
  const [bm, bc] = colorOf(bg);
  const flags = cellFlags(fg, bg);
  const f = Object.entries(CELL_FLAGS).filter(([, bit]) => flags & bit).map(([name]) => name).join(',');
  return { t: line.cellString(x), fm, fc, bm, bc, f };
}

function xtermCell(term: Term, x: number, y: number): Attr {
  const b = term.buffer.active;
  const c = b.getLine(b.baseY + y)!.getCell(x)!;
  const names: Array<[string, () => number]> = [
    ['bold', () => c.isBold()], ['dim', () => c.isDim()], ['italic', () => c.isItalic()], ['underline', () => c.isUnderline()],
    ['blink', () => c.isBlink()], ['inverse', () => c.isInverse()], ['invisible', () => c.isInvisible()],
    ['strikethrough', () => c.isStrikethrough()], ['overline', () => c.isOverline()],
  ];
  const fm = c.getFgColorMode() >>> 0;
  const bm = c.getBgColorMode() >>> 0;
  return {
    t: c.getChars(), fm, fc: fm ? c.getFgColor() : -1, bm, bc: bm ? c.getBgColor() : -1,
    f: names.filter(([, is]) => is()).map(([n]) => n).join(','),
  };
}

/** The cells that differ (at most a few, described), comparing `fullEmpty` cells entirely or by background. */
function differences(screen: Screen, term: Term, fullEmpty: boolean): string[] {
  const out: string[] = [];
  for (let y = 0; y < screen.rows && out.length < 5; y++) {
    for (let x = 0; x < screen.cols && out.length < 5; x++) {
      const m = modelCell(screen, x, y);
      const t = xtermCell(term, x, y);
      const same = m.t || fullEmpty ? JSON.stringify(m) === JSON.stringify(t) : m.bm === t.bm && m.bc === t.bc && m.t === t.t;
      if (!same) out.push(`(${x},${y}) model ${JSON.stringify(m)} xterm ${JSON.stringify(t)}`);
    }
  }
  return out;
}

const write = (term: Term, data: Uint8Array | string): Promise<void> => new Promise((done) => term.write(data, done));

function feed(screen: Screen, ev: SessionEvent): void {
  if (ev.kind === 'data') screen.write(ev.bytes);
  else screen.resize(ev.cols, ev.rows);
}

async function repaintDifferences(screen: Screen): Promise<string[]> {
  const fresh = new Terminal({ cols: screen.cols, rows: screen.rows, allowProposedApi: true });
  try {
    await write(fresh, repaintScreen(screen));
    return differences(screen, fresh, false);
  } finally {
    fresh.dispose();
  }
}

/**
 * Feeds model and xterm.js the session; at every `step`-th event compares every cell, and (at
 * every `repaintStep`-th) the repaint and a restored snapshot too. Returns the number of cuts.
 */
async function compare(name: string, events: SessionEvent[], cols: number, rows: number, step: number, repaintStep = step * 4): Promise<number> {
  const screen = new Screen({ cols, rows });
  const term = new Terminal({ cols, rows, scrollback: 1000, allowProposedApi: true });
  let cuts = 0;
  try {
    for (let i = 0; i < events.length; i++) {
      const ev = events[i]!;
      feed(screen, ev);
      if (ev.kind === 'data') await write(term, ev.bytes);
      else term.resize(ev.cols, ev.rows);
      const last = i === events.length - 1;
      if (i % step !== 0 && !last) continue;
      cuts++;
      expect(differences(screen, term, true), `${name}: model vs xterm.js after event ${i}`).toEqual([]);
      if ((i % repaintStep === 0 || last) && screen.parserIdle) {
        expect(await repaintDifferences(screen), `${name}: repaint after event ${i}`).toEqual([]);
        const restored = restoreScreen(snapshotScreen(screen));
        expect(screenCells(restored), `${name}: snapshot after event ${i}`).toEqual(screenCells(screen));
      }
    }
  } finally {
    term.dispose();
  }
  return cuts;
}

/** Session directories of the screen corpus (fixtures/iolog/screen-corpus/XX/YY/ZZ). */
function corpusSessions(): string[] {
  const root = join(FIXTURES, 'screen-corpus');
  const out: string[] = [];
  const walk = (dir: string, depth: number): void => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      if (!statSync(p).isDirectory()) continue;
      if (depth === 2) out.push(p);
      else walk(p, depth + 1);
    }
  };
  walk(root, 0);
  return out;
}

describe('cell attributes against xterm.js', () => {
  it('SGR forms, erases with a background, save/restore and resets (small cases)', async () => {
    const s = new Screen({ cols: 20, rows: 4 });
    s.write(Buffer.from('\x1b[1;3;4;5;7;8;9;53;31;48;5;200mA\x1b[0;38;2;1;2;3;103mB\x1b[44m\x1b[K\x1b7\x1b[m\r\n\x1b8C\x1b[!pD'));
    const cells = screenCells(s);
    expect(cells[0]![0]).toEqual({ t: 'A', w: 1, fg: 1, bg: 200, flags: 1 | 4 | 8 | 16 | 32 | 64 | 128 | 256 });
    expect(cells[0]![1]).toEqual({ t: 'B', w: 1, fg: '#010203', bg: 11 });
    expect(cells[0]![5]).toEqual({ t: '', w: 1, bg: 4 });
    // DECRC gave C the attributes saved with the cursor; DECSTR reset them for D.
    expect(cells[0]![2]).toEqual({ t: 'C', w: 1, fg: '#010203', bg: 4 });
    expect(cells[0]![3]).toEqual({ t: 'D', w: 1 });
    expect(cells[1]![0]).toEqual({ t: '', w: 1 });
  });

  it('generated sessions with SGR: every cell at many cut points, the repaint and snapshots', async () => {
    let cuts = 0;
    for (let seed = 1; seed <= 30; seed++) {
      cuts += await compare(`seed ${seed}`, randomSession(seed, 30, 8, { steps: 150, sgr: true, resizes: seed % 3 === 0 }), 30, 8, 3);
    }
    expect(cuts).toBeGreaterThan(1000);
  }, 120_000);

  it('recorded sample sessions', async () => {
    let n = 0;
    for (const s of sampleTtySessions()) {
      await compare(s.name, s.events, s.cols, s.rows, Math.max(1, Math.floor(s.events.length / 60)));
      n++;
    }
    expect(n).toBeGreaterThan(0);
  }, 120_000);

  it('the screen corpus (real vim, htop, mc, less sessions with colours)', async () => {
    let coloured = 0;
    for (const dir of corpusSessions()) {
      const s = readSudoSession(dir);
      await compare(dir, s.events, s.cols, s.rows, Math.max(1, Math.floor(s.events.length / 80)));
      const screen = new Screen({ cols: s.cols, rows: s.rows });
      for (const ev of s.events) feed(screen, ev);
      let any = false;
      for (const ev of s.events) if (ev.kind === 'data' && Buffer.from(ev.bytes).includes('\x1b[3')) any = true;
      if (any) coloured++;
    }
    expect(coloured).toBeGreaterThan(0);
  }, 300_000);
});
