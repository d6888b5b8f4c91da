// The console's first screen on a data folder whose only event log is the flat file (issue 27
// point 5): records generated into the configured flat file, no database ever created. The
// console must open on the flat file (the stores call names it, with records) and offer the
// logs the settings name; before, it opened on the default database and showed error 1200.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const EVIO = join(ROOT, 'bin/evio.js');
const SHOTS = join(ROOT, 'test-output', 'console-stores');
const CHROMIUM = '/usr/bin/chromium';

let dir: string;
let home: string;
let serve: ChildProcess | null = null;
let serveOut = '';
let consoleUrl: string;
let key: string;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

async function evio(args: string[]): Promise<string> {
  const r = await run(process.execPath, [EVIO, ...args], { env: { PATH: process.env.PATH ?? '', EVIO_HOME: home }, timeout: 120_000, maxBuffer: 64 << 20 });
  return r.stdout;
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium`);
  if (!existsSync(join(ROOT, 'dist', 'console', 'index.html'))) throw new Error('dist/console is missing: npm run build');
  rmSync(SHOTS, { recursive: true, force: true });
  mkdirSync(SHOTS, { recursive: true });
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'evio-console-stores-')));
  home = join(dir, 'data');
  mkdirSync(home, { recursive: true });
  await evio(['generate', 'events', '--count', '120', '--seed', '1', '--out', join(home, 'events.ndjson')]);
  serve = spawn(process.execPath, [EVIO, 'serve', '--host', '127.0.0.1', '--port', '0'], { env: { PATH: process.env.PATH ?? '', EVIO_HOME: home }, stdio: ['ignore', 'pipe', 'ignore'] });
  serve.stdout!.on('data', (c: Buffer) => (serveOut += c.toString()));
  const end = Date.now() + 30_000;
  while (!/^Console: (\S+)/m.test(serveOut)) {
    if (Date.now() > end || serve.exitCode !== null) throw new Error(`evio serve did not start: ${serveOut}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  consoleUrl = /^Console: (\S+)/m.exec(serveOut)![1]!;
  key = readFileSync(/with the key in (\S+)\)/.exec(serveOut)![1]!, 'utf8').trim();
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on('pageerror', (e) => pageErrors.push(e.message));
}, 180_000);

afterAll(async () => {
  await browser?.close();
  if (serve && serve.exitCode === null) {
    const exited = new Promise((r) => serve!.once('exit', r));
    serve.kill('SIGTERM');
    await exited;
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the first screen on a flat file only', () => {
  it('the stores call names the settings\' logs, with whether each exists and has records', async () => {
    const ans = JSON.parse(await evio(['call', 'GET', '/REST/v2.0/events/stores'])) as { status: number; stores: Record<string, unknown>[] };
    expect(ans.status).toBe(0);
    expect(ans.stores.map(({ error: _e, ...s }) => s)).toEqual([
      { format: 'db', file: '', setting: 'eventdb', exists: false, records: false },
      { format: 'ff', file: join(home, 'events.ndjson'), setting: 'eventlog', exists: true, records: true },
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
      expect(await page.getByLabel('File, database or DSN').inputValue()).toBe(join(home, 'events.ndjson'));
      // The configured logs are offered, each saying what it holds.
      const options = await page.getByLabel('Configured logs').locator('option').allTextContents();
      expect(options).toEqual(['choose…', 'default database — does not exist', `flat file ${join(home, 'events.ndjson')} — has records`]);
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
