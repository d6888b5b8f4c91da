// Totals in answers (docs/api.md, "Numbers"): a sum is kept exactly (BigInt) and answered as a
// JSON number while it is a safe integer (at most 2^53 - 1, what every JSON reader holds
// exactly), past that as a decimal string — never a number a reader would round.

/** `v` as an answer carries it: a number up to 2^53 - 1, a decimal string past it. */
export function exactNumber(v: bigint): number | string {
  return v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(v) : v.toString();
}

/** A running total kept exactly: add whole numbers (or BigInts), read it as exactNumber. */
export class ExactTotal {
  private v = 0n;

  constructor(start: number | string | bigint = 0) {
    this.v = BigInt(start);
  }

  add(n: number | bigint): this {
    this.v += typeof n === 'bigint' ? n : BigInt(Math.trunc(n));
    return this;
  }

  get value(): number | string {
    return exactNumber(this.v);
  }
}
