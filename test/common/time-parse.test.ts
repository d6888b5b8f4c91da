// The one time grammar of both engines: absolute forms, relative forms against an injected
// clock, the bound rule (an upper bound covers its last unit), one error code, and the ISO
// rendering that states the zone.
import { describe, expect, it } from 'vitest';
import { parseTime, parseTimeBound, parseTimeBoundMs } from '../../src/common/time-parse.js';
import { formatIsoInZone } from '../../src/common/time-zone.js';
import { parseEventQuery } from '../../src/eventlog/query.js';
import { parseListParams } from '../../src/iolog/list-query.js';
import { shapeEvent } from '../../src/eventlog/shape.js';
import { codeOfCall as code } from '../helpers/errors.js';

const NOW = Date.UTC(2026, 0, 3, 3, 0, 0) / 1000; // 2026-01-03 03:00:00 UTC
const DAY = 86_400;

describe('relative times', () => {
  it('now, -Ns/m/h/d/w are exact instants from the one clock reading', () => {
    expect(parseTime('now', 'UTC', 'from', NOW)).toEqual({ at: NOW, end: null });
    expect(parseTimeBound('-30s', 'UTC', 'from', false, NOW)).toBe(NOW - 30);
    expect(parseTimeBound('-30m', 'UTC', 'to', true, NOW)).toBe(NOW - 1800);
    expect(parseTimeBound('-2h', 'UTC', 'from', false, NOW)).toBe(NOW - 7200);
    expect(parseTimeBound('-7d', 'UTC', 'from', false, NOW)).toBe(NOW - 7 * DAY);
    expect(parseTimeBound('-1W', 'UTC', 'from', false, NOW)).toBe(NOW - 7 * DAY);
  });

  it('today and yesterday are calendar days in the configured zone', () => {
    const today = Date.UTC(2026, 0, 3) / 1000;
    expect(parseTimeBound('today', 'UTC', 'from', false, NOW)).toBe(today);
    expect(parseTimeBound('Today', 'UTC', 'to', true, NOW)).toBeCloseTo(today + DAY - 1e-6, 5);
    expect(parseTimeBound('yesterday', 'UTC', 'from', false, NOW)).toBe(today - DAY);
    expect(parseTimeBound('yesterday', 'UTC', 'to', true, NOW)).toBeCloseTo(today - 1e-6, 5);
    // 03:00 UTC is still 2026-01-02 in New York (UTC-5): its today starts 2026-01-02 05:00 UTC.
    expect(parseTimeBound('today', 'America/New_York', 'from', false, NOW)).toBe(Date.UTC(2026, 0, 2, 5) / 1000);
    // across the first of a month
    const jan1 = Date.UTC(2026, 0, 1, 12) / 1000;
    expect(parseTimeBound('yesterday', 'UTC', 'from', false, jan1)).toBe(Date.UTC(2025, 11, 31) / 1000);
  });

  it('the session list reads the same grammar in milliseconds', () => {
    expect(parseTimeBoundMs('-2h', 'UTC', 'from', false, NOW)).toBe((NOW - 7200) * 1000);
    expect(parseTimeBoundMs('yesterday', 'UTC', 'to', true, NOW)).toBe(Date.UTC(2026, 0, 3) - 1);
    expect(parseTimeBoundMs('1767225600', 'UTC', 'to', true, NOW)).toBe(1767225600999);
    const q = parseListParams({ from: 'yesterday', to: '-1h' }, 'UTC', NOW);
    expect([q.from, q.to]).toEqual([Date.UTC(2026, 0, 2), (NOW - 3600) * 1000]);
  });

  it('an event query computes every relative time from one clock reading', () => {
    const { query } = parseEventQuery({ from: '-1d', to: 'now', exittime_from: 'yesterday', exittime_to: 'today' }, 'UTC', NOW);
    expect([query.from, query.to, query.exitFrom]).toEqual([NOW - DAY, NOW, Date.UTC(2026, 0, 2) / 1000]);
    expect(query.exitTo).toBeCloseTo(Date.UTC(2026, 0, 4) / 1000 - 1e-6, 5);
  });
});

describe('one grammar, one error code', () => {
  it.each(['last week', '-7', '7d', '-7x', 'tomorrow', '2026-13-01', '2026-02-30', '2026-01-01 25:00'])('%j is 1105 for events and for the session list', (bad) => {
    expect(code(() => parseEventQuery({ from: bad }, 'UTC', NOW))).toBe(1105);
    expect(code(() => parseListParams({ from: bad }, 'UTC', NOW))).toBe(1105);
  });

  it('an inverted range is 1115 for both', () => {
    expect(code(() => parseEventQuery({ from: '-1h', to: '-2h' }, 'UTC', NOW))).toBe(1115);
    expect(code(() => parseListParams({ from: '-1h', to: '-2h' }, 'UTC', NOW))).toBe(1115);
  });

  it('the two engines read every absolute form alike (seconds vs milliseconds)', () => {
    for (const t of ['2026-01-02', '2026/01/02 10:00', '2026-01-02T10:00:05', '2026-01-02 10:00:05.25', '2026-01-02T10:00:05+02:00', '1767348005', '1767348005.5']) {
      for (const upper of [false, true]) {
        const s = parseTimeBound(t, 'Europe/Paris', 'x', upper, NOW);
        expect(parseTimeBoundMs(t, 'Europe/Paris', 'x', upper, NOW)).toBe(upper ? Math.floor(s * 1000) : Math.ceil(Math.round(s * 1e6) / 1e3));
      }
    }
  });

  it('an upper bound covers the whole of its last unit; a fraction is exact', () => {
    const t = Date.UTC(2026, 0, 2, 10, 0, 5) / 1000;
    expect(parseTimeBound('2026-01-02 10:00:05', 'UTC', 'to', true, NOW)).toBeCloseTo(t + 1 - 1e-6, 5);
    expect(parseTimeBound(String(t), 'UTC', 'to', true, NOW)).toBeCloseTo(t + 1 - 1e-6, 5);
    expect(parseTimeBound('2026-01-02 10:00:05.25', 'UTC', 'to', true, NOW)).toBe(t + 0.25);
  });
});

describe('ISO 8601 with the zone', () => {
  it('renders the offset of the configured zone', () => {
    expect(formatIsoInZone(1767225600, 'UTC')).toBe('2026-01-01T00:00:00+00:00');
    expect(formatIsoInZone(1767225600, 'Europe/Paris')).toBe('2026-01-01T01:00:00+01:00');
    expect(formatIsoInZone(1767225600.9, 'America/St_Johns')).toBe('2025-12-31T20:30:00-03:30');
  });

  it('verbose events carry epoch_iso and exittime_iso beside epoch and exittime', () => {
    const rec = { recnum: 1, uniqueid: 'u', etype: 'A' as const, time: 1767225600 };
    const v = shapeEvent({ rec, exitstatus: 'ok', exittime: 1767225660 }, true, 'Europe/Paris');
    expect(v).toMatchObject({ epoch: '2026-01-01 01:00:00', epoch_iso: '2026-01-01T01:00:00+01:00', exittime: '2026-01-01 01:01:00', exittime_iso: '2026-01-01T01:01:00+01:00' });
    expect(shapeEvent({ rec, exitstatus: null, exittime: null }, true, 'UTC')).not.toHaveProperty('exittime_iso');
    expect(shapeEvent({ rec, exitstatus: null, exittime: null }, false, 'UTC')).not.toHaveProperty('epoch_iso');
  });
});
