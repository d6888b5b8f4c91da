import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../../src/iolog/line-splitter.js';
import { parseDelay, TimingParser, type TimingRecord } from '../../src/iolog/timing.js';

describe('parseDelay', () => {
  it('reads seconds and nanoseconds as integers, with . or , and any fraction length', () => {
    expect(parseDelay('0.002642537')).toMatchObject({ sec: 0, nsec: 2642537 });
    expect(parseDelay('4,5')).toMatchObject({ sec: 4, nsec: 500_000_000 });
    expect(parseDelay('1.123456')).toMatchObject({ sec: 1, nsec: 123_456_000 });
    expect(parseDelay('7')).toMatchObject({ sec: 7, nsec: 0 });
    expect(parseDelay('2.1234567891234')).toMatchObject({ sec: 2, nsec: 123_456_789 });
    expect(parseDelay('3.')).toMatchObject({ sec: 3, nsec: 0 });
    expect(parseDelay('0.1 12')).toMatchObject({ sec: 0, nsec: 100_000_000, end: 4 });
  });
  it('refuses what is not a delay', () => {
    for (const bad of ['', '.5', 'x', '1x', '1.2.3', '-1', '1e3', '9999999999999999']) expect(parseDelay(bad)).toBeNull();
  });
});

describe('TimingParser', () => {
  it('parses the record kinds sudo writes', () => {
    const p = new TimingParser();
    expect(p.parse('4 0.000167465 2')).toEqual({ type: 'io', sec: 0, nsec: 167465, stream: 'ttyout', nbytes: 2 });
    expect(p.parse('0 0.001915794 12')).toEqual({ type: 'io', sec: 0, nsec: 1915794, stream: 'stdin', nbytes: 12 });
    expect(p.parse('3 1 0')).toEqual({ type: 'io', sec: 1, nsec: 0, stream: 'ttyin', nbytes: 0 });
    // window change: rows first, then columns
    expect(p.parse('5 0.995087254 30 100')).toEqual({ type: 'winch', sec: 0, nsec: 995087254, rows: 30, cols: 100 });
    expect(p.parse('7 0.000570390 TSTP')).toEqual({ type: 'signal', sec: 0, nsec: 570390, signal: 'TSTP' });
    expect(p.parse('7 1.504074112 CONT')).toMatchObject({ type: 'signal', signal: 'CONT' });
    expect(p.parse('7 0.5 20')).toMatchObject({ type: 'signal', signal: '20' });
    expect(p.parse('1  0.1\t5')).toMatchObject({ type: 'io', stream: 'stdout', nbytes: 5 });
    expect(p.parse('4 0.1 5\r')).toMatchObject({ type: 'io', nbytes: 5 });
  });
  it('refuses garbage lines', () => {
    const p = new TimingParser();
    for (const bad of ['', 'garbage', '8 0.1 5', '9 0.1 5', '4', '4 0.1', '4 0.1 x', '4 0.1 5 6', '5 0.1 30', '5 0.1 30 x', '7 0.1', '7 0.1 BAD NAME', '4x 0.1 5', '\u0000\u0001', '4 abc 5']) {
      expect(p.parse(bad), JSON.stringify(bad)).toBeNull();
    }
  });
  it('shifts every type by 2 from the first type-6 line on, as sudo 1.8.8-1.9.17 do', () => {
    const p = new TimingParser();
    expect(p.parse('4 0.1 3')).toMatchObject({ stream: 'ttyout' }); // before the first 6: as written
    expect(p.parse('6 0.1 3')).toMatchObject({ type: 'io', stream: 'ttyout', nbytes: 3 });
    expect(p.parse('5 0.1 3')).toMatchObject({ type: 'io', stream: 'ttyin' });
    expect(p.parse('2 0.1 3')).toMatchObject({ type: 'io', stream: 'stdin' });
    expect(p.parse('7 0.1 24 80')).toEqual({ type: 'winch', sec: 0, nsec: 100_000_000, rows: 24, cols: 80 });
    expect(p.parse('1 0.1 3')).toBeNull(); // -1 after the shift
  });
  it('never throws and round-trips well-formed records (fuzzed, seeded)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (s) => {
        const r = new TimingParser().parse(s);
        expect(r === null || typeof r === 'object').toBe(true);
      }),
      { seed: 4, numRuns: 3000 },
    );
    const rec = fc.oneof(
      fc.record({ type: fc.constant('io' as const), sec: fc.nat(100000), nsec: fc.nat(999_999_999), stream: fc.constantFrom('stdin', 'stdout', 'stderr', 'ttyin', 'ttyout' as const), nbytes: fc.nat(1 << 20) }),
      fc.record({ type: fc.constant('winch' as const), sec: fc.nat(100000), nsec: fc.nat(999_999_999), rows: fc.nat(5000), cols: fc.nat(5000) }),
      fc.record({ type: fc.constant('signal' as const), sec: fc.nat(100000), nsec: fc.nat(999_999_999), signal: fc.constantFrom('TSTP', 'CONT', 'STOP', 'TTIN', 'TTOU') }),
    );
    const names = ['stdin', 'stdout', 'stderr', 'ttyin', 'ttyout'];
    const line = (r: TimingRecord) => {
      const d = `${r.sec}.${String(r.nsec).padStart(9, '0')}`;
      if (r.type === 'io') return `${names.indexOf(r.stream)} ${d} ${r.nbytes}`;
      if (r.type === 'winch') return `5 ${d} ${r.rows} ${r.cols}`;
      return `7 ${d} ${r.signal}`;
    };
    fc.assert(
      fc.property(rec, (r) => {
        expect(new TimingParser().parse(line(r as TimingRecord))).toEqual(r);
      }),
      { seed: 7, numRuns: 2000 },
    );
  });
});

describe('LineSplitter', () => {
  const text = '4 0.1 5\n5 0.2 30 100\n7 0.3 TSTP\n4 0.4 2';
  const split = (parts: Buffer[]) => {
    const s = new LineSplitter(2048, 'latin1');
    const lines: Array<string | null> = [];
    for (const p of parts) s.push(p, (l) => (lines.push(l), true));
    return { lines, partial: s.hasPartial };
  };
  it('gives the same complete lines whatever the chunking, and holds back the unterminated tail', () => {
    const whole = split([Buffer.from(text)]);
    expect(whole.lines).toEqual(['4 0.1 5', '5 0.2 30 100', '7 0.3 TSTP']);
    expect(whole.partial).toBe(true);
    const buf = Buffer.from(text);
    for (let i = 0; i <= buf.length; i++) {
      for (let j = i; j <= buf.length; j += 3) {
        expect(split([buf.subarray(0, i), buf.subarray(i, j), buf.subarray(j)]).lines).toEqual(whole.lines);
      }
    }
  });
  it('reports lines longer than the limit as invalid', () => {
    const s = new LineSplitter(10, 'latin1');
    const lines: Array<string | null> = [];
    s.push(Buffer.from('short\n' + 'x'.repeat(8)), (l) => (lines.push(l), true));
    s.push(Buffer.from('y'.repeat(8) + '\nok\n'), (l) => (lines.push(l), true));
    expect(lines).toEqual(['short', null, 'ok']);
  });
});
