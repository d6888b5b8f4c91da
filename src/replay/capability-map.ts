// The reverse lookup from control sequences to terminfo capability names, built from one entry.
//
// Each output capability string is instantiated twice with different probe arguments (tparm) and
// parsed with our own parser. Parameters equal in both runs are fixed; a parameter that follows an
// argument (probe value plus a small offset, e.g. +1 from %i) is a variable bound to that argument.
// The result is a pattern per capability: one or more sequences of fixed or variable parameters.
// A capability whose output contains text, strings (OSC/DCS) or whose structure depends on the
// arguments is left out. Lookups then go: exact sequence (all parameters fixed), then shape
// (identifier and parameter count) for parameterised capabilities, then the first sequence of a
// multi-sequence capability used alone.
import type { Params } from './params.js';
import { Parser, type ParserHandler } from './parser.js';
import { canonicalArray, SeqKind, type Sequence } from './sequence.js';
import type { TerminfoEntry } from './terminfo.js';
import { tparm } from './tparm.js';

/**
 * A parameter of a pattern: with `arg` < 0 the fixed value `value`; otherwise argument `arg`
 * (0-based) plus the offset `value`. (One object shape keeps the matching loop monomorphic.)
 */
export interface ParamPattern {
  arg: number;
  value: number;
}

export interface SeqPattern {
  kind: SeqKind;
  ident: number;
  params: ParamPattern[];
}

export interface CapPattern {
  /** Token name: the capability name, with the renames of REPORTED_NAMES applied. */
  name: string;
  /** The terminfo capability name. */
  cap: string;
  seqs: SeqPattern[];
  /** Number of arguments (the token's values), 0 for none. */
  arity: number;
  /** The shared token item of a capability without arguments (made on first use). */
  token?: Readonly<{ type: 'token'; name: string }>;
}

/** Capabilities reported under another name (the names the REST API documents). */
export const REPORTED_NAMES: Readonly<Record<string, string>> = { hpa: 'absx', ht: 'htab' };

/**
 * When several capabilities produce the same sequence, the earlier one in this list names it; the
 * rest keep the order of the entry. (xterm: ind and cud1 are both "\n"; screen: ri and cuu1 "\EM".)
 */
const PREFERENCE = [
  'nel', 'ind', 'ri', 'cr', 'bel', 'ht', 'cub1', 'cuf1', 'cuu1', 'cud1', 'home', 'clear', 'el', 'el1', 'ed',
  'cup', 'hpa', 'vpa', 'csr', 'smcup', 'rmcup', 'sc', 'rc', 'smacs', 'rmacs', 'civis', 'cnorm', 'cvvis',
  'smkx', 'rmkx', 'smam', 'rmam', 'smir', 'rmir', 'ich1', 'ich', 'dch1', 'dch', 'il1', 'il', 'dl1', 'dl',
];

/**
 * Multi-sequence capabilities whose first sequence alone still does what the capability means
 * (applications often send just `CSI ?1049h` for smcup): that sequence alone takes the name.
 */
const NAMED_ALONE = new Set(['smcup', 'rmcup', 'civis', 'cnorm', 'cvvis', 'smkx', 'rmkx']);

/** Capabilities that are not output a program sends while running (keys, init strings, input formats). */
function excluded(cap: string): boolean {
  if (cap.startsWith('k')) return true;
  if (/^(is[123]|rs[123]|if|rf|iprog|init|acsc|pfkey|pfloc|pfx|pfxl|pln|rep|u[0-9]|lf(10|[0-9])|PS|PE|xm|kmous|OT.*|box1)$/.test(cap)) return true;
  return false;
}

const PROBE_A = [1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000];
const PROBE_B = [1100, 2200, 3300, 4400, 5500, 6600, 7700, 8800, 9900];

/** Parses a capability's output into sequences; null when it is not made of plain controls. */
function sequencesOf(bytes: string): Sequence[] | null {
  const seqs: Sequence[] = [];
  let plain = true;
  const handler: ParserHandler = {
    print() {
      plain = false;
    },
    printAscii() {
      plain = false;
    },
    printRunEnd() {},
    execute(code) {
      seqs.push(c1AsEsc(code) ?? { kind: SeqKind.CONTROL, ident: code, params: [] });
    },
    csi(params: Params, collect, final) {
      seqs.push({ kind: SeqKind.CSI, ident: (collect << 8) | final, params: params.toArray() });
    },
    esc(collect, final) {
      seqs.push({ kind: SeqKind.ESC, ident: (collect << 8) | final, params: [] });
    },
    osc() {
      plain = false;
    },
    dcs() {
      plain = false;
    },
    str() {
      plain = false;
    },
  };
  const parser = new Parser(handler, { maxStringLength: 0 });
  const data = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) data[i] = bytes.charCodeAt(i) & 0xff;
  parser.write(data);
  if (!parser.idle || !plain || seqs.length === 0) return null;
  return seqs;
}

/** A C1 control that has a 7-bit form (ESC Fe) reads as that ESC sequence. */
export function c1AsEsc(code: number): Sequence | null {
  if (code >= 0x80 && code <= 0x9f) return { kind: SeqKind.ESC, ident: code - 0x40, params: [] };
  return null;
}

function canonical(seq: Sequence): number[] {
  return seq.kind === SeqKind.CSI ? canonicalArray(seq.ident >> 8, seq.ident & 0xff, seq.params) : seq.params;
}

/** The pattern of one capability string, or null if it cannot be matched by shape. */
export function capabilityPattern(cap: string, value: string): CapPattern | null {
  const a = sequencesOf(tparm(value, ...PROBE_A));
  const b = sequencesOf(tparm(value, ...PROBE_B));
  if (!a || !b || a.length !== b.length) return null;
  const seqs: SeqPattern[] = [];
  let arity = 0;
  for (let s = 0; s < a.length; s++) {
    const sa = a[s]!;
    const sb = b[s]!;
    if (sa.kind !== sb.kind || sa.ident !== sb.ident || sa.params.length !== sb.params.length) return null;
    const ca = canonical(sa);
    const cb = canonical(sb);
    const params: ParamPattern[] = [];
    for (let i = 0; i < ca.length; i++) {
      const va = ca[i]!;
      const vb = cb[i]!;
      if (va === vb) {
        params.push({ arg: -1, value: va });
        continue;
      }
      const arg = Math.round(va / 1000) - 1;
      const offset = va - (PROBE_A[arg] ?? NaN);
      if (arg < 0 || arg > 8 || Math.abs(offset) > 9 || vb - PROBE_B[arg]! !== offset) return null;
      params.push({ arg, value: offset });
      arity = Math.max(arity, arg + 1);
    }
    seqs.push({ kind: sa.kind, ident: sa.ident, params });
  }
  return { name: REPORTED_NAMES[cap] ?? cap, cap, seqs, arity };
}

/** Matches a sequence against a pattern; the bound arguments go into `args`. */
export function matchSeq(p: SeqPattern, seq: Sequence, params: readonly number[], args: number[]): boolean {
  if (p.kind !== seq.kind || p.ident !== seq.ident || p.params.length !== params.length) return false;
  for (let i = 0; i < params.length; i++) {
    const pp = p.params[i]!;
    const v = params[i]!;
    if (pp.arg < 0) {
      if (pp.value !== v) return false;
    } else {
      const arg = v - pp.value;
      if (arg < 0) return false;
      args[pp.arg] = arg;
    }
  }
  return true;
}

/** The capabilities whose (first) sequence has one kind and identifier. */
interface IdentCaps {
  /** Single-sequence capabilities with every parameter fixed, by their parameters. */
  exact: Map<number | string, CapPattern>;
  /** Single-sequence capabilities with variables, by parameter count. */
  shapes: Map<number, CapPattern[]>;
  /** Multi-sequence capabilities named by their first sequence alone (NAMED_ALONE). */
  alone: Map<number | string, CapPattern>;
}

export class CapabilityMap {
  private readonly byIdent = new Map<number, IdentCaps>();
  /** Multi-sequence capabilities by the kind and identifier of their first sequence. */
  private readonly multiByFirst = new Map<number, CapPattern[]>();
  /** Whether the entry has SGR capabilities (sgr0 or sgr): then CSI m is named sgr/sgr0. */
  readonly hasSgr: boolean;

  constructor(readonly entry: TerminfoEntry) {
    const caps = Object.keys(entry.strings).filter((c) => !excluded(c));
    const rank = (c: string): number => {
      const i = PREFERENCE.indexOf(c);
      return i < 0 ? PREFERENCE.length : i;
    };
    caps.sort((x, y) => rank(x) - rank(y));
    this.hasSgr = 'sgr0' in entry.strings || 'sgr' in entry.strings;
    const multi: CapPattern[] = [];
    const addMulti = (p: CapPattern): void => {
      const same = (q: CapPattern): boolean => JSON.stringify(q.seqs) === JSON.stringify(p.seqs);
      if (!multi.some(same)) multi.push(p);
    };
    for (const cap of caps) {
      if (cap === 'sgr') continue; // its nine boolean arguments never match by shape; CSI m is sgr
      const pattern = capabilityPattern(cap, entry.strings[cap]!);
      if (!pattern) continue;
      // With SGR capabilities, every CSI m is sgr/sgr0: bold, smso, setaf ... are never reported.
      if (this.hasSgr && pattern.seqs.length === 1 && pattern.seqs[0]!.kind === SeqKind.CSI && pattern.seqs[0]!.ident === 0x6d) continue;
      if (pattern.seqs.length > 1) addMulti(pattern);
      else this.addSingle(pattern);
    }
    // CR LF is a newline on every terminal, whatever the entry calls "nel".
    addMulti({ name: 'nel', cap: 'nel', arity: 0, seqs: [ctrlPattern(0x0d), ctrlPattern(0x0a)] });
    for (const p of multi) {
      const first = p.seqs[0]!;
      const k = seqKey(first.kind, first.ident);
      const list = this.multiByFirst.get(k) ?? [];
      list.push(p);
      this.multiByFirst.set(k, list);
      if (NAMED_ALONE.has(p.cap) && first.params.every((q) => q.arg < 0)) {
        const caps = this.identCaps(k);
        const key = paramsKey(fixedValues(first));
        if (!caps.exact.has(key) && !caps.alone.has(key)) caps.alone.set(key, p);
      }
    }
  }

  private identCaps(k: number): IdentCaps {
    let c = this.byIdent.get(k);
    if (!c) {
      c = { exact: new Map(), shapes: new Map(), alone: new Map() };
      this.byIdent.set(k, c);
    }
    return c;
  }

  private addSingle(p: CapPattern): void {
    const seq = p.seqs[0]!;
    const caps = this.identCaps(seqKey(seq.kind, seq.ident));
    if (seq.params.every((q) => q.arg < 0)) {
      const key = paramsKey(fixedValues(seq));
      if (!caps.exact.has(key)) caps.exact.set(key, p);
    } else {
      const list = caps.shapes.get(seq.params.length) ?? [];
      list.push(p);
      caps.shapes.set(seq.params.length, list);
    }
  }

  /**
   * The single-sequence capability naming `seq` (exact, then by shape, then a multi-sequence
   * capability's first sequence alone), with its arguments written into `args`; or null.
   */
  find(seq: Sequence, args: number[]): CapPattern | null {
    const caps = this.byIdent.get(seqKey(seq.kind, seq.ident));
    if (!caps) return null;
    const key = paramsKey(seq.params);
    const exact = caps.exact.get(key);
    if (exact) return exact;
    const shapes = caps.shapes.get(seq.params.length);
    if (shapes) {
      for (const cap of shapes) {
        for (let i = 0; i < cap.arity; i++) args[i] = 0;
        if (matchSeq(cap.seqs[0]!, seq, seq.params, args)) return cap;
      }
    }
    return caps.alone.get(key) ?? null;
  }

  /** Multi-sequence capabilities a sequence with this kind and identifier could begin. */
  multiStartingWith(seq: Sequence): CapPattern[] | undefined {
    return this.multiByFirst.get(seqKey(seq.kind, seq.ident));
  }

  /** Every capability pattern (for documentation and tests). */
  patterns(): CapPattern[] {
    const out: CapPattern[] = [];
    for (const c of this.byIdent.values()) {
      out.push(...c.exact.values());
      for (const l of c.shapes.values()) out.push(...l);
    }
    for (const l of this.multiByFirst.values()) out.push(...l);
    return out;
  }
}

function fixedValues(seq: SeqPattern): number[] {
  return seq.params.map((q) => (q.arg < 0 ? q.value : 0));
}

/** A map key for a parameter list: a number for up to three small values, else text. */
function paramsKey(params: readonly number[]): number | string {
  const n = params.length;
  if (n <= 3) {
    let key = n;
    let mul = 4;
    let ok = true;
    for (let i = 0; i < n; i++) {
      const v = params[i]!;
      if (v < 0 || v >= 65536) {
        ok = false;
        break;
      }
      key += v * mul;
      mul *= 65536;
    }
    if (ok) return key;
  }
  return params.join(';');
}

/** A number naming a kind and identifier (identifiers take up to 32 bits). */
function seqKey(kind: SeqKind, ident: number): number {
  return (ident >>> 0) * 4 + kind;
}

function ctrlPattern(code: number): SeqPattern {
  return { kind: SeqKind.CONTROL, ident: code, params: [] };
}
