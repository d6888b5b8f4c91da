// Shell-wildcard patterns for the uniqueid/user/host/command/exitstatus filters: `*`, `?`,
// `[...]` (with `!` or `^` negation and ranges) and `\` escapes; whole-value, case-sensitive,
// one code point per `?`. One parser builds a token list; the in-memory matcher and the SQL
// compilers (sql-wildcard.ts) are all driven by that list, so they cannot disagree on parsing.
import { evioError } from '../errors.js';

export const MAX_PATTERN_LENGTH = 1024;

/** [lo, hi] code-point ranges; a class matches one code point inside (or, negated, outside) them. */
export type WildcardToken =
  | { readonly t: 'lit'; readonly s: string }
  | { readonly t: 'one' }
  | { readonly t: 'star' }
  | { readonly t: 'class'; readonly neg: boolean; readonly ranges: ReadonlyArray<readonly [number, number]> };

export interface Wildcard {
  readonly source: string;
  readonly tokens: readonly WildcardToken[];
  /** The pattern has no wildcard at all: equality. */
  readonly exact: string | null;
  /** Literal runs every match must contain, longest first (for byte prefilters). */
  readonly literals: readonly string[];
  test(value: string): boolean;
}

function cp(s: string, i: number): number {
  return s.codePointAt(i)!;
}
function cpLen(c: number): number {
  return c > 0xffff ? 2 : 1;
}

/** Parses a class starting after `[` at index i; returns null when it never closes (then `[` is literal). */
function parseClass(p: string, i: number): { tok: WildcardToken; next: number } | null {
  let neg = false;
  if (p[i] === '!' || p[i] === '^') {
    neg = true;
    i++;
  }
  const ranges: [number, number][] = [];
  let first = true;
  while (i < p.length) {
    let c = cp(p, i);
    if (c === 0x5d /* ] */ && !first) {
      return { tok: { t: 'class', neg, ranges: ranges.filter(([lo, hi]) => lo <= hi) }, next: i + 1 };
    }
    first = false;
    if (c === 0x5c /* \ */ && i + 1 < p.length) {
      i++;
      c = cp(p, i);
    }
    i += cpLen(c);
    // A range: `a-b` where b is not the closing bracket.
    if (p[i] === '-' && i + 1 < p.length && p[i + 1] !== ']') {
      i++;
      let hi = cp(p, i);
      if (hi === 0x5c && i + 1 < p.length) {
        i++;
        hi = cp(p, i);
      }
      i += cpLen(hi);
      ranges.push([c, hi]); // reversed ranges are dropped at the end: they match nothing
    } else {
      ranges.push([c, c]);
    }
  }
  return null;
}

export function parseWildcardTokens(pattern: string): WildcardToken[] {
  const out: WildcardToken[] = [];
  let lit = '';
  const flush = () => {
    if (lit) out.push({ t: 'lit', s: lit });
    lit = '';
  };
  let i = 0;
  while (i < pattern.length) {
    const ch = pattern[i]!;
    if (ch === '\\') {
      if (i + 1 < pattern.length) {
        const c = cp(pattern, i + 1);
        lit += String.fromCodePoint(c);
        i += 1 + cpLen(c);
      } else {
        lit += '\\'; // a trailing backslash stands for itself
        i++;
      }
    } else if (ch === '*') {
      flush();
      if (out[out.length - 1]?.t !== 'star') out.push({ t: 'star' });
      i++;
    } else if (ch === '?') {
      flush();
      out.push({ t: 'one' });
      i++;
    } else if (ch === '[') {
      const cls = parseClass(pattern, i + 1);
      if (cls) {
        flush();
        out.push(cls.tok);
        i = cls.next;
      } else {
        lit += '[';
        i++;
      }
    } else {
      const c = cp(pattern, i);
      lit += String.fromCodePoint(c);
      i += cpLen(c);
    }
  }
  flush();
  return out;
}

function classHas(tok: Extract<WildcardToken, { t: 'class' }>, c: number): boolean {
  let inside = false;
  for (const [lo, hi] of tok.ranges) {
    if (c >= lo && c <= hi) {
      inside = true;
      break;
    }
  }
  return inside !== tok.neg;
}

/**
 * Whole-value match in O(len(value) * len(tokens)): the classic greedy matcher that, on a
 * mismatch, retries only from the most recent `*` (every other token matches a fixed length),
 * so no pattern can backtrack exponentially.
 */
export function matchTokens(tokens: readonly WildcardToken[], s: string): boolean {
  let ti = 0;
  let si = 0;
  let starTi = -1;
  let starSi = 0;
  const n = tokens.length;
  for (;;) {
    if (ti < n) {
      const tok = tokens[ti]!;
      if (tok.t === 'star') {
        starTi = ti++;
        starSi = si;
        continue;
      }
      if (si < s.length) {
        if (tok.t === 'lit') {
          if (s.startsWith(tok.s, si)) {
            si += tok.s.length;
            ti++;
            continue;
          }
        } else {
          const c = cp(s, si);
          if (tok.t === 'one' || classHas(tok, c)) {
            si += cpLen(c);
            ti++;
            continue;
          }
        }
      }
    } else if (si === s.length) {
      return true;
    }
    // Mismatch: let the last star swallow one more code point, or fail.
    if (starTi < 0 || starSi >= s.length) return false;
    starSi += cpLen(cp(s, starSi));
    si = starSi;
    ti = starTi + 1;
  }
}

export function compileWildcard(pattern: string, field = 'pattern'): Wildcard {
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw evioError('QUERY_BAD_PATTERN', `${field} is ${pattern.length} characters long; the limit is ${MAX_PATTERN_LENGTH}`);
  }
  if (pattern.includes('\u0000')) {
    throw evioError('QUERY_BAD_PATTERN', `${field} contains a NUL character`);
  }
  const tokens = parseWildcardTokens(pattern);
  const onlyLit = tokens.every((t) => t.t === 'lit');
  const exact = onlyLit ? tokens.map((t) => (t as { s: string }).s).join('') : null;
  const literals = tokens
    .filter((t): t is Extract<WildcardToken, { t: 'lit' }> => t.t === 'lit')
    .map((t) => t.s)
    .sort((a, b) => b.length - a.length);
  let test: (v: string) => boolean;
  if (exact !== null) {
    test = (v) => v === exact;
  } else if (tokens.length === 2 && tokens[0]!.t === 'lit' && tokens[1]!.t === 'star') {
    const pre = (tokens[0] as { s: string }).s;
    test = (v) => v.startsWith(pre);
  } else if (tokens.length === 1 && tokens[0]!.t === 'star') {
    test = () => true;
  } else if (tokens.length === 3 && tokens[0]!.t === 'star' && tokens[1]!.t === 'lit' && tokens[2]!.t === 'star') {
    const mid = (tokens[1] as { s: string }).s;
    test = (v) => v.includes(mid);
  } else {
    test = (v) => matchTokens(tokens, v);
  }
  return { source: pattern, tokens, exact, literals, test };
}
