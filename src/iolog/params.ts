// Reading request parameters the same way in every I/O-log call (HTTP query or CLI flags):
// one value per name, no NUL bytes, whole numbers where numbers are expected.
import { evioError } from '../errors.js';

export type ParamValue = string | string[] | undefined;
export type Params = Record<string, ParamValue>;

export function single(params: Params, name: string): string | undefined {
  const raw = params[name];
  if (Array.isArray(raw) && raw.length > 1) throw evioError('BAD_PARAMETER_ENCODING', `${name} is given ${raw.length} times; give it once`);
  const v = Array.isArray(raw) ? raw[0] : raw;
  if (v !== undefined && v.includes('\u0000')) throw evioError('BAD_PARAMETER_ENCODING', `${name} contains a NUL byte`);
  return v;
}

/**
 * A whole number of 0 or more. Without `max` it must be at most 2^53 - 1: past it a JavaScript
 * number no longer holds every whole number, and a byte position would silently become a
 * neighbour, so it is refused, not rounded. With `max` (a length with a documented maximum)
 * any larger value reads as `max`: nothing depends on its exact digits.
 */
export function nonNegativeInt(params: Params, name: string, dflt: number, max?: number): number {
  const v = single(params, name);
  if (v === undefined || v === '') return dflt;
  if (!/^\d{1,64}$/.test(v)) throw evioError('IOLOG_BAD_NUMBER', `${name}="${v.slice(0, 40)}" is not a whole number of 0 or more`);
  const n = Number(v);
  if (max !== undefined) return Math.min(n, max);
  if (!Number.isSafeInteger(n)) throw evioError('IOLOG_BAD_NUMBER', `${name}="${v.slice(0, 40)}" is larger than ${Number.MAX_SAFE_INTEGER} (2^53 - 1), the largest whole number evio holds exactly`);
  return n;
}

/** A required, non-empty parameter. */
export function required(params: Params, name: string): string {
  const v = single(params, name);
  if (v === undefined || v === '') throw evioError('IOLOG_PARAMETER_REQUIRED', `${name} is required`);
  return v;
}

/** A 0|1 flag (absent = 0). */
export function flag(params: Params, name: string): boolean {
  const v = single(params, name);
  if (v === undefined || v === '' || v === '0') return false;
  if (v === '1') return true;
  throw evioError('IOLOG_BAD_NUMBER', `${name}="${v.slice(0, 20)}" must be 0 or 1`);
}
