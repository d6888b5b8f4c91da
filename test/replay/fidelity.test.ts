// Fidelity: the final screen of our model equals the final screen of @xterm/headless fed the same
// bytes and window changes: every row's text (translateToString(true)) and the cursor.
import { describe, expect, it } from 'vitest';
import { modelFinalScreen } from './helpers/model-screen.js';
import { randomSession } from './helpers/random-session.js';
import { sampleTtySessions } from './helpers/sample-sessions.js';
import { scenarios } from './helpers/scenarios.js';
import type { SessionEvent } from './helpers/session-events.js';
import { xtermFinalScreen } from './helpers/xterm-oracle.js';

async function expectSameScreen(events: SessionEvent[], cols: number, rows: number): Promise<void> {
  const oracle = await xtermFinalScreen(events, cols, rows);
  const model = modelFinalScreen(events, cols, rows);
  expect(model).toEqual(oracle);
}

/** The same session with every data chunk cut into pieces of 1..3 bytes (splits UTF-8 and sequences). */
function rechunked(events: SessionEvent[], seed: number): SessionEvent[] {
  const out: SessionEvent[] = [];
  let n = seed;
  for (const e of events) {
    if (e.kind !== 'data') {
      out.push(e);
      continue;
    }
    for (let i = 0; i < e.bytes.length; ) {
      const len = 1 + (n++ % 3);
      out.push({ kind: 'data', bytes: e.bytes.subarray(i, i + len), timeMs: e.timeMs });
      i += len;
    }
  }
  return out;
}

describe('fidelity against @xterm/headless', () => {
  const samples = sampleTtySessions();

  it('finds the tty sessions of the samples', () => {
    expect(samples.length).toBeGreaterThanOrEqual(6);
    expect(samples.map((s) => s.name)).toContain('sudo-io/00/00/04');
  });

  for (const s of samples) {
    it(`sample ${s.name} (${s.events.length} events)`, async () => {
      await expectSameScreen(s.events, s.cols, s.rows);
    });
  }

  for (const sc of scenarios()) {
    it(`generated: ${sc.name}`, async () => {
      await expectSameScreen(sc.session.events, sc.cols, sc.rows);
    });
    it(`generated, in 1-3 byte chunks: ${sc.name}`, async () => {
      await expectSameScreen(rechunked(sc.session.events, sc.name.length), sc.cols, sc.rows);
    });
  }

  it('random sessions (seeded): 80x24, 30x8 with resizes, 12x3', async () => {
    const configs = [
      { cols: 80, rows: 24, steps: 150, resizes: false, seeds: 40 },
      { cols: 30, rows: 8, steps: 80, resizes: true, seeds: 80 },
      { cols: 12, rows: 3, steps: 60, resizes: false, seeds: 60 },
    ];
    for (const c of configs) {
      for (let seed = 1; seed <= c.seeds; seed++) {
        const events = randomSession(seed, c.cols, c.rows, { steps: c.steps, resizes: c.resizes });
        const oracle = await xtermFinalScreen(events, c.cols, c.rows);
        const model = modelFinalScreen(events, c.cols, c.rows);
        expect(model, `seed ${seed} at ${c.cols}x${c.rows}`).toEqual(oracle);
      }
    }
  });
});
