// Compiles a parsed wildcard (wildcard.ts) to a parameterised SQL predicate for each dialect.
// The pattern always travels as a bound parameter; only fixed syntax is spliced into the SQL.
//   sqlite: GLOB (case-sensitive, code-point `?`, classes with `^`)
//   pg:     LIKE ... ESCAPE '\' when there is no class, else an anchored `~` regular expression
//   like:   generic LIKE ... ESCAPE '\' (ODBC sources); a class cannot be expressed -> null,
//           and the caller finishes that filter in memory.
import type { Wildcard, WildcardToken } from './wildcard.js';

export type SqlDialect = 'sqlite' | 'pg' | 'like';

/** Collects bound parameters and renders the dialect's placeholder for each. */
export class SqlParams {
  readonly values: unknown[] = [];
  constructor(readonly style: 'question' | 'dollar') {}
  bind(v: unknown): string {
    this.values.push(v);
    return this.style === 'dollar' ? `$${this.values.length}` : '?';
  }
}

type ClassTok = Extract<WildcardToken, { t: 'class' }>;

function globLiteral(s: string): string {
  return s.replace(/[*?[]/g, (c) => `[${c}]`);
}

const GLOB_CLASS_SPECIALS = new Set([0x5d /* ] */, 0x2d /* - */, 0x5e /* ^ */]);

/** Splits ranges so that `]`, `-` and `^` never stand where GLOB would read them as syntax. */
function globClass(tok: ClassTok): string | null {
  const singles = new Set<number>();
  const ranges: [number, number][] = [];
  for (const [lo0, hi0] of tok.ranges) {
    let lo = lo0;
    let hi = hi0;
    // Peel specials off both ends until neither end is one: `]` (0x5d) and `^` (0x5e) are
    // neighbours, so one pass per special is not enough (a range ending in `^` would end in `]`).
    while (lo <= hi && GLOB_CLASS_SPECIALS.has(lo)) singles.add(lo++);
    while (lo <= hi && GLOB_CLASS_SPECIALS.has(hi)) singles.add(hi--);
    if (lo > hi) continue;
    if (lo === hi) singles.add(lo);
    else ranges.push([lo, hi]);
  }
  const has = (c: number) => singles.delete(c);
  const close = has(0x5d);
  const dash = has(0x2d);
  const caret = has(0x5e);
  const body: string[] = [];
  if (close) body.push(']');
  for (const c of singles) body.push(String.fromCodePoint(c));
  for (const [lo, hi] of ranges) body.push(`${String.fromCodePoint(lo)}-${String.fromCodePoint(hi)}`);
  if (caret) body.push('^'); // never first: after `]`/others, or handled below
  if (dash) body.push('-');
  if (body.length === 0) return tok.neg ? '?' : null;
  // Without negation a leading `^` would read as one: that happens only for `^` alone (a
  // literal) or `^` with `-` (spelled `[-^]`, a leading dash being literal).
  if (!tok.neg && body[0] === '^') return body.length === 1 ? '^' : '[-^]';
  return `[${tok.neg ? '^' : ''}${body.join('')}]`;
}

function globPattern(tokens: readonly WildcardToken[]): string | null {
  let out = '';
  for (const t of tokens) {
    if (t.t === 'lit') out += globLiteral(t.s);
    else if (t.t === 'one') out += '?';
    else if (t.t === 'star') out += '*';
    else {
      const c = globClass(t);
      if (c === null) return null; // an empty class: nothing matches
      out += c;
    }
  }
  return out;
}

function likeLiteral(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function likePattern(tokens: readonly WildcardToken[]): string | null {
  let out = '';
  for (const t of tokens) {
    if (t.t === 'lit') out += likeLiteral(t.s);
    else if (t.t === 'one') out += '_';
    else if (t.t === 'star') out += '%';
    else return null;
  }
  return out;
}

function hex8(c: number): string {
  return `\\U${c.toString(16).padStart(8, '0')}`;
}

/** PostgreSQL ARE, anchored; every class member is written as a \Uxxxxxxxx character entry. */
function pgRegex(tokens: readonly WildcardToken[]): string | null {
  let out = '^';
  for (const t of tokens) {
    if (t.t === 'lit') {
      for (const ch of t.s) out += /[A-Za-z0-9]/.test(ch) ? ch : hex8(ch.codePointAt(0)!);
    } else if (t.t === 'one') out += '.';
    else if (t.t === 'star') out += '.*';
    else {
      if (t.ranges.length === 0) {
        if (!t.neg) return null;
        out += '.';
        continue;
      }
      out += `[${t.neg ? '^' : ''}${t.ranges.map(([lo, hi]) => (lo === hi ? hex8(lo) : `${hex8(lo)}-${hex8(hi)}`)).join('')}]`;
    }
  }
  return `${out}$`;
}

/**
 * SQL predicate for `column` matching `w`, or null when the dialect cannot express it (the
 * caller then filters in memory). A pattern that can match nothing compiles to a false literal.
 */
export function wildcardSql(w: Wildcard, column: string, dialect: SqlDialect, params: SqlParams): string | null {
  const tokens = encodableTokens(w.tokens);
  if (tokens === null) return '1 = 0';
  if (w.exact !== null) return `${column} = ${params.bind(w.exact)}`;
  if (tokens.length === 1 && tokens[0]!.t === 'star') return `${column} IS NOT NULL`;
  if (dialect === 'sqlite') {
    const g = globPattern(tokens);
    return g === null ? '1 = 0' : `${column} GLOB ${params.bind(g)}`;
  }
  const like = likePattern(tokens);
  if (like !== null) return `${column} LIKE ${params.bind(like)} ESCAPE '\\'`;
  if (dialect === 'like') return null;
  const re = pgRegex(tokens);
  return re === null ? '1 = 0' : `${column} ~ ${params.bind(re)}`;
}

/** With the u flag a string is read by code points, so only unpaired surrogates match. */
const LONE_SURROGATE = /\p{Cs}/u;
const SURROGATE_LO = 0xd800;
const SURROGATE_HI = 0xdfff;

/**
 * Databases hold well-formed text only (a lone surrogate cannot be encoded as UTF-8: a driver
 * would send U+FFFD instead). So a literal holding a lone surrogate can match no stored value
 * (null: the predicate is false), and class ranges lose their surrogate ends, which no stored
 * code point can fall on anyway. The answer on well-formed values is unchanged.
 */
function encodableTokens(tokens: readonly WildcardToken[]): readonly WildcardToken[] | null {
  let changed = false;
  const out: WildcardToken[] = [];
  for (const t of tokens) {
    if (t.t === 'lit') {
      if (LONE_SURROGATE.test(t.s)) return null;
      out.push(t);
    } else if (t.t === 'class') {
      const ranges: (readonly [number, number])[] = [];
      let clamped = false;
      for (const [lo0, hi0] of t.ranges) {
        const lo = lo0 >= SURROGATE_LO && lo0 <= SURROGATE_HI ? SURROGATE_HI + 1 : lo0;
        const hi = hi0 >= SURROGATE_LO && hi0 <= SURROGATE_HI ? SURROGATE_LO - 1 : hi0;
        if (lo !== lo0 || hi !== hi0) clamped = true;
        if (lo <= hi) ranges.push([lo, hi]);
      }
      changed ||= clamped;
      out.push(clamped ? { t: 'class', neg: t.neg, ranges } : t);
    } else {
      out.push(t);
    }
  }
  return changed ? out : tokens;
}

/**
 * A field's alternatives (a repeated parameter) as one predicate: `col IN (...)` when every one
 * is an exact value, else `(a OR b ...)`; null when one of them cannot be expressed (the caller
 * then finishes the whole field in memory).
 */
export function anyWildcardSql(alternatives: readonly Wildcard[], column: string, dialect: SqlDialect, params: SqlParams): string | null {
  if (alternatives.length === 1) return wildcardSql(alternatives[0]!, column, dialect, params);
  if (alternatives.every((w) => w.exact !== null && encodableTokens(w.tokens) !== null)) {
    return `${column} IN (${alternatives.map((w) => params.bind(w.exact)).join(', ')})`;
  }
  // Rendered into a scratch list first: a field left to memory must bind nothing.
  const scratch = new SqlParams(params.style);
  (scratch.values as unknown[]).push(...params.values);
  const parts: string[] = [];
  for (const w of alternatives) {
    const sql = wildcardSql(w, column, dialect, scratch);
    if (sql === null) return null;
    parts.push(sql);
  }
  params.values.push(...scratch.values.slice(params.values.length));
  return `(${parts.join(' OR ')})`;
}
