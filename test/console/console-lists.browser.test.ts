// Lists say who, when and how long (issue 27 point 4): the session list shows the submitting
// user and host, the run-as user, the command, start, duration, end and exit status, sorts by
// any column (newest first by default) as the list call does; the search narrows by user, host
// and date, shows each hit's session facts and marks the match. Chromium at 1920, 1280, 800 px on
// an evio demo data folder; screenshots under test-output/console-lists/.
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, ROOT, serveConsole, signIn, type ServedConsole } from './served-console.js';

const SHOTS = join(ROOT, 'test-output', 'console-lists');

let served: ServedConsole;
let consoleUrl: string;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

const evio = (args: string[]): Promise<string> => served.evio(args);

beforeAll(async () => {
  served = await serveConsole('console-lists', async (c) => {
    await c.evio(['demo', '--count', '400']);
  });
  ({ consoleUrl } = served);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await signIn(page, served);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await served?.stop();
});

interface Listed {
  logpath: string;
  createtime: number;
  duration: number;
  submituser: string;
  submithost: string;
  runuser: string;
  runhost: string;
  runcmd: string;
  exitstatus: string;
  end_iso: string | null;
  createtime_iso: string;
}

async function apiList(query: string): Promise<Listed[]> {
  return (JSON.parse(await evio(['call', 'GET', `/REST/iolog/list?${query}`])) as { result: Listed[] }).result;
}

async function shownPaths(): Promise<string[]> {
  return page.locator('table.sessions-grid tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-logpath') ?? ''));
}

async function listAnswered(action: () => Promise<void>): Promise<void> {
  const answered = page.waitForResponse((r) => new URL(r.url()).pathname === '/REST/iolog/list');
  await action();
  await answered;
  await page.waitForSelector('.results[aria-busy="false"]');
}

describe('the session list says who, when, how long and how it ended', () => {
  for (const width of [1920, 1280, 800]) {
    it(`newest first, with every column, sortable by any (${width} px)`, async () => {
      await page.setViewportSize({ width, height: 800 });
      await listAnswered(() => page.goto(`${consoleUrl}?view=sessions`).then(() => undefined));
      const heads = (await page.locator('table.sessions-grid thead th').allTextContents()).map((t) => t.replace(/ [▲▼]$/, ''));
      expect(heads).toEqual(['Started', 'Submitted by', 'Run as', 'Command', 'Duration', 'Ended', 'Exit', 'Id', '']);
      expect(await page.locator('th[aria-sort="descending"]').textContent()).toBe('Started ▼');
      const api = await apiList('sort=createtime&order=desc&len=50');
      expect(await shownPaths()).toEqual(api.map((r) => r.logpath));
      // Each row: who, as whom, command, start, duration, end, exit status, from the answer.
      const first = await page.locator('table.sessions-grid tbody tr').first().locator('td').allTextContents();
      const r = api[0]!;
      expect(first.slice(1, 4)).toEqual([`${r.submituser}@${r.submithost}`, `${r.runuser}@${r.runhost}`, r.runcmd]);
      expect(first[4]).toMatch(/^\d+(\.\d s| min \d\d s| h \d\d min \d\d s)$/);
      // Start and end without the zone's offset (it is in the title); the end's day when it is another.
      expect(first[0]).toBe(r.createtime_iso.replace('T', ' ').replace(/([+-]\d\d:\d\d|Z)$/, ''));
      expect(first[5]).toBe(r.end_iso!.slice(0, 10) === r.createtime_iso.slice(0, 10) ? r.end_iso!.slice(11, 19) : r.end_iso!.replace('T', ' ').slice(0, 19));
      expect(first[6]).toMatch(/^(exit \d+|signal \S+|not recorded)$/);
      expect(await page.evaluate('document.documentElement.scrollWidth <= document.documentElement.clientWidth')).toBe(true);
      await page.screenshot({ path: join(SHOTS, `sessions-${width}.png`) });

      // A click on a header sorts by it (longest first), a second click turns the order round.
      await listAnswered(() => page.locator('button[data-sort="duration"]').click());
      expect(await shownPaths()).toEqual((await apiList('sort=duration&order=desc&len=50')).map((x) => x.logpath));
      const ms = await page.locator('table.sessions-grid tbody td[data-ms]').evaluateAll((tds) => tds.map((td) => Number(td.getAttribute('data-ms'))));
      expect(ms).toEqual([...ms].sort((a, b) => b - a));
      await listAnswered(() => page.locator('button[data-sort="duration"]').click());
      expect(await shownPaths()).toEqual((await apiList('sort=duration&order=asc&len=50')).map((x) => x.logpath));
      await listAnswered(() => page.locator('button[data-sort="runuser"]').click());
      expect(await shownPaths()).toEqual((await apiList('sort=runuser&order=asc&len=50')).map((x) => x.logpath));
      expect(new URL(page.url()).searchParams.get('sort')).toBe('runuser');
    });
  }
});

describe('the search narrows by user, host and date, says whose each hit is, and marks the match', () => {
  it('narrowed to one user: only that user\'s sessions, each with its facts, the match marked', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${consoleUrl}?view=search`);
    await page.getByLabel('Pattern').fill('id_rsa');
    const all = JSON.parse(await evio(['call', 'GET', '/REST/iolog/search?file=**&query=output:id_rsa'])) as { iologs: string[] };
    expect(all.iologs.length).toBeGreaterThan(1);
    const owners = new Map<string, Listed>();
    for (const r of await apiList('len=10000')) owners.set(r.logpath, r);
    const user = owners.get(all.iologs[0]!)!.submituser;
    const want = all.iologs.filter((f) => owners.get(f)?.submituser === user);
    expect(want.length).toBeLessThan(all.iologs.length);

    await page.getByLabel('User', { exact: true }).fill(user);
    const answered = page.waitForResponse((r) => new URL(r.url()).pathname === '/REST/iolog/search');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await answered;
    await page.waitForSelector('.results[aria-busy="false"]');
    const files = await page.locator('.hit-group .hit-head code').allTextContents();
    expect(files.sort()).toEqual([...want].sort());
    await expect.poll(() => page.locator('.hit-facts [data-fact="user"]').count()).toBe(want.length);
    const users = await page.locator('.hit-facts [data-fact="user"]').allTextContents();
    for (const u of users) expect(u.startsWith(`${user}@`)).toBe(true);
    const facts = await page.locator('.hit-facts').first().textContent();
    expect(facts).toMatch(/ · \d.* · ended \d{4}-\d\d-\d\d .* · (exit \d+|signal \S+|exit not recorded)$/);
    const marks = await page.locator('.hit-line mark').allTextContents();
    expect(marks.length).toBeGreaterThan(0);
    for (const m of marks) expect(m).toBe('id_rsa');
    expect(new URL(page.url()).searchParams.get('submituser')).toBe(user);
    await page.screenshot({ path: join(SHOTS, 'search-narrowed.png'), fullPage: true });

    // The API narrows the same way: a date range before every session leaves none.
    const none = JSON.parse(await evio(['call', 'GET', '/REST/iolog/search?file=**&query=output:id_rsa&to=2000-01-01'])) as { iologs: string[] };
    expect(none.iologs).toEqual([]);
  });

  it('raised no page error', () => {
    expect(pageErrors).toEqual([]);
  });
});
