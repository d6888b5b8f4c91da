// The console in a real browser: Debian's chromium driven by playwright-core against a real
// `evio serve` (the built CLI) on loopback, with a data folder `evio demo` filled. Each step
// saves a screenshot under test-output/console/ for a reviewer to look at.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const EVIO = join(ROOT, 'bin/evio.js');
const SHOTS = join(ROOT, 'test-output', 'console');
const CHROMIUM = '/usr/bin/chromium';

let dir: string;
let home: string;
let serve: ChildProcess | null = null;
let serveOut = '';
let url: string;
let consoleUrl: string;
let key: string;
let browser: Browser;
let page: Page;
const external: string[] = [];
const pageErrors: string[] = [];

async function evio(args: string[]): Promise<string> {
  const r = await run(process.execPath, [EVIO, ...args], { env: { PATH: process.env.PATH ?? '', EVIO_HOME: home }, timeout: 120_000, maxBuffer: 64 << 20 });
  return r.stdout;
}

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

/** What `evio iolog screen FILE --at T` prints, rows right-trimmed and blank last rows dropped. */
async function cliScreen(file: string, at: number): Promise<string> {
  return normalise(await evio(['iolog', 'screen', file, '--at', String(Number(at.toFixed(6)))]));
}

function normalise(text: string): string {
  const lines = text.split('\n').map((l) => l.replace(/\s+$/, ''));
  while (lines.length && lines[lines.length - 1] === '') lines.pop();
  return lines.join('\n');
}

/** The player's screen once every write has been parsed, and its clock. */
async function playerScreen(): Promise<{ text: string; time: number }> {
  // Browser code as text: this file is compiled for Node, without the DOM's types.
  return page.evaluate(`(async () => {
    const p = window.evioPlayer;
    await p.whenIdle();
    return { text: p.screenText(), time: p.time };
  })()`);
}

/** What the page's code sees, typed as far as these tests need (this file has no DOM types). The
 * callbacks given to waitForFunction run in the page, as `(globalThis as BrowserGlobals)`; they
 * are sent as source text, so they cannot use anything of this file. */
interface BrowserGlobals {
  document: {
    getElementById(id: string): { dataset: Record<string, string | undefined> } | null;
    querySelector(sel: string): { getAttribute(name: string): string | null } | null;
  };
  evioPlayer?: unknown;
}

/** The text of every element a selector matches. */
async function texts(selector: string): Promise<string[]> {
  return page.locator(selector).allTextContents();
}

/** The cells' text of every row a selector matches. */
async function cells(rowSelector: string): Promise<string[][]> {
  const rows = page.locator(rowSelector);
  const out: string[][] = [];
  for (let i = 0; i < (await rows.count()); i++) out.push(await rows.nth(i).locator('td').allTextContents());
  return out;
}

/** Clicks a button and waits until the view has drawn the answer of the API call it makes. */
async function submit(button: string, apiPath: string): Promise<void> {
  const answered = page.waitForResponse((r) => new URL(r.url()).pathname === apiPath);
  await page.getByRole('button', { name: button, exact: true }).click();
  await answered;
  await page.waitForSelector('.results[aria-busy="false"]');
}

async function waitForPlayer(): Promise<void> {
  await page.waitForFunction(() => {
    const t = (globalThis as unknown as BrowserGlobals).document.getElementById('terminal');
    return !!t && !!(globalThis as unknown as BrowserGlobals).evioPlayer && t.dataset.state !== undefined && t.dataset.state !== 'seeking';
  });
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium (.ci/run does)`);
  if (!existsSync(join(ROOT, 'dist', 'console', 'index.html'))) throw new Error('dist/console is missing: npm run build');
  rmSync(SHOTS, { recursive: true, force: true }); // screenshots of this run only
  mkdirSync(SHOTS, { recursive: true });
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'evio-console-')));
  home = join(dir, 'data');
  await evio(['demo', '--count', '3000']);
  serve = spawn(process.execPath, [EVIO, 'serve', '--host', '127.0.0.1', '--port', '0'], { env: { PATH: process.env.PATH ?? '', EVIO_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
  serve.stdout!.on('data', (c: Buffer) => (serveOut += c.toString()));
  // The server's own words, kept beside the screenshots: when it stops answering mid-run, the
  // log says why (an exit code, a signal, a stack).
  const serveLog = createWriteStream(join(SHOTS, 'serve.log'));
  serve.stderr!.pipe(serveLog);
  serve.once('exit', (code, signal) => serveLog.write(`\nevio serve exited: code ${code}, signal ${signal}\n`));
  const end = Date.now() + 30_000;
  while (!/^Console: (\S+)/m.test(serveOut)) {
    if (Date.now() > end || serve.exitCode !== null) throw new Error(`evio serve did not start: ${serveOut}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  url = /^evio serving (\S+)/m.exec(serveOut)![1]!;
  consoleUrl = /^Console: (\S+)/m.exec(serveOut)![1]!;
  const keyFile = /with the key in (\S+)\)/.exec(serveOut)![1]!;
  key = readFileSync(keyFile, 'utf8').trim();
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  page = await browser.newPage({ viewport: { width: 1400, height: 950 } });
  page.on('request', (r) => {
    if (!r.url().startsWith(url) && !r.url().startsWith('data:')) external.push(r.url());
  });
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => {
    // A refused sign-in (401) is logged by the browser as a failed load: expected, not a page error.
    if (m.type() === 'error' && !/^Failed to load resource/.test(m.text())) pageErrors.push(m.text());
  });
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

describe('the console in chromium', () => {
  it('evio serve prints the console URL and where the key is', () => {
    expect(consoleUrl).toBe(`${url}/console/`);
    expect(serveOut).not.toContain(key);
  });

  it('refuses a wrong key with a clear message, then signs in', async () => {
    await page.goto(consoleUrl);
    // Keyboard only: the appid is filled in, the key field has the focus, Enter submits.
    expect(await page.getByLabel('App id').inputValue()).toBe('admin');
    await page.keyboard.type('0'.repeat(64));
    await page.keyboard.press('Enter');
    const alert = page.getByRole('alert');
    await expect.poll(() => alert.textContent()).toMatch(/Sign-in refused: the appid or the key is wrong/);
    expect(await alert.textContent()).toContain('8119 invalid authentication for appid admin');
    await shot('01-wrong-key');
    // Nothing was kept: the key of a refused sign-in is not stored.
    expect(await page.evaluate('sessionStorage.length')).toBe(0);

    await page.getByLabel('Key', { exact: true }).fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForSelector('.results[aria-busy="false"] table.grid tbody tr');
    await shot('02-signed-in-events');
    // The key is kept in this tab only, and never appears in a request.
    expect(await page.evaluate(`sessionStorage.getItem('evio.console.credentials')`)).toContain(key);
  });

  it('searches events with the API\'s filters (flat file and database)', async () => {
    await page.getByLabel('Run as user').fill('root');
    await page.getByLabel('Command').fill('/bin/bash');
    await page.getByRole('checkbox', { name: 'Accept' }).uncheck();
    await page.getByRole('checkbox', { name: 'Reject' }).uncheck();
    await submit('Search events', '/REST/v2.0/events');
    const rows = await cells('table.grid tbody tr:not(.details-row)');
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) {
      expect(r[1]).toBe('K');
      expect(r[3]).toMatch(/^root@/);
    }
    // The same question answered by the REST API directly.
    const api = JSON.parse(await evio(['call', 'GET', '/REST/v2.0/events?format=db&etype=K&runuser=root&runcommand=/bin/bash&order=recnum&orderdirection=desc&limit=50'])) as { events: { recnum: number }[] };
    const shown = (await page.locator('table.grid tbody tr:not(.details-row)').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-recnum')))).map(Number);
    expect(shown).toEqual(api.events.map((e) => e.recnum));
    await shot('03-event-search');

    // The flat file: chosen as the API chooses it (format=ff&file=...).
    await page.getByLabel('Event log').selectOption('ff');
    await expect.poll(() => page.getByLabel('File, database or DSN').inputValue()).toMatch(/events\.ndjson$/);
    await submit('Search events', '/REST/v2.0/events');
    const ff = await texts('table.grid tbody tr:not(.details-row) td:nth-child(2)');
    expect(ff.length).toBeGreaterThan(0);
    expect(new Set(ff)).toEqual(new Set(['K']));
  });

  let sessionFile = '';

  it('opens a keystroke event\'s session, which links back to its events', async () => {
    const link = page.locator('a[data-action="open-session"]').first();
    const href = (await link.getAttribute('href'))!;
    sessionFile = new URLSearchParams(href.slice(href.indexOf('?'))).get('file')!;
    await link.click();
    await waitForPlayer();
    await page.waitForSelector('.session-events table.grid');
    const types = await texts('.session-events table.grid tbody tr:not(.details-row) td:nth-child(2)');
    expect(types).toContain('K');
    expect(types).toContain('F'); // the finish record, with dump=1
    // The page opened at 0 s: the screen is the server's screen at 0.
    const s = await playerScreen();
    expect(s.text).toBe(await cliScreen(sessionFile, s.time));
    await shot('04-session');
  });

  it('plays, and pauses with the space key', async () => {
    await page.getByRole('combobox', { name: 'Speed' }).selectOption('4');
    await page.getByRole('button', { name: 'Play' }).click();
    await page.waitForFunction(() => Number((globalThis as unknown as BrowserGlobals).document.getElementById('terminal')?.dataset.time) > 1);
    await page.locator('body').press(' ');
    await page.waitForFunction(() => (globalThis as unknown as BrowserGlobals).document.querySelector('button.play')?.getAttribute('aria-label') === 'Play');
    const s = await playerScreen();
    expect(s.time).toBeGreaterThan(1);
    expect(s.text.length).toBeGreaterThan(0);
    await shot('05-played');
  });

  it('seeks to a command marker: the terminal shows what evio iolog screen --at shows', async () => {
    const markers = page.locator('.marker-command');
    const count = await markers.count();
    expect(count, 'the command timeline lists the typed commands').toBeGreaterThan(0);
    const target = markers.nth(Math.min(1, count - 1));
    const t = Number(await target.getAttribute('data-t'));
    await target.click();
    await waitForPlayer();
    const s = await playerScreen();
    expect(s.time).toBeCloseTo(t, 3);
    expect(s.text).toBe(await cliScreen(sessionFile, t));
    expect(s.text).toContain((await target.locator('.marker-text').textContent())!);
    expect(new URL(page.url()).hash).toBe(`#t=${t.toFixed(3)}`);
    await shot('06-command-marker');

    // Copy screen text and the link to this moment, through the clipboard.
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url });
    await page.getByRole('button', { name: 'Copy screen text' }).click();
    await expect.poll(() => page.evaluate('navigator.clipboard.readText()')).toBe(s.text);
    await page.getByRole('button', { name: 'Copy link to this moment' }).click();
    await expect.poll(() => page.evaluate('navigator.clipboard.readText()')).toBe(`${page.url().split('#')[0]}#t=${Number(t.toFixed(3))}`);

    // ] and [ walk the markers from the keyboard; the timeline has a tick per marker.
    await page.locator('.timeline').focus();
    await page.keyboard.press(']');
    await waitForPlayer();
    const next = await playerScreen();
    expect(next.time).toBeGreaterThan(t);
    expect(next.text).toBe(await cliScreen(sessionFile, next.time));
    expect(await page.locator('.tl-mark.tl-command').count()).toBe(count);

    // A click on the timeline (away from any tick) seeks there.
    const box = (await page.locator('.timeline').boundingBox())!;
    const duration = Number(await page.locator('.timeline').getAttribute('aria-valuemax'));
    await page.mouse.click(box.x + box.width * 0.42, box.y + 3);
    await page.waitForFunction((min) => Math.abs(Number((globalThis as unknown as BrowserGlobals).document.getElementById('terminal')?.dataset.time) - min) < 0.5, duration * 0.42);
    await waitForPlayer();
    const clicked = await playerScreen();
    expect(clicked.time).toBeCloseTo(duration * 0.42, 0);
    expect(clicked.text).toBe(await cliScreen(sessionFile, clicked.time));
  });

  it('follows a search hit\'s deep link to its moment', async () => {
    await page.locator('#nav').getByRole('link', { name: 'Search sessions', exact: true }).click();
    await page.getByLabel('Stream').selectOption('output');
    await page.getByLabel('Pattern').fill('id_rsa');
    await submit('Search', '/REST/iolog/search');
    await shot('07-search-hits');
    const hit = page.locator('a[data-action="open-hit"]').first();
    const href = (await hit.getAttribute('href'))!;
    const line = (await hit.locator('.hit-line').textContent())!;
    const target = new URL(href, consoleUrl);
    const file = target.searchParams.get('file')!;
    const t = Number(/#t=([\d.]+)/.exec(href)![1]);
    // A deep link works from a fresh load (what a pasted link does).
    await page.goto(target.href);
    await waitForPlayer();
    const s = await playerScreen();
    expect(s.time).toBeCloseTo(t, 3);
    expect(s.text).toBe(await cliScreen(file, t));
    expect(s.text).toContain(line);
    expect(await page.locator('.tl-mark.tl-hit').count()).toBeGreaterThan(0);
    await shot('08-hit-deep-link');
  });

  it('streams a big session: a seek reads a keyframe and chunks from its offset, never the whole session', async () => {
    // 20000 lines of 200 bytes, one every 30 ms: 4 MB over 600 s.
    const big = join(home, 'iolog', 'big', 'session');
    mkdirSync(big, { recursive: true });
    const lines = 20_000;
    const line = (i: number) => `line ${String(i).padStart(6, '0')} ${'x'.repeat(186)}\r\n`;
    writeFileSync(join(big, 'ttyout'), Array.from({ length: lines }, (_, i) => line(i)).join(''));
    // Read-only, as sudo leaves a finished session (a writable timing file marks it live, and the page would open it at now).
    writeFileSync(join(big, 'timing'), Array.from({ length: lines }, () => '4 0.030000 200\n').join(''), { mode: 0o444 });
    writeFileSync(join(big, 'log.json'), JSON.stringify({ timestamp: { seconds: 1767225600, nanoseconds: 0 }, submituser: 'alice', runuser: 'root', command: '/usr/bin/cat', runargv: ['cat', 'big.log'], lines: 24, columns: 200 }));
    const total = lines * 200;
    const chunks: { start: number; len: number }[] = [];
    const screens: string[] = [];
    const watch = (r: { url(): string }) => {
      const u = new URL(r.url());
      if (u.pathname === '/REST/iolog') chunks.push({ start: Number(u.searchParams.get('start')), len: Number(u.searchParams.get('len')) });
      if (u.pathname === '/REST/iolog/screen') screens.push(u.searchParams.get('at')!);
    };
    page.on('request', watch);
    try {
      await page.goto(`${consoleUrl}?view=session&file=${encodeURIComponent(big)}#t=300`);
      await waitForPlayer();
      const s = await playerScreen();
      expect(s.time).toBe(300);
      expect(s.text).toBe(await cliScreen(big, 300));
      expect(s.text).toContain(line(9999).trimEnd()); // record 10000 ends at 300.000 s
      expect(screens).toEqual(['300.000']);
      await shot('10-big-session-seek');
      // Playing fetches ahead, chunk after chunk from the keyframe's offset on.
      await page.getByRole('combobox', { name: 'Speed' }).selectOption('4');
      await page.getByRole('button', { name: 'Play' }).click();
      await page.waitForFunction(() => Number((globalThis as unknown as BrowserGlobals).document.getElementById('terminal')?.dataset.time) > 304);
      // The fetch-ahead runs beside playback: on a loaded machine the second chunk may still be on its way.
      await expect.poll(() => chunks.length, { timeout: 20_000 }).toBeGreaterThan(1);
      await page.getByRole('button', { name: 'Pause' }).click();
      expect(chunks[0]!.start).toBe(10_000 * 200);
      for (let i = 1; i < chunks.length; i++) expect(chunks[i]!.start).toBe(chunks[i - 1]!.start + chunks[i - 1]!.len);
      const fetched = chunks.reduce((n, c) => n + c.len, 0);
      expect(fetched).toBeLessThan(total / 2);
      // xterm.js writes asynchronously: the paused player's last record may still be on its way
      // to the screen when its time is read (seen once on a loaded machine: one line behind).
      let after = await playerScreen();
      let want = await cliScreen(big, after.time);
      for (let tries = 0; after.text !== want && tries < 20; tries++) {
        await new Promise((r) => setTimeout(r, 250));
        after = await playerScreen();
        want = await cliScreen(big, after.time);
      }
      expect(after.text).toBe(want);
    } finally {
      page.off('request', watch);
    }
  });

  it('a seek shows the colours and flags of the screen at that time (the repaint carries SGR)', async () => {
    const dir = join(home, 'iolog', 'colours', 'session');
    mkdirSync(dir, { recursive: true });
    const first = '\x1b[1;31mred bold\x1b[0m plain \x1b[48;2;0;0;128;4mblue\x1b[m\r\n';
    const second = 'later\r\n';
    writeFileSync(join(dir, 'ttyout'), first + second);
    writeFileSync(join(dir, 'timing'), `4 0.500000 ${Buffer.byteLength(first)}\n4 9.500000 ${Buffer.byteLength(second)}\n`);
    writeFileSync(join(dir, 'log.json'), JSON.stringify({ timestamp: { seconds: 1767225600, nanoseconds: 0 }, submituser: 'alice', runuser: 'root', command: '/bin/sh', runargv: ['sh'], lines: 24, columns: 80 }));
    await page.goto(`${consoleUrl}?view=session&file=${encodeURIComponent(dir)}#t=5`);
    await waitForPlayer();
    expect((await playerScreen()).text).toBe(await cliScreen(dir, 5));
    const cells = (await page.evaluate(`(async () => {
      const p = window.evioPlayer;
      await p.whenIdle();
      const b = p.term.buffer.active;
      const line = b.getLine(b.baseY);
      return [0, 9, 15].map((x) => {
        const c = line.getCell(x);
        return { t: c.getChars(), fgMode: c.getFgColorMode(), fg: c.getFgColor(), bgMode: c.getBgColorMode(), bg: c.getBgColor(), bold: !!c.isBold(), underline: !!c.isUnderline() };
      });
    })()`)) as Array<Record<string, unknown>>;
    expect(cells[0]).toEqual({ t: 'r', fgMode: 0x1000000, fg: 1, bgMode: 0, bg: -1, bold: true, underline: false });
    expect(cells[1]).toEqual({ t: 'p', fgMode: 0, fg: -1, bgMode: 0, bg: -1, bold: false, underline: false });
    expect(cells[2]).toEqual({ t: 'b', fgMode: 0, fg: -1, bgMode: 0x3000000, bg: 0x000080, bold: false, underline: true });
    await shot('11-colours-after-seek');
  });

  it('a damaged recording plays what can be read, under a "Damaged recording" notice with its warnings', async () => {
    const dir = join(home, 'iolog', 'damaged', 'session');
    mkdirSync(dir, { recursive: true });
    // The timing announces 2 x 14 bytes; ttyout holds the first record and 3 bytes of the second.
    writeFileSync(join(dir, 'ttyout'), 'readable part\nlos');
    writeFileSync(join(dir, 'timing'), '4 0.500000 14\n4 1.000000 14\n', { mode: 0o400 });
    writeFileSync(join(dir, 'log.json'), JSON.stringify({ timestamp: { seconds: 1767225600, nanoseconds: 0 }, submituser: 'alice', runuser: 'root', command: '/bin/sh', runargv: ['sh'], lines: 24, columns: 80 }));
    await page.goto(`${consoleUrl}?view=session&file=${encodeURIComponent(dir)}#t=2`);
    await waitForPlayer();
    expect((await playerScreen()).text).toContain('readable part');
    const notice = page.getByTestId('session-damaged');
    await notice.waitFor({ state: 'visible' });
    expect(await notice.locator('summary').textContent()).toBe('Damaged recording: 1 warning (what could be read is shown)');
    expect(await notice.locator('pre').textContent()).toMatch(/^1411 .*damaged\/session\/ttyout: it is shorter than the timing file says/);
    await shot('11b-damaged-recording');
  });

  it('lists sessions from the cached index with its filters', async () => {
    await page.locator('#nav').getByRole('link', { name: 'Sessions', exact: true }).click();
    await page.getByLabel('Run as user').fill('root');
    await submit('List sessions', '/REST/iolog/list');
    const runAs = await texts('table.grid tbody tr td:nth-child(3)');
    const api = JSON.parse(await evio(['call', 'GET', '/REST/iolog/list?runuser=root&len=50'])) as { result: unknown[] };
    expect(runAs).toHaveLength(api.result.length);
    for (const r of runAs) expect(r).toMatch(/^root@/);
    await shot('11-sessions');
  });

  it('marks a session still being recorded as live in the list', async () => {
    // A session as sudo or the log server leaves it while recording: timing keeps its write bit.
    const live = join(home, 'iolog', 'live', '00', '00', '01');
    mkdirSync(live, { recursive: true });
    const started = Math.floor(Date.now() / 1000) - 125;
    writeFileSync(join(live, 'log.json'), JSON.stringify({ timestamp: { seconds: started, nanoseconds: 0 }, submituser: 'mallory', runuser: 'root', submithost: 'web07', command: '/usr/bin/vim', runargv: ['vim', '/etc/sudoers'], columns: 80, lines: 24 }));
    writeFileSync(join(live, 'log'), `${started}:mallory:root::/dev/pts/4:24:80\n/root\n/usr/bin/vim /etc/sudoers\n`);
    writeFileSync(join(live, 'ttyout'), 'editing\r\n');
    writeFileSync(join(live, 'timing'), '4 0.100000000 9\n', { mode: 0o600 });
    await page.getByLabel('Run as user').fill('root');
    await page.getByLabel('Command').fill('/usr/bin/vim*');
    await submit('List sessions', '/REST/iolog/list');
    const badges = await texts('table.grid tbody tr .badge-live');
    expect(badges).toHaveLength(1);
    expect(badges[0]).toMatch(/^live 2 min \d\d s$/);
    await shot('11b-sessions-live');
    await page.getByLabel('Command').fill('');
  });

  it('Swagger UI signs "Try it out" calls with the appid and key typed once', async () => {
    const docs = await browser.newPage({ viewport: { width: 1400, height: 950 } });
    docs.on('request', (r) => {
      if (!r.url().startsWith(url) && !r.url().startsWith('data:')) external.push(r.url());
    });
    await docs.goto(`${url}/docs`);
    await docs.getByLabel('App id').fill('admin');
    await docs.getByLabel('Key').fill(key);
    await docs.getByRole('button', { name: 'Use', exact: true }).click();
    const op = docs.locator('#operations-events-getRESTV20EventsDestinations');
    await op.locator('.opblock-summary').click();
    await op.getByRole('button', { name: 'Try it out' }).click();
    const answer = docs.waitForResponse((r) => r.url().includes('/REST/v2.0/events/destinations'));
    await op.getByRole('button', { name: 'Execute' }).click();
    const res = await answer;
    expect(res.status()).toBe(200);
    expect(((await res.json()) as { status: number }).status).toBe(0);
    expect(new URL(res.url()).searchParams.get('hmac')).toMatch(/^[0-9a-f]{64}$/);
    expect(res.url()).not.toContain(key);
    await op.locator('.responses-wrapper .live-responses-table').waitFor();
    await op.locator('.responses-wrapper .live-responses-table').scrollIntoViewIfNeeded();
    await docs.screenshot({ path: join(SHOTS, '12-swagger-signed.png') });
    await docs.close();
  });

  it('made no request to another origin and raised no page error', () => {
    expect(external).toEqual([]);
    expect(pageErrors.join('\n')).toBe('');
  });
});
