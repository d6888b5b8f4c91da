// Deterministic records for the tests that write in a child process and read back in the test:
// record i (from 1) is the same bytes, stream and delay on both sides.
import type { IoStream, TimeSpec } from '../../../src/iolog/writer/types.js';

export interface TestRecord {
  stream: IoStream;
  delay: TimeSpec;
  data: Buffer;
}

/** Record `i` (1-based): mostly ttyout, some ttyin and stdout, 1 byte to ~9 KiB, delays with nanoseconds. */
export function testRecord(i: number): TestRecord {
  let x = (i * 2654435761) >>> 0 || 1;
  const next = () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
  const kind = next() % 10;
  const stream: IoStream = kind < 6 ? 4 : kind < 8 ? 3 : 1;
  const len = 1 + (next() % (stream === 3 ? 4 : 9000));
  const data = Buffer.alloc(len);
  for (let k = 0; k < len; k++) data[k] = next() & 255;
  return { stream, delay: { sec: next() % 3 === 0 ? 1 : 0, nsec: next() % 1_000_000_000 }, data };
}

/** Sum of the delays of records 1..n. */
export function delaySum(n: number): TimeSpec {
  let sec = 0;
  let nsec = 0;
  for (let i = 1; i <= n; i++) {
    const d = testRecord(i).delay;
    sec += d.sec;
    nsec += d.nsec;
    if (nsec >= 1e9) {
      sec++;
      nsec -= 1e9;
    }
  }
  return { sec, nsec };
}
