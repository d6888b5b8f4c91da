// A search's regex time is budgeted per request, not per batch: a pattern that costs well under
// a millisecond a line stays under the batch budget, yet over many lines and sessions it must
// end with 1405 once the request's budget is spent. Meanwhile a chunk of a small session must
// not queue behind the searches' worker tasks. Real HTTP on 127.0.0.1, real files.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/http/server.js';
import { RegexBudget } from '../../src/iolog/request-budget.js';
import { iologPool } from '../../src/worker/pool.js';
import { makeHome, serve, signed, type Answer, type TestHome } from '../http/server/helpers.js';

/** The request budget the test configures (searchBudgetMs). */
const BUDGET_MS = 2000;
/**
 * ^(a|aa)+$ on 20 `a` and a `!` tries every split of the run (fib(20) paths): ~0.25 ms a line
 * on an idle core, so a batch of 512 lines stays far under the 1000 ms batch budget even when
 * the machine is loaded several times over.
 */
const SLOW_LINE = `${'a'.repeat(20)}!`;
/**
 * A name costs ~2.6x a line (22 a's: the backtracking grows like Fibonacci), so that 16 000
 * names take well over the budget even on an idle machine (measured ~2 s with 20 a's, too
 * close to the 2 s budget), while a batch of 512 stays far below the 1000 ms batch budget.
 */
const SLOW_NAME = `${'a'.repeat(22)}!`;
const PATTERN = '^(a|aa)+$';
/** 64 sessions × 500 lines ≈ 8 s of regex time per search: far past the budget. */
const SESSIONS = 64;
const LINES = 500;
/** Names the listing filter tests (≈ 5-10 s of regex time in all, 512 names per batch). */
const NAME_COUNT = 16_000;

let home: TestHome;
let server: RunningServer;
const enc = encodeURIComponent;

function cast(lines: string[]): string {
  const events = lines.map((l, i) => JSON.stringify([0.001 * (i + 1), 'o', `${l}\r\n`]));
  return `${JSON.stringify({ version: 2, width: 80, height: 24 })}\n${events.join('\n')}\n`;
}

const search = (query: string, glob = 'slow/*'): Promise<Answer> => signed(server, 'admin', 'GET', `/REST/iolog/search?file=${enc(glob)}&query=${enc(query)}`);
const chunkOfSmall = (): Promise<Answer> => signed(server, 'admin', 'GET', `/REST/iolog?file=${enc('small.cast')}&start=0&len=100`);

async function timed<T>(p: Promise<T>): Promise<{ value: T; ms: number; end: number }> {
  const t0 = Date.now();
  const value = await p;
  const end = Date.now();
  return { value, ms: end - t0, end };
}

beforeAll(async () => {
  home = makeHome({ workers: 2, interactiveWorkers: 1, searchBudgetMs: BUDGET_MS } as never);
  const iolog = join(home.dir, 'iolog');
  mkdirSync(join(iolog, 'slow'), { recursive: true });
  const body = cast(Array.from({ length: LINES }, () => SLOW_LINE));
  for (let i = 0; i < SESSIONS; i++) writeFileSync(join(iolog, 'slow', `${String(i).padStart(2, '0')}.cast`), body);
  writeFileSync(join(iolog, 'small.cast'), cast(['hello from a small session, about a hundred bytes of output']));
  const names = join(iolog, 'names');
  mkdirSync(names);
  for (let i = 0; i < NAME_COUNT; i++) writeFileSync(join(names, `${SLOW_NAME}${i}`), '');
  server = await serve(home);
}, 120_000);

afterAll(async () => {
  await server?.close();
  await home?.cleanup();
});

function expectBudgetError(a: Answer): void {
  expect({ http: a.http, status: a.body.status }).toEqual({ http: 422, status: 1405 });
  expect(String(a.body.error)).toMatch(/^1405 .*budget of this request/);
}

describe('the regex budget covers the whole search request', () => {
  it('a pattern under the per-batch budget still ends with 1405 once the request budget is spent', async () => {
    const r = await timed(search(`output:${PATTERN}`));
    expectBudgetError(r.value);
    // Every batch is capped by what the request has left, so the answer comes within a few
    // budgets (without the request budget the search runs ~8 s of regex and answers status 0).
    expect(r.ms).toBeLessThan(BUDGET_MS * 4);
    // The pool recovers: a normal search answers.
    const ok = await search('output:hello', '*.cast');
    expect({ status: ok.body.status, iologs: ok.body.iologs }).toEqual({ status: 0, iologs: ['small.cast'] }); // relative to its root (docs/api.md)
  }, 60_000);

  it('the budget is one counter in shared memory: the worker tasks of a request charge it and stop once it is spent', async () => {
    const pool = await iologPool(home.engine);
    const slow = (i: number) => ({ kind: 'asciicast' as const, path: join(home.dir, 'iolog', 'slow', `${String(i).padStart(2, '0')}.cast`) });
    const input = (budget: RegexBudget, sessions: number[]) => ({ sessions: sessions.map(slow), streams: ['ttyout' as const], regex: PATTERN, detail: false, budget: budget.share() });
    const shared = new RegexBudget(60_000);
    const results = await Promise.all([pool.run('searchSessions', input(shared, [0]), undefined), pool.run('searchSessions', input(shared, [1]), undefined)]);
    expect(results.flat().map((r) => r.matched)).toEqual([false, false]);
    // Both threads' regex time (LINES lines of ~0.25 ms each, per session) is seen here.
    expect(shared.usedMs()).toBeGreaterThan(LINES * 0.1 * 2);
    const spent = new RegexBudget(50);
    spent.charge(50);
    const t0 = Date.now();
    await expect(pool.run('searchSessions', input(spent, [2, 3, 4]), undefined)).rejects.toMatchObject({ code: 1405 });
    expect(Date.now() - t0).toBeLessThan(1000); // no batch ran: three sessions would take ~0.4 s
  }, 60_000);

  it('a listing filter is budgeted over all the names, not per batch', async () => {
    const r = await timed(signed(server, 'admin', 'GET', `/REST/iolog?path=names&filter=${enc(PATTERN)}`));
    expectBudgetError(r.value);
    expect(r.ms).toBeLessThan(BUDGET_MS * 3);
  }, 60_000);

  it('a chunk answers quickly while three such searches run', async () => {
    expect((await chunkOfSmall()).body.status).toBe(0); // the interactive thread is up
    const searches = [0, 1, 2].map(() => timed(search(`output:${PATTERN}`)));
    await new Promise((r) => setTimeout(r, 300)); // the searches have queued their tasks
    const c = await timed(chunkOfSmall());
    const done = await Promise.all(searches);
    expect(c.value.body.status).toBe(0);
    expect(c.value.body.bytes).toBeGreaterThan(50);
    // Far less than one search budget, and before any of the searches ends.
    expect(c.ms).toBeLessThan(BUDGET_MS / 2);
    expect(c.end).toBeLessThan(Math.min(...done.map((d) => d.end)));
    for (const d of done) {
      expectBudgetError(d.value);
      expect(d.ms).toBeLessThan(BUDGET_MS * 6); // three budgets spent on 2 threads, plus slack
    }
  }, 120_000);
});
