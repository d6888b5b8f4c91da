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

/** A whole number of 0 or more; values past 2^53 read as 2^53 - 1 (callers clamp anyway). */
export function nonNegativeInt(params: Params, name: string, dflt: number): number {
  const v = single(params, name);
  if (v === undefined || v === '') return dflt;
  if (!/^\d{1,64}$/.test(v)) throw evioError('IOLOG_BAD_NUMBER', `${name}="${v.slice(0, 40)}" is not a whole number of 0 or more`);
  return Math.min(Number(v), Number.MAX_SAFE_INTEGER);
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
