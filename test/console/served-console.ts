// What the console's browser tests share: a data folder filled by the built CLI, a real
// `evio serve` on a loopback port, Debian's chromium driven by playwright-core, and a signed-in
// page. Each test file fills its folder its own way (the demo, a flat file alone, ...).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';

const run = promisify(execFile);
export const ROOT = resolve(import.meta.dirname, '../..');
export const EVIO = join(ROOT, 'bin/evio.js');
export const CHROMIUM = '/usr/bin/chromium';

export interface ServedConsole {
  dir: string;
  /** The data folder (EVIO_HOME). */
  home: string;
  consoleUrl: string;
  /** The admin app's key, from the file `evio serve` names. */
  key: string;
  /** The screenshots' folder, emptied at the start. */
  shots: string;
  /** The built CLI on this data folder; its standard output. */
  evio(args: string[]): Promise<string>;
  /** Stops the server (SIGTERM, waits for it) and removes the data folder. */
  stop(): Promise<void>;
}

/**
 * Checks chromium and the built console, empties test-output/NAME, makes a data folder, lets
 * `fill` put data in it (with the CLI), then starts `evio serve` and waits for its console URL.
 */
export async function serveConsole(name: string, fill: (c: { home: string; evio(args: string[]): Promise<string> }) => Promise<void>): Promise<ServedConsole> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium`);
  if (!existsSync(join(ROOT, 'dist', 'console', 'index.html'))) throw new Error('dist/console is missing: npm run build');
  const shots = join(ROOT, 'test-output', name);
  rmSync(shots, { recursive: true, force: true });
  mkdirSync(shots, { recursive: true });
  const dir = realpathSync(mkdtempSync(join(tmpdir(), `evio-${name}-`)));
  const home = join(dir, 'data');
  mkdirSync(home, { recursive: true });
  const env = { PATH: process.env.PATH ?? '', EVIO_HOME: home };
  const evio = async (args: string[]) => (await run(process.execPath, [EVIO, ...args], { env, timeout: 120_000, maxBuffer: 64 << 20 })).stdout;
  await fill({ home, evio });
  const serve: ChildProcess = spawn(process.execPath, [EVIO, 'serve', '--host', '127.0.0.1', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  serve.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  const end = Date.now() + 30_000;
  while (!/^Console: (\S+)/m.test(out)) {
    if (Date.now() > end || serve.exitCode !== null) throw new Error(`evio serve did not start: ${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    dir,
    home,
    shots,
    consoleUrl: /^Console: (\S+)/m.exec(out)![1]!,
    key: readFileSync(/with the key in (\S+)\)/.exec(out)![1]!, 'utf8').trim(),
    evio,
    async stop() {
      if (serve.exitCode === null) {
        const exited = new Promise((r) => serve.once('exit', r));
        serve.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Headless Debian chromium. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
}

/** Signs the page in with the key, as a person does on the sign-in view. */
export async function signIn(page: Page, c: ServedConsole): Promise<void> {
  await page.goto(c.consoleUrl);
  await page.getByLabel('Key', { exact: true }).fill(c.key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForSelector('#nav a');
}
