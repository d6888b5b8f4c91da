// User regular expressions run with a time budget. V8 cannot interrupt a RegExp from the same
// thread, but a vm script's `timeout` can (it terminates the running script, RegExp
// included), so lines are tested in batches inside a vm context; a batch past the budget
// fails with IOLOG_REGEX_TIMEOUT instead of stalling the worker. Batching keeps the vm
// overhead (~0.1 ms a call) small per line. A batch budget alone does not bound a request
// (a pattern just under it runs on for every batch of every session), so a call may also
// charge a request-wide RegexBudget and then never gets more time than that has left. A
// matcher is reusable (it keeps no state between calls), so each thread keeps the matchers of
// its last few patterns: creating the vm context costs more than searching a small session.
import { performance } from 'node:perf_hooks';
import { createContext, Script, type Context } from 'node:vm';
import { evioError } from '../errors.js';
import { MATCHER_CACHE_SIZE, REGEX_BATCH_CHARS, REGEX_BATCH_LINES, REGEX_BUDGET_MS, REGEX_MAX_LENGTH } from './limits.js';
import type { RegexBudget } from './request-budget.js';

/**
 * Compiles a user pattern (JavaScript syntax; `flags` '' or 'i', case-insensitive); `errorName`
 * says which parameter it came from.
 */
export function compileUserRegex(source: string, errorName: 'IOLOG_BAD_QUERY' | 'IOLOG_BAD_FILTER', maxLength = REGEX_MAX_LENGTH, flags = ''): RegExp {
  if (source.length > maxLength) throw evioError(errorName, `the regular expression is ${source.length} characters long; the limit is ${maxLength}`);
  if (flags !== '' && flags !== 'i') throw evioError(errorName, `unknown regular expression flags "${flags.slice(0, 10)}" (only i)`);
  try {
    return new RegExp(source, flags);
  } catch (err) {
    throw evioError(errorName, `invalid regular expression: ${(err as Error).message}`);
  }
}

const SCRIPT = new Script(
  'found.length = 0; for (let i = 0; i < lines.length; i++) { if (re.test(lines[i])) { found.push(i); if (firstOnly) break; } }',
  { filename: 'evio-regex-batch' },
);

const NO_LINES: string[] = [];

/** A source without any regex metacharacter or escape: it matches where its text occurs. */
const LITERAL_SOURCE = /^[^\\^$.|?*+()[\]{}]+$/;
const ASCII = /^[\x00-\x7f]*$/;
const ASCII_UPPER = /[A-Z]+/g;

/**
 * `s` with only A-Z lowered: what a non-Unicode /i regex with an ASCII pattern compares against
 * (its case folding never maps a non-ASCII character to an ASCII one, where toLowerCase does:
 * the Kelvin sign to k, İ to i plus a dot).
 */
function asciiLower(s: string): string {
  return ASCII.test(s) ? s.toLowerCase() : s.replace(ASCII_UPPER, (m) => m.toLowerCase());
}

/** Tests lines against one regex, in budgeted batches. */
export class BudgetedMatcher {
  private readonly ctx: Context;
  private readonly sandbox: { re: RegExp; lines: string[]; found: number[]; firstOnly: boolean };
  /**
   * The text of a literal pattern (no flags, or i with an ASCII literal, then lowered): a
   * substring search, linear in the line, cannot backtrack, so it runs without the vm and its
   * watchdog thread. Null for any other pattern.
   */
  private readonly literal: string | null;
  private readonly foldCase: boolean;

  constructor(
    re: RegExp,
    private readonly budgetMs = REGEX_BUDGET_MS,
  ) {
    // A non-global, non-sticky regex keeps no lastIndex state between lines.
    const plain = new RegExp(re.source, re.flags.replace(/[gy]/g, ''));
    const literal = LITERAL_SOURCE.test(plain.source);
    this.foldCase = plain.flags === 'i' && literal && ASCII.test(plain.source);
    this.literal = (plain.flags === '' && literal) || this.foldCase ? (this.foldCase ? plain.source.toLowerCase() : plain.source) : null;
    this.sandbox = { re: plain, lines: [], found: [], firstOnly: false };
    this.ctx = createContext(this.sandbox);
  }

  /**
   * Indexes of the lines that match (only the first when firstOnly). With a request budget,
   * every batch is charged to it and none runs past what it has left.
   */
  test(lines: readonly string[], firstOnly = false, budget?: RegexBudget): number[] {
    if (this.literal !== null) {
      const hits: number[] = [];
      for (let k = 0; k < lines.length; k++) {
        if ((this.foldCase ? asciiLower(lines[k]!) : lines[k]!).includes(this.literal)) {
          hits.push(k);
          if (firstOnly) break;
        }
      }
      return hits;
    }
    const all: number[] = [];
    let i = 0;
    try {
      while (i < lines.length) {
        const base = i;
        let chars = 0;
        while (i < lines.length && i - base < REGEX_BATCH_LINES && (i === base || chars + lines[i]!.length <= REGEX_BATCH_CHARS)) {
          chars += lines[i]!.length;
          i++;
        }
        // The script only reads `lines`: a batch that is all of them needs no copy.
        const batch = base === 0 && i === lines.length ? (lines as string[]) : lines.slice(base, i);
        this.sandbox.lines = batch;
        this.sandbox.firstOnly = firstOnly;
        let timeout = this.budgetMs;
        if (budget) {
          const left = budget.remainingMs();
          if (left <= 0) throw budget.error(this.sandbox.re.source);
          timeout = Math.min(timeout, Math.ceil(left)); // a vm timeout is whole ms, at least 1
        }
        const t0 = performance.now();
        let timedOut = false;
        try {
          SCRIPT.runInContext(this.ctx, { timeout });
        } catch (err) {
          if ((err as { code?: string }).code !== 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw err;
          timedOut = true;
        } finally {
          budget?.charge(performance.now() - t0);
        }
        if (timedOut) {
          if (budget && timeout < this.budgetMs) throw budget.error(this.sandbox.re.source);
          throw evioError('IOLOG_REGEX_TIMEOUT', `the regular expression /${this.sandbox.re.source.slice(0, 100)}/ ran longer than ${this.budgetMs} ms on ${batch.length} line(s); it backtracks catastrophically`);
        }
        for (const k of this.sandbox.found) all.push(base + k);
        if (firstOnly && all.length > 0) return all;
      }
      return all;
    } finally {
      // A cached matcher outlives the call: it must not keep the caller's lines alive.
      this.sandbox.lines = NO_LINES;
      this.sandbox.found.length = 0;
    }
  }
}

// A search runs one pattern over many sessions, one task each: the matcher outlives the task.
const matchers = new Map<string, BudgetedMatcher>();

/**
 * The matcher of a user pattern (compiled as compileUserRegex does), reused from this thread's
 * last MATCHER_CACHE_SIZE patterns. Invalid patterns throw and are not cached.
 */
export function cachedMatcher(source: string, errorName: 'IOLOG_BAD_QUERY' | 'IOLOG_BAD_FILTER', maxLength = REGEX_MAX_LENGTH, flags = ''): BudgetedMatcher {
  const key = `${flags}/${source}`;
  // A pattern over this caller's limit misses, so compileUserRegex refuses it.
  let m = source.length <= maxLength ? matchers.get(key) : undefined;
  if (m) {
    matchers.delete(key); // the most recently used goes last
  } else {
    m = new BudgetedMatcher(compileUserRegex(source, errorName, maxLength, flags));
    if (matchers.size >= MATCHER_CACHE_SIZE) matchers.delete(matchers.keys().next().value!);
  }
  matchers.set(key, m);
  return m;
}
