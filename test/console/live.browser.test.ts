// Watching a session live in the console: Debian's sudo, run in a real terminal (tmux), sends
// an interactive shell's session to the log server of a real `evio serve`; chromium, driven by
// playwright-core, has the session's page open and sees each command's output appear while the
// session runs (the page follows GET /REST/iolog/follow), then the wall of live sessions, then
// the end, after which the page is a recording. A sudoers drop-in scoped to a run-as user of the
// test's own (`Defaults>USER log_servers=...`) keeps every other sudo call on the machine as it
// was. Screenshots go to test-output/console-live/.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendSigned } from '../../src/app/rest-client.js';

const ROOT = resolve(import.meta.dirname, '../..');
const EVIO = join(ROOT, 'bin/evio.js');
const SHOTS = join(ROOT, 'test-output', 'console-live');
const CHROMIUM = '/usr/bin/chromium';
const RUNAS = 'evio-live';
const DROPIN = `/etc/sudoers.d/zz-evio-live-test-${process.pid}`;
const TMUX = `evio-live-${process.pid}`;

function enabled(): boolean {
  const ok = process.getuid?.() === 0 && existsSync('/usr/bin/sudo') && spawnSync('tmux', ['-V']).status === 0;
  if (!ok) {
    if (process.env.CI) throw new Error('the live console test needs root (a sudoers drop-in), sudo and tmux in CI');
    console.warn('skipping the live console test: it needs root, sudo and tmux');
  }
  return ok;
}

function tmux(...args: string[]): string {
  return execFileSync('tmux', ['-L', TMUX, ...args], { encoding: 'utf8', timeout: 10_000 });
}

let dir: string;
let serve: ChildProcess | null = null;
let out = '';
let url: string;
let consoleUrl: string;
let key: string;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

async function list(query: string): Promise<Array<{ logpath: string; live: boolean; runuser: string }>> {
  const answer = await sendSigned({ url, appid: 'admin', key, method: 'GET', path: `/REST/iolog/list?${query}` });
  let body = '';
  for await (const chunk of answer) body += chunk;
  return (JSON.parse(body) as { result: Array<{ logpath: string; live: boolean; runuser: string }> }).result;
}

async function until(what: string, probe: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`no ${what} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The session page's terminal text, once every write has been parsed. */
function pageScreen(): Promise<string> {
  return page.evaluate(`(async () => { const p = window.evioPlayer; if (!p) return ''; await p.whenIdle(); return p.screenText(); })()`);
}

describe.skipIf(!enabled())('a session Debian sudo is streaming, watched live in chromium', () => {
  let file = '';
  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing`);
    if (!existsSync(join(ROOT, 'dist', 'console', 'index.html'))) throw new Error('dist/console is missing: npm run build');
    rmSync(SHOTS, { recursive: true, force: true });
    mkdirSync(SHOTS, { recursive: true });
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'evio-live-')));
    const config = join(dir, 'evio.json');
    writeFileSync(config, JSON.stringify({ home: join(dir, 'data'), host: '127.0.0.1', port: 0, requestLog: 'off', logsrvd: { listen: ['127.0.0.1:0'], commitIntervalMs: 200 } }));
    serve = spawn(process.execPath, [EVIO, '--config', config, 'serve'], { stdio: ['ignore', 'pipe', 'pipe'] });
    serve.stderr!.resume();
    serve.stdout!.on('data', (b: Buffer) => (out += b.toString()));
    await until('evio serve', () => /Log server \(sudo log_servers\): 127\.0\.0\.1:\d+/.test(out) && /^Console: \S+/m.test(out));
    url = /evio serving (\S+)/.exec(out)![1]!;
    consoleUrl = /^Console: (\S+)/m.exec(out)![1]!;
    const port = /Log server \(sudo log_servers\): 127\.0\.0\.1:(\d+)/.exec(out)![1]!;
    key = readFileSync(join(dir, 'data', 'admin.key'), 'utf8').trim();
    if (spawnSync('id', [RUNAS]).status !== 0) execFileSync('useradd', ['-M', '-s', '/bin/sh', RUNAS]);
    writeFileSync(DROPIN, `Defaults>${RUNAS} log_servers=127.0.0.1:${port}, log_input, log_output\n`, { mode: 0o440 });
    chmodSync(DROPIN, 0o440);
    expect(spawnSync('visudo', ['-c', '-f', DROPIN]).status).toBe(0);
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
    page = await browser.newPage({ viewport: { width: 1400, height: 950 } });
    page.on('pageerror', (e) => pageErrors.push(e.message));
  }, 120_000);

  afterAll(async () => {
    spawnSync('tmux', ['-L', TMUX, 'kill-server']);
    rmSync(DROPIN, { force: true });
    await browser?.close();
    if (serve && serve.exitCode === null) {
      const exited = new Promise((r) => serve!.once('exit', r));
      serve.kill('SIGTERM');
      await exited;
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('an interactive sudo shell is listed live while it runs', async () => {
    tmux('-f', '/dev/null', 'new-session', '-d', '-s', 't', '-x', '100', '-y', '30', 'sh');
    tmux('send-keys', '-t', 't', `sudo -u ${RUNAS} env PS1='${RUNAS}$ ' sh`, 'Enter');
    await until('the live session in the list', async () => (await list(`runuser=${RUNAS}`)).some((r) => r.live));
    file = (await list(`runuser=${RUNAS}`)).find((r) => r.live)!.logpath;
  }, 60_000);

  it('the session page follows it: each command\'s output appears while the session runs', async () => {
    await page.goto(consoleUrl);
    await page.getByLabel('Key', { exact: true }).fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForSelector('.results');
    await page.goto(`${consoleUrl}?view=session&file=${encodeURIComponent(file)}`);
    await page.waitForSelector('#live-badge:not([hidden])');
    await page.waitForSelector('#terminal[data-state="live"]');
    await shot('01-live-session-opened');
    for (const n of [1, 2, 3]) {
      // The shell computes the marker: it shows in the output, not only in the echo of what was typed.
      tmux('send-keys', '-t', 't', `echo step-${n}-$((${n} * 1000 + 7)); ls -d /etc`, 'Enter');
      await until(`command ${n}'s output on the page`, async () => (await pageScreen()).includes(`step-${n}-${n * 1000 + 7}`));
      expect(await page.locator('#terminal').getAttribute('data-state')).toBe('live');
      await shot(`0${n + 1}-live-command-${n}`);
    }
    const screen = await pageScreen();
    expect(screen).toMatch(/step-1-1007\n\/etc\n/);
    expect(screen).toMatch(/step-3-3007\n\/etc\n/);
    // The command timeline follows (asked again once output came).
    await page.waitForSelector('.marker-command:has-text("echo step-3-")', { timeout: 20_000 });
    await shot('05-live-commands');
    // The timeline has grown with the session.
    const duration = await page.evaluate('window.evioPlayer.duration');
    expect(duration).toBeGreaterThan(0);
  }, 120_000);

  it('the wall shows the live session as a small terminal that follows it', async () => {
    await page.goto(`${consoleUrl}?view=wall&runhost=*`);
    const tile = page.locator(`.wall-tile[data-file="${file}"]`);
    await tile.waitFor();
    await until('the tile\'s screen', async () => ((await tile.locator('.xterm-rows').textContent()) ?? '').includes('step-3-3007'));
    tmux('send-keys', '-t', 't', 'echo wall-$((6 * 7))', 'Enter');
    await until('the new output on the wall', async () => ((await tile.locator('.xterm-rows').textContent()) ?? '').includes('wall-42'));
    await shot('06-wall');
  }, 60_000);

  it('when the session ends, the page says so and it plays as a recording', async () => {
    await page.goto(`${consoleUrl}?view=session&file=${encodeURIComponent(file)}`);
    await page.waitForSelector('#terminal[data-state="live"]');
    tmux('send-keys', '-t', 't', 'echo last-$((2 + 2)); exit', 'Enter');
    await until('the last output', async () => (await pageScreen()).includes('last-4'));
    await page.waitForSelector('#terminal[data-live="ended"]');
    expect(await page.locator('#live-badge').isHidden()).toBe(true);
    await until('the session no longer live', async () => !(await list(`runuser=${RUNAS}`)).some((r) => r.live));
    await shot('07-ended');
    // A recording now: playing from the start shows the first command again.
    await page.evaluate('window.evioPlayer.seek(0)');
    await page.getByRole('button', { name: 'Play' }).click();
    await until('the replay', async () => (await pageScreen()).includes('step-1-1007'));
    expect(pageErrors).toEqual([]);
  }, 60_000);
});
