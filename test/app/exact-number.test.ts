// Totals past 2^53 (issue 28, point 11): a sum of counts or sizes kept as a JS number rounds
// past 2^53 - 1 (2^53 + 1 becomes 2^53); answers carry them exactly: a number while safe, a
// decimal string past it (docs/api.md, "Numbers").
import { describe, expect, it } from 'vitest';
import { exactNumber, ExactTotal } from '../../src/app/exact-number.js';

describe('exact totals', () => {
  it('a sum past 2^53 stays exact and is answered as a decimal string', () => {
    const parts = [2 ** 53 - 1, 1, 1, 1];
    // What a number total gave: 2^53 + 2 is lost (2^53 + 1 rounds to 2^53, and again).
    expect(parts.reduce((a, b) => a + b, 0)).toBe(2 ** 53);
    let t: number | string = 0;
    for (const p of parts) t = new ExactTotal(t).add(p).value;
    expect(t).toBe('9007199254740994');
    expect(JSON.stringify({ bytes: t })).toBe('{"bytes":"9007199254740994"}');
  });

  it('a safe total stays a JSON number; the limit is 2^53 - 1', () => {
    expect(exactNumber(0n)).toBe(0);
    expect(exactNumber(BigInt(Number.MAX_SAFE_INTEGER))).toBe(Number.MAX_SAFE_INTEGER);
    expect(exactNumber(BigInt(Number.MAX_SAFE_INTEGER) + 1n)).toBe('9007199254740992');
    expect(new ExactTotal('18446744073709551615').add(1).value).toBe('18446744073709551616');
  });
});
