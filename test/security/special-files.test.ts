// Finding 5 (and part of 12) of the security review: FIFOs, device nodes and directories where
// evio expects a regular file. Before the fix a FIFO session file or event log was opened
// without O_NONBLOCK, so each call parked a thread of libuv's pool (four calls: every store
// hung, `serve` never exited, `iolog index` ignored SIGTERM); a device node was read as a
// stream; a directory as event log answered 500. Now each answers a 4xx registry code at once
// and the server keeps answering. The server runs as its own process (`evio serve`), so that a
// hang shows as a timeout instead of hanging the test runner.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateEvents } from '../../src/eventlog/generate.js';
import { sendSigned } from '../../src/app/rest-client.js';
import { KEYS, makeHome, readAnswer, type Answer, type TestHome } from '../http/server/helpers.js';
import { ROOT, startServeProcess, writeSudoSession, type ServeProcess } from './helpers.js';

const V = '/REST/v2.0';
/** An answer slower than this counts as a hang (the fixed server answers in milliseconds). */
const PROMPT_MS = 5000;
/** More calls than libuv has threads (4 by default), so a blocking open would starve the pool. */
const CALLS = 6;

let home: TestHome;
let server: ServeProcess;
let iolog: string;

function mkfifo(path: string): void {
  const r = spawnSync('mkfifo', [path]);
  if (r.status !== 0) throw new Error(`mkfifo ${path}: ${r.stderr.toString()}`);
}

/** A signed call that gives up after PROMPT_MS; null when it did not answer in time. */
async function call(method: string, path: string): Promise<Answer | null> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), PROMPT_MS);
  try {
    return await readAnswer(await sendSigned({ url: server.url, appid: 'admin', key: KEYS.admin, method, path, signal: ac.signal }));
  } catch (err) {
    if (ac.signal.aborted) return null;
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/** CALLS concurrent calls; each must answer in time with `code` and a 4xx status. */
async function expectRefused(method: string, path: string, code: number): Promise<void> {
  const answers = await Promise.all(Array.from({ length: CALLS }, () => call(method, path)));
  for (const a of answers) {
    expect(a, `${method} ${path} did not answer within ${PROMPT_MS} ms`).not.toBeNull();
    expect({ status: a!.body.status, http4xx: a!.http >= 400 && a!.http < 500 }).toEqual({ status: code, http4xx: true });
    expect(String(a!.body.error)).toMatch(new RegExp(`^${code} `));
  }
}

/** The server still answers ordinary calls (event store, session) promptly. */
async function expectStillServing(): Promise<void> {
  const q = await call('GET', `${V}/events?format=ff&file=events.ndjson&limit=3`);
  expect(q?.body.status).toBe(0);
  expect((q!.body.events as unknown[]).length).toBe(3);
  const c = await call('GET', '/REST/iolog?file=good');
  expect(c?.body.status).toBe(0);
}

beforeAll(async () => {
  home = makeHome();
  iolog = join(home.dir, 'iolog');
  writeFileSync(join(home.dir, 'events.ndjson'), `${[...generateEvents({ count: 20, seed: 5 })].map((r) => JSON.stringify(r)).join('\n')}\n`);
  writeSudoSession(join(iolog, 'good'), Buffer.from('hello\r\n'));
  // ttyout is a FIFO.
  writeSudoSession(join(iolog, 'fifo-ttyout'), Buffer.from('hello\r\n'));
  unlinkSync(join(iolog, 'fifo-ttyout', 'ttyout'));
  mkfifo(join(iolog, 'fifo-ttyout', 'ttyout'));
  // log.json is a FIFO; a legacy log keeps the directory a session.
  writeSudoSession(join(iolog, 'fifo-logjson'), Buffer.from('hello\r\n'));
  unlinkSync(join(iolog, 'fifo-logjson', 'log.json'));
  mkfifo(join(iolog, 'fifo-logjson', 'log.json'));
  writeFileSync(join(iolog, 'fifo-logjson', 'log'), '1767225600:alice:root::/dev/pts/1\n/home/alice\n/bin/bash\n');
  // timing is a FIFO: not a session at all.
  writeSudoSession(join(iolog, 'fifo-timing'), Buffer.from('hello\r\n'));
  unlinkSync(join(iolog, 'fifo-timing', 'timing'));
  mkfifo(join(iolog, 'fifo-timing', 'timing'));
  // Event logs that are FIFOs, and a directory.
  mkfifo(join(home.dir, 'fifo.ndjson'));
  mkfifo(join(home.dir, 'fifo.sqlite'));
  mkdirSync(join(home.dir, 'adir'));
  await home.engine.close();
  server = await startServeProcess(home.dir);
}, 60_000);

afterAll(async () => {
  await server?.stop(2000);
  await home?.cleanup();
});

describe('FIFOs where evio expects regular files answer 1010 at once, and the server keeps serving', () => {
  it('a session whose ttyout is a FIFO: chunk', async () => {
    await expectRefused('GET', '/REST/iolog?file=fifo-ttyout', 1010);
    await expectStillServing();
  }, 60_000);

  it('a session whose log.json is a FIFO: variables and chunk', async () => {
    await expectRefused('GET', '/REST/iolog/variables?file=fifo-logjson', 1010);
    await expectRefused('GET', '/REST/iolog?file=fifo-logjson', 1010);
    await expectStillServing();
  }, 60_000);

  it('a FIFO timing file or a FIFO downloaded by name is not a session (1400)', async () => {
    await expectRefused('GET', '/REST/iolog?file=fifo-timing', 1400);
    await expectRefused('GET', '/REST/iologfile?file=fifo-ttyout/ttyout', 1400);
    // The session as tar leaves its FIFO out.
    const tar = await call('GET', '/REST/iologfile?file=fifo-ttyout');
    expect(tar?.http).toBe(200);
    expect(tar!.text).toContain('fifo-ttyout/timing');
    expect(tar!.text).not.toContain('fifo-ttyout/ttyout');
  }, 60_000);

  it('a search over FIFO sessions answers', async () => {
    const a = await call('GET', `/REST/iolog/search?file=${encodeURIComponent('fifo-*')}&query=${encodeURIComponent('any:hello')}`);
    expect(a, 'the search did not answer').not.toBeNull();
    expect(a!.http).toBeLessThan(500);
    await expectStillServing();
  }, 60_000);

  it('a flat-file event log that is a FIFO: query and delete', async () => {
    await expectRefused('GET', `${V}/events?format=ff&file=fifo.ndjson`, 1010);
    await expectRefused('DELETE', `${V}/events?format=ff&file=fifo.ndjson&all=1`, 1010);
    expect(readdirSync(home.dir).filter((n) => n.startsWith('fifo.ndjson.'))).toEqual([]);
    await expectStillServing();
  }, 60_000);

  it('an SQLite event database that is a FIFO', async () => {
    await expectRefused('GET', `${V}/events?format=db&file=fifo.sqlite`, 1010);
    await expectStillServing();
  }, 60_000);

  it('a directory as event log (file=., file=adir) answers 1010, and nothing is written beside a root', async () => {
    for (const f of ['.', 'adir']) {
      await expectRefused('GET', `${V}/events?format=ff&file=${f}`, 1010);
      await expectRefused('GET', `${V}/events?format=db&file=${f}`, 1010);
      await expectRefused('DELETE', `${V}/events?format=ff&file=${f}&all=1`, 1010);
    }
    expect(existsSync(join(dirname(home.dir), `${basename(home.dir)}.lock`))).toBe(false);
    expect(readdirSync(home.dir).filter((n) => n.startsWith('adir.'))).toEqual([]);
    await expectStillServing();
  }, 60_000);

  it('a session whose ttyout is a character device is refused, not read as a stream', async (ctx) => {
    const dir = join(iolog, 'dev-ttyout');
    writeSudoSession(dir, Buffer.from('hello\r\n'));
    unlinkSync(join(dir, 'ttyout'));
    // A /dev/null-like node (1:3); needs CAP_MKNOD, which only root in a full namespace has.
    const r = spawnSync('mknod', [join(dir, 'ttyout'), 'c', '1', '3']);
    if (r.status !== 0) {
      rmSync(dir, { recursive: true, force: true });
      ctx.skip(`mknod is not permitted here (${r.stderr.toString().trim()}); the device case needs CAP_MKNOD`);
      return;
    }
    try {
      await expectRefused('GET', '/REST/iolog?file=dev-ttyout', 1010);
      await expectStillServing();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('serve stops on SIGTERM after all of this', async () => {
    expect(await server.stop(10_000)).toBe(0);
  }, 30_000);
});

describe('evio iolog index over a root holding FIFO sessions', () => {
  it('finishes, and lists the sessions it can read', async () => {
    const proc = spawn(process.execPath, [join(ROOT, 'bin/evio.js'), 'iolog', 'index'], {
      env: { PATH: process.env.PATH ?? '', EVIO_HOME: home.dir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | string | null>((res) => {
      const timer = setTimeout(() => {
        proc.kill('SIGKILL');
        res('killed after 30 s');
      }, 30_000);
      proc.on('exit', (c) => {
        clearTimeout(timer);
        res(c);
      });
    });
    expect({ code, err: err.slice(0, 500) }).toEqual({ code: 0, err: '' });
    // good, fifo-ttyout and fifo-logjson (listed with what can be read); fifo-timing is no session.
    expect(JSON.parse(out)).toMatchObject({ status: 0, total: 3 });
  }, 60_000);
});
