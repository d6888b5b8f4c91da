// The I/O-log calls' parameters, read by the common reader (src/common/params.ts) with the
// I/O-log registry codes.
import { flag as readFlag, required as readRequired, wholeNumber, type Params } from '../common/params.js';

export { single, values, type Params, type ParamValue } from '../common/params.js';

const NUMBER_CODES = { bad: 'IOLOG_BAD_NUMBER', tooLarge: 'IOLOG_BAD_NUMBER' } as const;

/** A whole number of 0 or more (see wholeNumber); `max` caps a length with a documented maximum. */
export function nonNegativeInt(params: Params, name: string, dflt: number, max?: number): number {
  return wholeNumber(params, name, NUMBER_CODES, max) ?? dflt;
}

export function required(params: Params, name: string): string {
  return readRequired(params, name, 'IOLOG_PARAMETER_REQUIRED');
}

/** A 0|1 flag (also true|false), absent = 0. */
export function flag(params: Params, name: string): boolean {
  return readFlag(params, name, false, 'IOLOG_BAD_NUMBER');
}
