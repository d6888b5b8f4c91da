// The frame reader joins frames split anywhere and hands out exactly the messages sent, as
// pg-protocol's parser is tested: every split offset, several frames per chunk, fuzzed chunking.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeFrame, FrameReader, MAX_FRAME_BYTES } from '../../src/logsrvd/frames.js';
import { decodeClientMessage, encodeClientMessage, type ClientMessage } from '../../src/logsrvd/messages.js';

/** The frames read from `chunks`, as hex (a cheap exact comparison). */
function framesOf(chunks: Uint8Array[]): string[] {
  const r = new FrameReader();
  const out: string[] = [];
  for (const c of chunks) r.push(c, (f) => out.push(f.toString('hex')));
  if (r.pending !== 0) out.push(`pending ${r.pending}`);
  return out;
}

const messages: ClientMessage[] = [
  { type: 'hello', clientId: 'sudoers 1.9.13p3' },
  {
    type: 'accept',
    submitTime: { sec: 1795315546, nsec: 219578691 },
    info: new Map<string, string | number | string[]>([
      ['command', '/usr/bin/ls'],
      ['runargv', ['ls', '-la', '']],
      ['lines', 24],
      ['submituser', 'root'],
    ]),
    expectIobufs: true,
  },
  { type: 'io', stream: 4, delay: { sec: 0, nsec: 167465 }, data: Buffer.from('hello\r\n') },
  { type: 'io', stream: 3, delay: { sec: 1, nsec: 0 }, data: Buffer.alloc(300, 0x61) },
  { type: 'winsize', delay: { sec: 0, nsec: 5 }, rows: 30, cols: 100 },
  { type: 'exit', runTime: { sec: 3, nsec: 1 }, exitValue: 0, dumpedCore: false, signal: '', error: '' },
];
const wire = Buffer.concat(messages.map((m) => encodeFrame(encodeClientMessage(m))));
const expected = messages.map((m) => Buffer.from(encodeClientMessage(m)).toString('hex'));

describe('FrameReader', () => {
  it('reads frames delivered whole, one chunk for all', () => {
    expect(framesOf([wire])).toEqual(expected);
  });

  it('reads the same frames with the stream split at every offset', () => {
    for (let i = 0; i <= wire.length; i++) {
      expect(framesOf([wire.subarray(0, i), wire.subarray(i)])).toEqual(expected);
    }
  });

  it('reads the same frames split at two offsets (front, middle, end of every frame)', () => {
    const step = 5;
    for (let i = 0; i <= wire.length; i += step) {
      for (let j = i; j <= wire.length; j += step) {
        expect(framesOf([wire.subarray(0, i), wire.subarray(i, j), wire.subarray(j)])).toEqual(expected);
      }
    }
  });

  it('reads the same frames one byte at a time', () => {
    const bytes = [...wire].map((b) => Uint8Array.of(b));
    expect(framesOf(bytes)).toEqual(expected);
  });

  it('reads the same frames under any chunking (fuzzed)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: wire.length }), { maxLength: 40 }), (cuts) => {
        const points = [...new Set(cuts)].sort((a, b) => a - b);
        const chunks: Uint8Array[] = [];
        let at = 0;
        for (const p of points) {
          chunks.push(wire.subarray(at, p));
          at = p;
        }
        chunks.push(wire.subarray(at));
        expect(framesOf(chunks)).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('decodes what it frames back into the messages sent', () => {
    const got = framesOf([wire]).map((f) => decodeClientMessage(Buffer.from(f, 'hex')));
    expect(got.map((m) => m.type)).toEqual(messages.map((m) => m.type));
    const accept = got[1] as Extract<ClientMessage, { type: 'accept' }>;
    expect(accept.submitTime).toEqual({ sec: 1795315546, nsec: 219578691 });
    expect(accept.info.get('runargv')).toEqual(['ls', '-la', '']);
    expect(accept.info.get('lines')).toBe(24);
    const io = got[3] as Extract<ClientMessage, { type: 'io' }>;
    expect(io.stream).toBe(3);
    expect(Buffer.from(io.data)).toEqual(Buffer.alloc(300, 0x61));
  });

  it('refuses a length above 2 MiB and a length of 0 before reading their bodies', () => {
    const big = Buffer.alloc(4);
    big.writeUInt32BE(MAX_FRAME_BYTES + 1);
    expect(() => new FrameReader().push(big, () => {})).toThrow(/^1800 .*larger than 2097152/);
    expect(() => new FrameReader().push(Buffer.alloc(4), () => {})).toThrow(/^1800 .*length 0/);
    // Exactly 2 MiB is allowed.
    const r = new FrameReader();
    const head = Buffer.alloc(4);
    head.writeUInt32BE(MAX_FRAME_BYTES);
    r.push(head, () => {});
    expect(r.pending).toBe(4);
  });

  it('holds no buffer once shrunk between messages', () => {
    const r = new FrameReader();
    r.push(wire, () => {});
    r.shrink();
    expect(r.pending).toBe(0);
    expect(framesOf([wire])).toEqual(expected);
  });
});

describe('client messages', () => {
  it('keeps int64 seconds exact and refuses those past 2^53', () => {
    const ok = decodeClientMessage(encodeClientMessage({ type: 'restart', logId: 'x', resumePoint: { sec: 2 ** 53 - 1, nsec: 999_999_999 } }));
    expect(ok).toEqual({ type: 'restart', logId: 'x', resumePoint: { sec: 2 ** 53 - 1, nsec: 999_999_999 } });
    // 2^53 + 1 encoded by hand: field 4 (restart_msg), resume_point (2) { tv_sec (1) varint }.
    const varint = (n: bigint) => {
      const out: number[] = [];
      while (n >= 0x80n) {
        out.push(Number(n & 0x7fn) | 0x80);
        n >>= 7n;
      }
      out.push(Number(n));
      return out;
    };
    const sec = [0x08, ...varint(2n ** 53n + 1n)];
    const point = [0x12, sec.length, ...sec];
    const restart = [0x22, point.length, ...point];
    expect(() => decodeClientMessage(Uint8Array.from(restart))).toThrow(/^1801 .*tv_sec 9007199254740993/);
  });

  it('refuses garbage, an empty message and an unknown field with 1801', () => {
    expect(() => decodeClientMessage(Uint8Array.from([0xff, 0xff, 0xff]))).toThrow(/^1801 /);
    expect(() => decodeClientMessage(new Uint8Array(0))).toThrow(/^1801 .*no known type/);
    expect(() => decodeClientMessage(Uint8Array.from([0xa2, 0x06, 0x00]))).toThrow(/^1801 /); // field 100
  });

  it('never throws anything but a coded error on fuzzed bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        try {
          decodeClientMessage(bytes);
        } catch (err) {
          expect((err as Error).message).toMatch(/^1801 /);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
