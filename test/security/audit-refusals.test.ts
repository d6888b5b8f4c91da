// The per-minute budget of unsigned refusals (src/app/audit-refusals.ts) as a state machine:
// the clock is passed in, so every window edge is exact.
import { describe, expect, it } from 'vitest';
import { RefusalWindow, summaryEntry } from '../../src/app/audit-refusals.js';

describe('RefusalWindow', () => {
  it('records the first N of a minute, counts the rest by address, and hands the count over when the next minute starts', () => {
    const w = new RefusalWindow(2);
    const t0 = 1_000_000;
    expect(w.admit('10.0.0.1', t0)).toEqual({ record: true, summary: null });
    expect(w.admit('10.0.0.1', t0 + 1)).toEqual({ record: true, summary: null });
    expect(w.admit('10.0.0.1', t0 + 2).record).toBe(false);
    expect(w.admit('10.0.0.2', t0 + 3).record).toBe(false);
    expect(w.admit('10.0.0.1', t0 + 59_999).record).toBe(false);
    const next = w.admit('10.0.0.3', t0 + 60_000);
    expect(next.record).toBe(true);
    expect(next.summary).toEqual({ count: 3, byAddress: [['10.0.0.1', 2], ['10.0.0.2', 1]], others: 0, windowStart: t0 });
    // The summary is handed over once.
    expect(w.admit('10.0.0.3', t0 + 60_001)).toEqual({ record: true, summary: null });
    expect(w.drain()).toBeNull();
  });

  it('0 per minute records nothing one by one; memory stays bounded with many addresses', () => {
    const w = new RefusalWindow(0);
    for (let i = 0; i < 1000; i++) expect(w.admit(`10.0.${i >> 8}.${i & 255}`, 5).record).toBe(false);
    const s = w.drain()!;
    expect(s.count).toBe(1000);
    expect(s.byAddress).toHaveLength(32);
    expect(s.others).toBe(1000 - 32);
    const e = summaryEntry(s);
    expect(e.from).toBe('(several)');
    expect(e.argv.at(-1)).toBe('others=968');
    expect(e.outcome).toMatch(/^1000 unsigned writing calls refused/);
  });

  it('a clock that steps back starts a new window instead of stalling', () => {
    const w = new RefusalWindow(1);
    expect(w.admit('a', 100_000).record).toBe(true);
    expect(w.admit('a', 100_001).record).toBe(false);
    const back = w.admit('a', 50_000);
    expect(back.record).toBe(true);
    expect(back.summary?.count).toBe(1);
  });
});
