// A control function as the tokenizer sees it: kind, identifier and canonical parameters.
//
// Canonical parameters apply ECMA-48's defaults, so that `CSI H`, `CSI 1;1 H` and `CSI ;H` are
// the same sequence, as are `CSI C`, `CSI 0 C` and `CSI 1 C`: an omitted (or, in zero-default
// mode, zero) parameter of a function whose default is 1 becomes 1, and functions with a fixed
// arity are padded to it. Both the terminfo strings and the session's bytes pass through this, so
// they compare equal exactly when a terminal would do the same thing.
import { collectToString } from './parser.js';
import type { Params } from './params.js';

export const enum SeqKind {
  /** A C0 control, or a C1 control without a 7-bit ESC form we name. */
  CONTROL = 0,
  ESC = 1,
  CSI = 2,
}

export interface Sequence {
  kind: SeqKind;
  /** CONTROL: the code; ESC/CSI: collect << 8 | final. */
  ident: number;
  params: number[];
}

/** CSI finals (without private marker or intermediates) whose parameters default to 1. */
const DEFAULT_ONE = new Set([...'@ABCDEFGILMPSTXZ`abde'].map((c) => c.charCodeAt(0)));
/** CSI finals with two parameters that default to 1 (CUP, HVP). */
const DEFAULT_ONE_PAIR = new Set([0x48, 0x66]);
const DECSTBM = 0x72;

/** Canonical parameter list of a CSI sequence (a fresh array). */
export function canonicalParams(collect: number, final: number, params: Params): number[] {
  return applyDefaults(collect, final, params.toArray());
}

/** The same canonicalisation for a parameter list already in an array (terminfo probes). */
export function canonicalArray(collect: number, final: number, values: number[]): number[] {
  return applyDefaults(collect, final, values.length ? values.slice() : [0]);
}

/** ECMA-48 defaults applied in place to a fresh parameter list. */
function applyDefaults(collect: number, final: number, out: number[]): number[] {
  if (collect !== 0) return out;
  if (DEFAULT_ONE_PAIR.has(final)) {
    const a = out[0] || 1;
    const b = out.length >= 2 ? out[1] || 1 : 1;
    out[0] = a;
    if (out.length < 2) out.push(b);
    else out[1] = b;
  } else if (DEFAULT_ONE.has(final)) {
    for (let i = 0; i < out.length; i++) if (out[i] === 0) out[i] = 1;
  } else if (final === DECSTBM) {
    if (out[0] === 0) out[0] = 1;
  }
  return out;
}

/** Text form of an identifier: the private marker and intermediates, then the final byte. */
export function identToString(ident: number): string {
  return collectToString(ident);
}
