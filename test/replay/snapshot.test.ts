// Keyframes of the screen model: a snapshot restored and fed the rest of a session gives the
// same model as feeding the whole session straight (compared as snapshot bytes, which hold every
// line of both buffers, the cursor, modes and charsets), at many cut points; and the repaint
// of a model, written into a reset xterm.js, shows the same screen as the model.
import xtermHeadless from '@xterm/headless';
import { describe, expect, it } from 'vitest';
import { Screen } from '../../src/replay/screen.js';
import { repaintScreen, screenCells } from '../../src/replay/screen-repaint.js';
import { restoreScreen, snapshotScreen } from '../../src/replay/screen-snapshot.js';
import { randomSession } from './helpers/random-session.js';
import { sampleTtySessions } from './helpers/sample-sessions.js';
import { scenarios } from './helpers/scenarios.js';
import type { SessionEvent } from './helpers/session-events.js';
import { xtermFinalScreen } from './helpers/xterm-oracle.js';

const { Terminal } = xtermHeadless;

function feed(screen: Screen, ev: SessionEvent): void {
  if (ev.kind === 'data') screen.write(ev.bytes);
  else screen.resize(ev.cols, ev.rows);
}

function textOf(screen: Screen): { lines: string[]; x: number; y: number } {
  const lines: string[] = [];
  for (let y = 0; y < screen.rows; y++) lines.push(screen.row(y).translateToString(true));
  return { lines, x: screen.cursorX, y: screen.cursorY };
}

/** Cuts the session at every `step`-th event where the parser is idle; each cut must replay the same. */
function checkCuts(events: SessionEvent[], cols: number, rows: number, step: number): number {
  const straight = new Screen({ cols, rows });
  const cuts: Array<{ at: number; snap: Uint8Array }> = [];
  events.forEach((ev, i) => {
    feed(straight, ev);
    if (i % step === 0 && straight.parserIdle) cuts.push({ at: i + 1, snap: snapshotScreen(straight) });
  });
  const want = snapshotScreen(straight);
  for (const cut of cuts) {
    const restored = restoreScreen(cut.snap);
    for (const ev of events.slice(cut.at)) feed(restored, ev);
    expect(Buffer.from(snapshotScreen(restored)).equals(Buffer.from(want)), `cut after event ${cut.at}`).toBe(true);
    expect(textOf(restored)).toEqual(textOf(straight));
  }
  return cuts.length;
}

async function xtermOf(repaint: string, cols: number, rows: number): Promise<{ lines: string[]; x: number; y: number }> {
  const term = new Terminal({ cols, rows, allowProposedApi: true });
  try {
    await new Promise<void>((done) => term.write(repaint, done));
    const b = term.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < rows; y++) lines.push(b.getLine(b.baseY + y)?.translateToString(true) ?? '');
    return { lines, x: b.cursorX, y: b.cursorY };
  } finally {
    term.dispose();
  }
}

describe('screen snapshot and restore', () => {
  it('restore + replay equals a straight replay (generated scenarios, many cuts)', () => {
    let cuts = 0;
    for (const sc of scenarios()) cuts += checkCuts(sc.session.events, sc.cols, sc.rows, 1);
    expect(cuts).toBeGreaterThan(50);
  });

  it('restore + replay equals a straight replay (random sessions with resizes)', () => {
    let cuts = 0;
    for (let seed = 1; seed <= 12; seed++) {
      cuts += checkCuts(randomSession(seed, 30, 8, { steps: 120, resizes: true }), 30, 8, 3);
      cuts += checkCuts(randomSession(seed + 100, 80, 24, { steps: 120 }), 80, 24, 5);
    }
    expect(cuts).toBeGreaterThan(200);
  });

  it('restore + replay equals a straight replay (recorded sample sessions)', () => {
    for (const s of sampleTtySessions()) checkCuts(s.events, s.cols, s.rows, 2);
  });

  it('restore + replay equals xterm.js fed the whole session (generated scenarios, cut half-way)', async () => {
    for (const sc of scenarios()) {
      const events = sc.session.events;
      const screen = new Screen({ cols: sc.cols, rows: sc.rows });
      let cut = Math.floor(events.length / 2);
      for (let i = 0; i < cut; i++) feed(screen, events[i]!);
      while (!screen.parserIdle && cut < events.length) feed(screen, events[cut++]!);
      const restored = restoreScreen(snapshotScreen(screen));
      for (const ev of events.slice(cut)) feed(restored, ev);
      const oracle = await xtermFinalScreen(events, sc.cols, sc.rows);
      expect({ lines: textOf(restored).lines, cursorX: restored.cursorX, cursorY: restored.cursorY }, sc.name).toEqual(oracle);
    }
  });

  it('a damaged snapshot is refused with SnapshotError', () => {
    expect(() => restoreScreen(Uint8Array.from([1, 2, 3]))).toThrow(/snapshot/);
  });

  it('keeps the alternate screen, the saved cursor, modes and charsets', () => {
    const s = new Screen({ cols: 20, rows: 5 });
    s.write(Buffer.from('normal\r\n\x1b7\x1b[?1049h\x1b[2;4r\x1b[?25l\x1b(0qqq\x1b[4h'));
    const r = restoreScreen(snapshotScreen(s));
    expect(r.isAlternate).toBe(true);
    expect(r.modes).toEqual(s.modes);
    expect(r.modes.cursorHidden).toBe(true);
    r.write(Buffer.from('q\x1b[?1049l'));
    s.write(Buffer.from('q\x1b[?1049l'));
    expect(textOf(r)).toEqual(textOf(s));
    expect(r.row(0).translateToString(true)).toBe('normal');
  });
});

describe('repaint into a reset xterm.js', () => {
  const cases: Array<{ name: string; events: SessionEvent[]; cols: number; rows: number }> = [];
  for (const sc of scenarios()) cases.push({ name: sc.name, events: sc.session.events, cols: sc.cols, rows: sc.rows });
  for (let seed = 1; seed <= 8; seed++) cases.push({ name: `random ${seed}`, events: randomSession(seed, 30, 8, { steps: 120 }), cols: 30, rows: 8 });
  for (const c of cases) {
    it(`shows the model's screen: ${c.name}`, async () => {
      const screen = new Screen({ cols: c.cols, rows: c.rows });
      for (const ev of c.events) feed(screen, ev);
      const got = await xtermOf(repaintScreen(screen), screen.cols, screen.rows);
      const want = textOf(screen);
      expect(got.lines).toEqual(want.lines);
      expect([got.x, got.y]).toEqual([Math.min(want.x, screen.cols - 1), want.y]);
    });
  }

  it('cells give text and width per column', () => {
    const s = new Screen({ cols: 6, rows: 2 });
    s.write(Buffer.from('a\u4e2db'));
    const cells = screenCells(s);
    expect(cells[0]!.slice(0, 4)).toEqual([{ t: 'a', w: 1 }, { t: '\u4e2d', w: 2 }, { t: '', w: 0 }, { t: 'b', w: 1 }]);
    expect(cells).toHaveLength(2);
  });
});
