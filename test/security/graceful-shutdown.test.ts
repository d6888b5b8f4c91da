// Graceful shutdown of `evio serve` on SIGTERM. Before, SIGTERM closed every connection at once:
// a long event list being streamed was cut mid-answer. Now new calls are refused (503 / 1628,
// connection closed), the calls in flight finish within shutdownTimeoutMs, and the process exits
// 0; a call still running at the bound is ended so that the process exits in time.
import { spawn, type ChildProcess } from 'node:child_process';
import { request, type IncomingMessage } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import { generateEvents } from '../../src/eventlog/generate.js';
import { signedUrl } from '../../src/app/rest-client.js';
import { KEYS, makeHome, readAnswer, type TestHome } from '../http/server/helpers.js';
import { ROOT } from './helpers.js';

const EVENTS = 60_000;
const PATH = `/REST/v2.0/events?format=ff&file=events.ndjson&verbose=1&limit=${EVENTS}`;

let home: TestHome;
let proc: ChildProcess | null = null;

interface Serve {
  url: string;
  exited: Promise<{ code: number | null; at: number }>;
  stderr: () => string;
}

/** `evio serve` with a settings file (the built CLI), on a loopback port. */
async function startServe(shutdownTimeoutMs: number): Promise<Serve> {
  const config = join(home.dir, `settings-${shutdownTimeoutMs}.json`);
  writeFileSync(config, JSON.stringify({ home: home.dir, shutdownTimeoutMs }));
  const p = spawn(process.execPath, [join(ROOT, 'bin/evio.js'), 'serve', '--host', '127.0.0.1', '--port', '0'], {
    env: { PATH: process.env.PATH ?? '', EVIO_CONFIG: config },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  proc = p;
  let out = '';
  let err = '';
  p.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  p.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<{ code: number | null; at: number }>((res) => p.once('exit', (code) => res({ code, at: Date.now() })));
  const end = Date.now() + 20_000;
  let m: RegExpExecArray | null = null;
  while (!(m = /evio serving (http:\/\/\S+)/.exec(out))) {
    if (Date.now() > end || p.exitCode !== null) throw new Error(`serve did not start: ${out}${err}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url: m[1]!, exited, stderr: () => err };
}

/** Starts a signed GET of the whole event list; resolves with the answer once its head arrived. */
function openEventList(url: string): Promise<IncomingMessage> {
  const href = signedUrl({ url, appid: 'admin', key: KEYS.admin, method: 'GET', path: PATH }).href;
  return new Promise((resolve, reject) => {
    const req = request(href, { agent: false }, resolve);
    req.on('error', reject);
    req.end();
  });
}

/** A fresh call (new connection) to the server; null when the connection was refused or reset. */
async function freshCall(url: string): Promise<{ http: number; body: Record<string, unknown>; connection: string | undefined } | null> {
  const href = signedUrl({ url, appid: 'admin', key: KEYS.admin, method: 'GET', path: '/REST/v2.0/events/destinations' }).href;
  try {
    const a = await new Promise<Awaited<ReturnType<typeof readAnswer>>>((resolve, reject) => {
      const req = request(href, { agent: false, timeout: 5000 }, (res) => readAnswer(res).then(resolve, reject));
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', reject);
      req.end();
    });
    return { http: a.http, body: a.body, connection: a.headers.connection };
  } catch (err) {
    if (/ECONNREFUSED|ECONNRESET|socket hang up/.test((err as Error).message)) return null;
    throw err;
  }
}

beforeAll(async () => {
  home = makeHome();
  writeFileSync(join(home.dir, 'events.ndjson'), `${[...generateEvents({ count: EVENTS, seed: 11 })].map((r) => JSON.stringify(r)).join('\n')}\n`);
  await home.engine.close();
}, 60_000);

afterEach(() => {
  if (proc && proc.exitCode === null) proc.kill('SIGKILL');
  proc = null;
});

afterAll(async () => {
  await home?.cleanup();
});

describe('evio serve on SIGTERM', () => {
  it('lets a long event list in flight finish, refuses a new call with 503 / 1628, and exits 0 within shutdownTimeoutMs', async () => {
    const bound = 8000;
    const s = await startServe(bound);
    const res = await openEventList(s.url);
    expect(res.statusCode).toBe(200);
    // Read a little, then stop reading: the answer is still being written when SIGTERM comes.
    const parts: Buffer[] = [];
    await new Promise<void>((r) => res.once('data', (c: Buffer) => (parts.push(c), r())));
    res.pause();
    const termAt = Date.now();
    proc!.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    expect(proc!.exitCode).toBeNull(); // still serving the call in flight

    const late = await freshCall(s.url);
    expect(late).not.toBeNull();
    expect(late).toEqual({ http: 503, body: { status: 1628, error: '1628 the service is shutting down; retry against another instance or after the restart' }, connection: 'close' });

    // Read the rest: the whole list arrives, with status 0 at its end.
    res.on('data', (c: Buffer) => parts.push(c));
    const ended = new Promise<void>((r, j) => {
      res.once('end', () => r());
      res.once('error', j);
      res.once('aborted', () => j(new Error('the answer was cut')));
    });
    res.resume();
    await ended;
    const body = JSON.parse(Buffer.concat(parts).toString('utf8')) as { status: number; events: unknown[] };
    // A complete answer: valid JSON with status 0 at its end (a cut answer fails to parse), and
    // far more than the little read before SIGTERM.
    expect(body.status).toBe(0);
    expect(body.events.length).toBeGreaterThan(20_000);

    const { code, at } = await s.exited;
    expect(code).toBe(0);
    expect(at - termAt).toBeLessThan(bound);
    expect(s.stderr()).toMatch(/stopping: new calls are refused/);
    expect(s.stderr()).not.toMatch(/still running/);
  }, 60_000);

  it('ends a call that does not finish within shutdownTimeoutMs and still exits 0 in time', async () => {
    const bound = 1500;
    const s = await startServe(bound);
    const res = await openEventList(s.url);
    await new Promise<void>((r) => res.once('data', () => r()));
    res.pause(); // never reads again
    const termAt = Date.now();
    proc!.kill('SIGTERM');
    const { code, at } = await s.exited;
    expect(code).toBe(0);
    expect(at - termAt, s.stderr()).toBeGreaterThanOrEqual(bound - 100); // it waited for the call
    expect(at - termAt).toBeLessThan(bound + 3000);
    expect(s.stderr()).toMatch(/1 call\(s\) still running after 1500 ms/);
    res.destroy();
  }, 60_000);
});
