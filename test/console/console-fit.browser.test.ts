// The player fits the window (issue 27 point 3) and the session page's downloads (point 9):
// chromium at 1920, 1280 and 800 px wide, sessions of 80, 132 and 200 columns. Measured in the
// page: the page never scrolls sideways, the whole terminal shows, the controls are on screen,
// nothing moved while the page loaded (the layout-shift entries chromium reports) and the page
// did not scroll by itself. Screenshots under test-output/console-fit/.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, ROOT, serveConsole, signIn, type ServedConsole } from './served-console.js';

const SHOTS = join(ROOT, 'test-output', 'console-fit');

let served: ServedConsole;
let home: string;
let consoleUrl: string;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

const evio = (args: string[]): Promise<string> => served.evio(args);

/** A session `cols` wide whose every row is filled to the last column (the last characters say the width). */
function wideSession(cols: number): string {
  const d = join(home, 'iolog', 'wide', `c${cols}`);
  mkdirSync(d, { recursive: true });
  const lines = Array.from({ length: 30 }, (_, i) => {
    const tail = `|${i}:end${cols}`;
    return `${`row ${i} `.padEnd(cols - tail.length, '=')}${tail}`;
  });
  const out = lines.map((l) => `${l}\r\n`).join('');
  writeFileSync(join(d, 'ttyout'), out);
  writeFileSync(join(d, 'timing'), lines.map((l) => `4 0.100000 ${l.length + 2}\n`).join(''));
  writeFileSync(join(d, 'log.json'), JSON.stringify({ timestamp: { seconds: 1767225600, nanoseconds: 0 }, submituser: 'alice', submithost: 'web01', runuser: 'root', runhost: 'web01', command: '/usr/bin/cat', runargv: ['cat', `wide${cols}.txt`], lines: 24, columns: cols }));
  return d;
}

/** What the page's code sees, as far as these tests need (this file has no DOM types). */
interface BrowserGlobals {
  document: {
    getElementById(id: string): { dataset: Record<string, string | undefined> } | null;
    querySelector(sel: string): { dataset: Record<string, string | undefined> } | null;
    fullscreenElement: { classList: { contains(c: string): boolean } } | null;
  };
  evioPlayer?: unknown;
}

interface Measure {
  pageScrollWidth: number;
  pageClientWidth: number;
  scrollY: number;
  wrapScrollWidth: number;
  wrapClientWidth: number;
  controlsBottom: number;
  controlsTop: number;
  innerHeight: number;
  innerWidth: number;
  layoutShift: number;
  fontSize: number;
  cols: number;
  screenWidth: number;
  screenHeight: number;
}

/** Measured in the page (browser code as text: this file has no DOM types). */
async function measure(): Promise<Measure> {
  return page.evaluate(`(async () => {
    await window.evioPlayer.whenIdle();
    const wrap = document.querySelector('.term-wrap');
    const controls = document.querySelector('.controls').getBoundingClientRect();
    const screen = document.querySelector('.xterm-screen');
    return {
      pageScrollWidth: document.documentElement.scrollWidth,
      pageClientWidth: document.documentElement.clientWidth,
      scrollY: window.scrollY,
      wrapScrollWidth: wrap.scrollWidth,
      wrapClientWidth: wrap.clientWidth,
      controlsBottom: controls.bottom,
      controlsTop: controls.top,
      innerHeight: window.innerHeight,
      innerWidth: window.innerWidth,
      layoutShift: window.evioShifts.reduce((s, e) => s + e, 0),
      fontSize: Number(wrap.dataset.fontSize),
      cols: window.evioPlayer.term.cols,
      screenWidth: screen.offsetWidth,
      screenHeight: screen.offsetHeight,
    };
  })()`);
}

async function openSession(file: string, at = 3): Promise<void> {
  await page.goto(`${consoleUrl}?view=session&file=${encodeURIComponent(file)}#t=${at}`);
  await page.waitForFunction(() => {
    const g = globalThis as unknown as BrowserGlobals;
    const t = g.document.getElementById('terminal');
    return !!g.evioPlayer && !!t && !!t.dataset.state && t.dataset.state !== 'seeking' && !!g.document.querySelector('.term-wrap')?.dataset.fontSize;
  });
  // The answers that fill the page (commands, events) have come in.
  await page.waitForSelector('.session-events p, .session-events .error');
  await page.waitForSelector('.markers-list li');
}

beforeAll(async () => {
  served = await serveConsole('console-fit', async (c) => {
    await c.evio(['demo', '--count', '200']);
  });
  ({ home, consoleUrl } = served);
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
  // Every layout shift chromium reports, from the first paint on.
  await context.addInitScript(`window.evioShifts = []; new PerformanceObserver((l) => { for (const e of l.getEntries()) if (!e.hadRecentInput) window.evioShifts.push(e.value); }).observe({ type: 'layout-shift', buffered: true });`);
  page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await signIn(page, served);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await served?.stop();
});

describe('the player fits the window', () => {
  const sizes = [
    [1920, 1080],
    [1280, 800],
    [800, 800],
  ] as const;
  for (const cols of [80, 132, 200]) {
    for (const [width, height] of sizes) {
      it(`${cols} columns at ${width}×${height}: the whole terminal shows, the page does not scroll sideways, the controls are on screen, nothing moves on load`, async () => {
        const file = wideSession(cols);
        await page.setViewportSize({ width, height });
        await openSession(file);
        const m = await measure();
        await page.screenshot({ path: join(SHOTS, `${String(width)}-${String(cols)}cols.png`) });
        expect(m.cols).toBe(cols);
        expect(m.pageScrollWidth).toBeLessThanOrEqual(m.pageClientWidth);
        expect(m.wrapScrollWidth).toBeLessThanOrEqual(m.wrapClientWidth);
        expect(m.screenWidth).toBeLessThanOrEqual(m.wrapClientWidth);
        expect(m.controlsTop).toBeGreaterThanOrEqual(0);
        expect(m.controlsBottom).toBeLessThanOrEqual(m.innerHeight);
        expect(m.scrollY).toBe(0);
        expect(m.layoutShift).toBeLessThan(0.01);
        // The last row and its last column are on the screen the player shows.
        const text = (await page.evaluate('window.evioPlayer.screenText()')) as string;
        expect(text.split('\n').at(-1)).toMatch(new RegExp(`^row 29 =+\\|29:end${cols}$`));
      });
    }
  }

  it('zooms in (the terminal box scrolls, never the page), fits again, and goes fullscreen', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await openSession(wideSession(132));
    const fitted = await measure();
    for (let i = 0; i < 4; i++) await page.getByRole('button', { name: 'Zoom in' }).click();
    const zoomed = await measure();
    expect(zoomed.fontSize).toBe(fitted.fontSize + 4);
    expect(zoomed.wrapScrollWidth).toBeGreaterThan(zoomed.wrapClientWidth);
    expect(zoomed.pageScrollWidth).toBeLessThanOrEqual(zoomed.pageClientWidth);
    await page.screenshot({ path: join(SHOTS, 'zoomed-in.png') });
    await page.getByRole('button', { name: 'Fit', exact: true }).click();
    expect((await measure()).fontSize).toBe(fitted.fontSize);

    await page.getByRole('button', { name: '⤢ Fullscreen' }).click();
    await page.waitForFunction((before) => {
      const d = (globalThis as unknown as BrowserGlobals).document;
      return !!d.fullscreenElement?.classList.contains('player') && d.querySelector('.term-wrap')?.dataset.fontSize !== before;
    }, String(fitted.fontSize));
    const full = await measure();
    expect(full.fontSize).toBeGreaterThan(fitted.fontSize);
    expect(full.screenWidth).toBeLessThanOrEqual(full.innerWidth);
    expect(full.controlsBottom).toBeLessThanOrEqual(full.innerHeight);
    await page.screenshot({ path: join(SHOTS, 'fullscreen.png') });
    await page.getByRole('button', { name: '⤡ Leave fullscreen' }).click();
    await page.waitForFunction(() => !(globalThis as unknown as BrowserGlobals).document.fullscreenElement);
  });
});

describe('the session page downloads the session', () => {
  it('as asciicast, as a text transcript and as recorded (tar)', async () => {
    const file = wideSession(80);
    await openSession(file);
    const got: Record<string, Buffer> = {};
    for (const kind of ['asciicast', 'text', 'raw']) {
      const download = page.waitForEvent('download');
      await page.locator(`a[data-download="${kind}"]`).click();
      const d = await download;
      got[kind] = readFileSync((await d.path())!);
    }
    const cast = got.asciicast!.toString('utf8').split('\n');
    expect(JSON.parse(cast[0]!)).toMatchObject({ version: 2, width: 80, height: 24 });
    expect(JSON.parse(cast[1]!)).toEqual([0.1, 'o', expect.stringContaining('row 0 ')]);
    const text = got.text!.toString('utf8');
    expect(text.split('\n')[0]).toMatch(/^\[0:00\.1\] row 0 =+\|0:end80$/);
    expect(text).not.toContain('\x1b');
    // A tar: the "ustar" magic of the first header, and the session's files in it.
    expect(got.raw!.subarray(257, 262).toString('latin1')).toBe('ustar');
    expect(got.raw!.toString('latin1')).toContain('log.json');
    expect(await evio(['iolog', 'export', '--format', 'text', file])).toBe(text);
  });

  it('raised no page error', () => {
    expect(pageErrors).toEqual([]);
  });
});
