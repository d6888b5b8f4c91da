// The one reader of call parameters, for every use case of both engines and both doors (a URL
// query, `evio call`, CLI flags): one value per name unless a list is allowed, strings only, no
// NUL bytes, a bounded length; flags are 0|1 (true|false also read, as many clients send them);
// whole numbers up to 2^53 - 1, refused past it rather than rounded. Each reader takes the
// registry code its domain answers with, so an event query and an I/O-log call keep their codes.
import { evioError, type ErrorName } from '../errors.js';

export type ParamValue = string | string[] | undefined;
export type Params = Record<string, ParamValue>;

/** Longest value any parameter may have (the HTTP layer bounds query strings further). */
export const MAX_PARAM_LENGTH = 4096;

function checked(name: string, v: unknown): string {
  if (typeof v !== 'string') {
    throw evioError('BAD_PARAMETER_ENCODING', `parameter "${name}" is a ${typeof v}; parameters are strings, as in a query string (${name}: '${String(v).slice(0, 20)}')`);
  }
  if (v.length > MAX_PARAM_LENGTH) throw evioError('BAD_PARAMETER_ENCODING', `parameter "${name}" is longer than ${MAX_PARAM_LENGTH} characters`);
  if (v.includes('\u0000')) throw evioError('BAD_PARAMETER_ENCODING', `parameter "${name}" contains a NUL byte`);
  return v;
}

/** The one value of `name` (a list of one counts as one), or undefined. */
export function single(params: Params, name: string): string | undefined {
  const raw = Object.hasOwn(params, name) ? params[name] : undefined;
  if (raw === undefined) return undefined;
  if (Array.isArray(raw)) {
    if (raw.length > 1) throw evioError('BAD_PARAMETER_ENCODING', `parameter "${name}" is given ${raw.length} times; give it once`);
    return raw.length ? checked(name, raw[0]) : undefined;
  }
  return checked(name, raw);
}

/** A 0|1 flag (also true|false); absent or empty = `dflt`. */
export function flag(params: Params, name: string, dflt: boolean, code: ErrorName): boolean {
  const v = single(params, name);
  if (v === undefined || v === '') return dflt;
  if (v === '1' || v === 'true') return true;
  if (v === '0' || v === 'false') return false;
  throw evioError(code, `${name}="${v.slice(0, 20)}" must be 0 or 1`);
}

/**
 * A whole number of 0 or more, or null when absent. Past 2^53 - 1 a JavaScript number no longer
 * holds every whole number (an offset or recnum would silently become a neighbour): refused
 * with `tooLarge`, unless `max` is given (a length with a documented maximum), which caps it.
 */
export function wholeNumber(params: Params, name: string, codes: { bad: ErrorName; tooLarge: ErrorName }, max?: number): number | null {
  const v = single(params, name);
  if (v === undefined || v === '') return null;
  if (!/^\d+$/.test(v)) throw evioError(codes.bad, `${name}="${v.slice(0, 40)}" is not a whole number of 0 or more`);
  const n = Number(v);
  if (max !== undefined) return Math.min(n, max);
  if (!Number.isSafeInteger(n)) throw evioError(codes.tooLarge, `${name}="${v.slice(0, 40)}" is larger than ${Number.MAX_SAFE_INTEGER} (2^53 - 1), the largest whole number evio holds exactly`);
  return n;
}

/** A required, non-empty value. */
export function required(params: Params, name: string, code: ErrorName): string {
  const v = single(params, name);
  if (v === undefined || v === '') throw evioError(code, `${name} is required`);
  return v;
}

/** Every value of a name that may be repeated (`etype=A&etype=R`), each checked; [] when absent. */
export function values(params: Params, name: string): string[] {
  const raw = Object.hasOwn(params, name) ? params[name] : undefined;
  if (raw === undefined) return [];
  return (Array.isArray(raw) ? raw : [raw]).map((v) => checked(name, v));
}
