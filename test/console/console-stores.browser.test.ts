// The console's first screen on a data folder whose only event log is the flat file (issue 27
// point 5): records generated into the configured flat file, no database ever created. The
// console must open on the flat file (the stores call names it, with records) and offer the
// logs the settings name; before, it opened on the default database and showed error 1200.
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, ROOT, serveConsole, signIn, type ServedConsole } from './served-console.js';

const SHOTS = join(ROOT, 'test-output', 'console-stores');

let served: ServedConsole;
let home: string;
let consoleUrl: string;
let key: string;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

const evio = (args: string[]): Promise<string> => served.evio(args);

beforeAll(async () => {
  served = await serveConsole('console-stores', async (c) => {
    await c.evio(['generate', 'events', '--count', '120', '--seed', '1', '--out', join(c.home, 'events.ndjson')]);
  });
  ({ home, consoleUrl, key } = served);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on('pageerror', (e) => pageErrors.push(e.message));
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await served?.stop();
});

describe('the first screen on a flat file only', () => {
  it('the stores call names the settings\' logs, with whether each exists and has records', async () => {
    const ans = JSON.parse(await evio(['call', 'GET', '/REST/v2.0/events/stores'])) as { status: number; stores: Record<string, unknown>[] };
    expect(ans.status).toBe(0);
    expect(ans.stores.map(({ error: _e, ...s }) => s)).toEqual([
      { format: 'db', file: '', setting: 'eventdb', exists: false, records: false },
      { format: 'ff', file: 'events.ndjson', setting: 'eventlog', exists: true, records: true },
    ]);
    expect(ans.stores[0]!.error).toMatch(/^1200 /);
  });

  for (const width of [1920, 1280, 800]) {
    it(`opens on the flat file, with its records, not on an error (${width} px)`, async () => {
      await page.setViewportSize({ width, height: 800 });
      await page.goto(consoleUrl);
      await page.evaluate('sessionStorage.clear()');
      await page.goto(consoleUrl);
      await page.getByLabel('Key', { exact: true }).fill(key);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForSelector('.results[aria-busy="false"]');
      expect(await page.locator('.results .error').count()).toBe(0);
      expect(await page.locator('.results table.grid tbody tr:not(.details-row)').count()).toBeGreaterThan(0);
      expect(await page.getByLabel('Event log').inputValue()).toBe('ff');
      expect(await page.getByLabel('File, database or DSN').inputValue()).toBe('events.ndjson');
      // The configured logs are offered, each saying what it holds.
      const options = await page.getByLabel('Configured logs').locator('option').allTextContents();
      expect(options).toEqual(['choose…', 'default database — does not exist', 'flat file events.ndjson — has records']);
      expect(await page.evaluate('document.documentElement.scrollWidth <= document.documentElement.clientWidth')).toBe(true);
      await page.screenshot({ path: join(SHOTS, `first-screen-${width}.png`), fullPage: true });
      await page.evaluate('sessionStorage.clear()');
    });
  }

  it('a log chosen in the tab is kept: the picker does not override it', async () => {
    await page.goto(consoleUrl);
    await page.getByLabel('Key', { exact: true }).fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForSelector('.results[aria-busy="false"]');
    await page.getByLabel('Configured logs').selectOption({ label: 'default database — does not exist' });
    expect(await page.getByLabel('Event log').inputValue()).toBe('db');
    expect(await page.getByLabel('File, database or DSN').inputValue()).toBe('');
    await page.getByRole('button', { name: 'Search events' }).click();
    await page.waitForSelector('.results .error');
    await page.reload();
    await page.waitForSelector('.results[aria-busy="false"]');
    expect(await page.getByLabel('Event log').inputValue()).toBe('db');
  });

  it('raised no page error', () => {
    expect(pageErrors).toEqual([]);
  });
});
