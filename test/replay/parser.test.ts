import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Parser } from '../../src/replay/parser.js';
import { type ParserEvent, RecordingHandler } from './helpers/recording-handler.js';
import { sampleTtySessions } from './helpers/sample-sessions.js';
import { scenarios } from './helpers/scenarios.js';
import { concatData } from './helpers/session-events.js';

const enc = new TextEncoder();
const bytes = (s: string): Uint8Array => enc.encode(s);

function parseChunks(chunks: Uint8Array[], maxStringLength?: number): ParserEvent[] {
  const h = new RecordingHandler();
  const p = new Parser(h, maxStringLength === undefined ? {} : { maxStringLength });
  for (const c of chunks) p.write(c);
  p.end();
  return h.events;
}

/** Parses; a single chunk is also parsed split at every byte offset, which must change nothing. */
function parse(chunks: Uint8Array[], maxStringLength?: number): ParserEvent[] {
  const events = parseChunks(chunks, maxStringLength);
  if (chunks.length === 1) {
    const data = chunks[0]!;
    const whole = JSON.stringify(events);
    for (let k = 0; k <= data.length; k++) {
      const split = JSON.stringify(parseChunks([data.subarray(0, k), data.subarray(k)], maxStringLength));
      if (split !== whole) expect(split, `split at ${k}`).toBe(whole);
    }
  }
  return events;
}

/** Parsing split at every offset (two writes) gives what parsing whole gives. */
function expectSplitInvariant(data: Uint8Array): void {
  const whole = parseChunks([data]);
  for (let k = 0; k <= data.length; k++) {
    const split = parseChunks([data.subarray(0, k), data.subarray(k)]);
    if (JSON.stringify(split) !== JSON.stringify(whole)) expect(split, `split at ${k}`).toEqual(whole);
  }
}

describe('parser', () => {
  it('batches printable runs and dispatches C0 controls', () => {
    expect(parse([bytes('hello world\r\nx\ty\x07')])).toEqual([
      ['print', 'hello world'], ['execute', 13], ['execute', 10], ['print', 'x'], ['execute', 9], ['print', 'y'], ['execute', 7],
    ]);
  });

  it('decodes UTF-8, keeping a character split across writes', () => {
    const data = bytes('h\u00e9\u65e5\u{1f600}!');
    expect(parse([data])).toEqual([['print', 'h\u00e9\u65e5\u{1f600}!']]);
    for (let k = 0; k <= data.length; k++) expect(parse([data.subarray(0, k), data.subarray(k)])).toEqual([['print', 'h\u00e9\u65e5\u{1f600}!']]);
  });

  it('replaces invalid UTF-8 with U+FFFD as the WHATWG decoder does', () => {
    const cases = [[0xff], [0x80], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xe2, 0x82, 0x41], [0xf0, 0x9f, 0x98], [0xf4, 0x90, 0x80, 0x80], [0x41, 0xc3]];
    for (const c of cases) {
      const expected = new TextDecoder().decode(Uint8Array.from(c));
      expect(parse([Uint8Array.from(c)]), JSON.stringify(c)).toEqual([['print', expected]]);
    }
  });

  it('agrees with TextDecoder on random printable and non-ASCII bytes (property)', () => {
    const byte = fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xc1 }), fc.integer({ min: 0xc3, max: 0xff }));
    fc.assert(
      fc.property(fc.array(byte, { maxLength: 64 }), fc.nat(64), (arr, cut) => {
        const data = Uint8Array.from(arr);
        const k = Math.min(cut, data.length);
        const got = parseChunks([data.subarray(0, k), data.subarray(k)]);
        const text = new TextDecoder().decode(data);
        expect(got).toEqual(text ? [['print', text]] : []);
      }),
      { seed: 42, numRuns: 500 },
    );
  });

  it('treats C1 controls (UTF-8 encoded) like their ESC forms', () => {
    expect(parse([bytes('\u009b1;2H\u0085\u009d0;t\u009c')])).toEqual([['csi', 'H', [1, 2], [[], []]], ['execute', 0x85], ['osc', 0, 't', true, false]]);
  });

  it('parses CSI with private markers, intermediates and colon sub-parameters', () => {
    expect(parse([bytes('\x1b[?1049h\x1b[>4;1m\x1b[2 q\x1b[38:2::255:0:0;1m\x1b[m\x1b[;5H')])).toEqual([
      ['csi', '?h', [1049], [[]]],
      ['csi', '>m', [4, 1], [[], []]],
      ['csi', ' q', [2], [[]]],
      ['csi', 'm', [38, 1], [[2, -1, 255, 0, 0], []]],
      ['csi', 'm', [0], [[]]],
      ['csi', 'H', [0, 5], [[], []]],
    ]);
  });

  it('bounds parameters: 32 at most, values capped at 2^31-1', () => {
    const many = Array.from({ length: 40 }, (_, i) => i).join(';');
    const ev = parse([bytes(`\x1b[${many}m\x1b[99999999999999999999H`)]);
    expect((ev[0] as ['csi', string, number[], number[][]])[2]).toHaveLength(32);
    expect((ev[1] as ['csi', string, number[], number[][]])[2]).toEqual([0x7fffffff]);
  });

  it('ignores a private marker after parameters and DEL inside a sequence', () => {
    expect(parse([bytes('\x1b[1?2hX\x1b[1\x7f;2H')])).toEqual([['print', 'X'], ['csi', 'H', [1, 2], [[], []]]]);
  });

  it('executes C0 controls inside a sequence without ending it', () => {
    expect(parse([bytes('\x1b[1\r;2H')])).toEqual([['execute', 13], ['csi', 'H', [1, 2], [[], []]]]);
  });

  it('ends OSC with BEL, ESC \\ or 0x9C; CAN and SUB abort it', () => {
    expect(parse([bytes('\x1b]0;title\x07\x1b]2;two\x1b\\\x1b]8;;http://x\u009c\x1b]1;gone\x18after\x1b]52;c;Zm9v\x1a')])).toEqual([
      ['osc', 0, 'title', true, false],
      ['osc', 2, 'two', true, false],
      ['esc', '\\'],
      ['osc', 8, ';http://x', true, false],
      ['osc', 1, 'gone', false, false],
      ['print', 'after'],
      ['osc', 52, 'c;Zm9v', false, false],
    ]);
  });

  it('caps string payloads and says so', () => {
    const long = 'x'.repeat(100);
    expect(parse([bytes(`\x1b]0;${long}\x07\x1bP1$q${long}\x1b\\`)], 10)).toEqual([
      ['osc', 0, 'xxxxxxxx', true, true],
      ['dcs', '$q', [1], 'xxxxxxxxxx', true, true],
      ['esc', '\\'],
    ]);
  });

  it('captures DCS, SOS, PM and APC strings', () => {
    expect(parse([bytes('\x1bP1;2|data\x1b\\\x1bXsos\x1b\\\x1b^pm\x1b\\\x1b_apc\x1b\\')])).toEqual([
      ['dcs', '|', [1, 2], 'data', true, false], ['esc', '\\'],
      ['str', 0x58, 'sos', true, false], ['esc', '\\'],
      ['str', 0x5e, 'pm', true, false], ['esc', '\\'],
      ['str', 0x5f, 'apc', true, false], ['esc', '\\'],
    ]);
  });

  it('CAN and SUB abort an escape sequence', () => {
    expect(parse([bytes('\x1b[1;2\x18X\x1b(\x1aY')])).toEqual([['execute', 0x18], ['print', 'X'], ['execute', 0x1a], ['print', 'Y']]);
  });

  it('parses ESC sequences with intermediates', () => {
    expect(parse([bytes('\x1b(0\x1b)B\x1b#8\x1b7\x1bc')])).toEqual([['esc', '(0'], ['esc', ')B'], ['esc', '#8'], ['esc', '7'], ['esc', 'c']]);
  });

  it('prints a dangling partial character as U+FFFD at end()', () => {
    expect(parse([Uint8Array.from([0x41, 0xe6, 0x97])])).toEqual([['print', 'A\ufffd']]);
  });

  describe('split at every byte offset gives the unsplit result', () => {
    const inputs: Array<[string, Uint8Array]> = [
      ['mixed controls', bytes('a\x1b[1;31mb\x1b]0;t\x07\u00e9\u65e5\x1bP$qm\x1b\\\x1b[?25l\r\n\u009b2J\x1b(0q\x1b(B\x1b_x\x1b\\\x1b[38:5:1m')],
      ['invalid UTF-8', Uint8Array.from([0x41, 0xff, 0xe2, 0x82, 0x41, 0xf0, 0x9f, 0x98, 0x80, 0xc3, 0x1b, 0x5b, 0x41])],
      ...scenarios().map((s): [string, Uint8Array] => [s.name, concatData(s.session.events).subarray(0, 1500)]),
      ...sampleTtySessions().map((s): [string, Uint8Array] => [s.name, concatData(s.events)]),
    ];
    for (const [name, data] of inputs) {
      it(`${name} (${data.length} bytes)`, () => expectSplitInvariant(data));
    }
  });

  it('never throws and produces bounded output on random bytes (fuzz)', () => {
    const interesting = fc.constantFrom(0x1b, 0x5b, 0x5d, 0x50, 0x3b, 0x3a, 0x3f, 0x07, 0x18, 0x1a, 0x9c, 0xc2, 0x9b, 0x9d, 0x90, 0x5c, 0x30, 0x31);
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.integer({ min: 0, max: 255 }), interesting), { maxLength: 300 }), fc.array(fc.nat(300), { maxLength: 4 }), (arr, cuts) => {
        const data = Uint8Array.from(arr);
        const points = [...new Set(cuts.map((c) => Math.min(c, data.length)))].sort((a, b) => a - b);
        const chunks: Uint8Array[] = [];
        let prev = 0;
        for (const p of [...points, data.length]) {
          chunks.push(data.subarray(prev, p));
          prev = p;
        }
        const events = parseChunks(chunks, 64);
        expect(events.length).toBeLessThanOrEqual(data.length + 1);
        const printed = events.reduce((n, e) => n + (e[0] === 'print' ? e[1].length : 0), 0);
        expect(printed).toBeLessThanOrEqual(2 * data.length + 1);
        expect(events).toEqual(parseChunks([data], 64));
      }),
      { seed: 20261122, numRuns: 2000 },
    );
  });
});
