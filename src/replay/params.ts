// CSI/DCS parameters in typed arrays: no allocation while a sequence is parsed.
//
// ECMA-48 "zero default mode": an omitted parameter reads as 0, and every sequence has at least
// one parameter. Colon sub-parameters (`38:2::255:0:0`) are kept per parameter, an omitted one
// as -1. Limits (32 parameters, 32 sub-parameters, values up to 2^31-1) bound the work a hostile
// sequence can cause; excess digits and parameters are dropped, as xterm.js does.

export const MAX_PARAMS = 32;
export const MAX_SUB_PARAMS = 32;
const MAX_VALUE = 0x7fffffff;

export class Params {
  /** Parameter values; only the first `length` are meaningful. */
  readonly values = new Int32Array(MAX_PARAMS);
  length = 0;
  private readonly subValues = new Int32Array(MAX_SUB_PARAMS);
  private subLength = 0;
  /** Per parameter: start index into subValues << 8 | end index. */
  private readonly subIndex = new Uint16Array(MAX_PARAMS);
  private rejectDigits = false;
  private rejectSubDigits = false;
  private digitIsSub = false;

  reset(): void {
    this.length = 0;
    this.subLength = 0;
    this.rejectDigits = false;
    this.rejectSubDigits = false;
    this.digitIsSub = false;
    this.addParam(0);
  }

  addParam(value: number): void {
    this.digitIsSub = false;
    if (this.length >= MAX_PARAMS) {
      this.rejectDigits = true;
      return;
    }
    this.subIndex[this.length] = (this.subLength << 8) | this.subLength;
    this.values[this.length++] = value > MAX_VALUE ? MAX_VALUE : value;
  }

  addSubParam(value: number): void {
    this.digitIsSub = true;
    if (!this.length) return;
    if (this.rejectDigits || this.subLength >= MAX_SUB_PARAMS) {
      this.rejectSubDigits = true;
      return;
    }
    this.subValues[this.subLength++] = value;
    this.subIndex[this.length - 1]!++;
  }

  addDigit(digit: number): void {
    if (this.rejectDigits) return;
    if (this.digitIsSub) {
      if (this.rejectSubDigits || !this.subLength) return;
      const cur = this.subValues[this.subLength - 1]!;
      this.subValues[this.subLength - 1] = cur === -1 ? digit : Math.min(cur * 10 + digit, MAX_VALUE);
      return;
    }
    if (!this.length) return;
    const cur = this.values[this.length - 1]!;
    this.values[this.length - 1] = Math.min(cur * 10 + digit, MAX_VALUE);
  }

  /** Parameter i, or `fallback` when absent. */
  get(i: number, fallback = 0): number {
    return i < this.length ? this.values[i]! : fallback;
  }

  hasSubParams(i: number): boolean {
    const idx = this.subIndex[i]!;
    return (idx & 0xff) > idx >> 8;
  }

  /** Sub-parameters of parameter i (a fresh array; used off the hot path only). */
  subParams(i: number): number[] {
    const idx = this.subIndex[i]!;
    return Array.from(this.subValues.subarray(idx >> 8, idx & 0xff));
  }

  hasAnySubParams(): boolean {
    return this.subLength > 0;
  }

  /** Top-level values as a plain array. */
  toArray(): number[] {
    const n = this.length;
    const out = new Array<number>(n);
    for (let i = 0; i < n; i++) out[i] = this.values[i]!;
    return out;
  }
}
