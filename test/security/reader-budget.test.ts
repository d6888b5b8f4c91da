// Slow readers across stores (attack review, finding 6). maxReadersPerStore bounds one store;
// 8 logs x 32 paused readers still added 1.34 GiB and made a trivial call wait ~25 s. The
// engine's ReaderBudget bounds them all: maxReaders answers at once (one more is 503 / 1637 with
// Retry-After), and maxReaderBufferBytes of flat-file read buffers (past it a new reader gets a
// smaller buffer, then waits — paused — until an answer ends). Real servers on 127.0.0.1 over
// one data folder of four flat-file logs; counts are small and every wait is bounded.
import { copyFileSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readerBudget } from '../../src/app/events.js';
import { Engine } from '../../src/engine.js';
import { toEvioError } from '../../src/errors.js';
import { generateEvents } from '../../src/eventlog/generate.js';
import { MIN_READ_BUFFER, ReaderBudget } from '../../src/eventlog/reader-slots.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import type { Settings } from '../../src/settings.js';
import { makeHome, signed, signedHref, type TestHome } from '../http/server/helpers.js';

const COUNT = 40_000;
const V = '/REST/v2.0';
const MiB = 1024 * 1024;
const LOGS = ['a.ndjson', 'b.ndjson', 'c.ndjson', 'd.ndjson'];
const bigQuery = (log: string) => `${V}/events?format=ff&file=${log}&limit=${COUNT}`;
const smallQuery = (log: string) => `${V}/events?format=ff&file=${log}&limit=5`;

let home: TestHome;
const engines: Engine[] = [];
const servers: RunningServer[] = [];
const sockets: Socket[] = [];

beforeAll(async () => {
  home = makeHome();
  const lines: string[] = [];
  for (const rec of generateEvents({ count: COUNT, seed: 6 })) lines.push(JSON.stringify(rec));
  writeFileSync(join(home.dir, LOGS[0]!), `${lines.join('\n')}\n`);
  for (const log of LOGS.slice(1)) copyFileSync(join(home.dir, LOGS[0]!), join(home.dir, log));
  await home.engine.close();
}, 120_000);

afterEach(() => {
  for (const s of sockets.splice(0)) s.destroy();
});

afterAll(async () => {
  for (const s of servers) await s.close().catch(() => {});
  for (const e of engines) await e.close().catch(() => {});
  await home?.cleanup();
});

async function serverWith(overrides: Partial<Settings>): Promise<{ server: RunningServer; budget: ReaderBudget }> {
  const engine = new Engine({ ...home.settings, stalledResponseTimeoutMs: 60_000, ...overrides });
  engines.push(engine);
  const server = await startServer(engine);
  servers.push(server);
  return { server, budget: await readerBudget(engine) };
}

/** Sends a signed GET and reads nothing after the status line; resolves with that line. */
function pausedReader(server: RunningServer, path: string): Promise<{ socket: Socket; status: string }> {
  return new Promise((resolve, reject) => {
    const href = new URL(signedHref(server, 'admin', 'GET', path));
    const socket = connect({ port: server.port, host: '127.0.0.1' });
    sockets.push(socket);
    socket.on('error', () => {});
    socket.once('data', (first: Buffer) => {
      socket.pause();
      resolve({ socket, status: first.toString('latin1').split('\r\n')[0]! });
    });
    socket.write(`GET ${href.pathname}${href.search} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    setTimeout(() => reject(new Error('no answer')), 30_000).unref();
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('ReaderBudget', () => {
  it('grants what is asked while the bound allows, less near it, then makes readers wait in turn', async () => {
    const b = new ReaderBudget({ maxReaders: 0, maxBufferBytes: 1 * MiB });
    const g1 = await b.reserve(768 * 1024);
    expect(g1.bytes).toBe(768 * 1024);
    const g2 = await b.reserve(768 * 1024);
    expect(g2.bytes).toBe(256 * 1024); // what is left
    expect(b.bufferBytes).toBe(MiB);
    const order: string[] = [];
    const w3 = b.reserve(512 * 1024).then((g) => (order.push('w3'), g));
    const w4 = b.reserve(32 * 1024).then((g) => (order.push('w4'), g));
    await sleep(10);
    expect(b.waiting).toBe(2);
    g2.release();
    const g3 = await w3;
    expect(g3.bytes).toBe(256 * 1024);
    // A buffer that grows is charged at once (no wait), and waiters wait for it to shrink or go.
    g1.resize(MiB);
    expect(b.bufferBytes).toBe(MiB + 256 * 1024);
    g3.release();
    g3.release(); // twice: no effect
    expect(b.waiting).toBe(1);
    g1.release();
    expect((await w4).bytes).toBe(32 * 1024);
    expect(order).toEqual(['w3', 'w4']);
    expect(b.waiting).toBe(0);
    expect(b.bufferBytes).toBe(32 * 1024);
  });

  it('keeps the smallest buffer back for every reader place (maxReaders) without one: those readers do not wait', async () => {
    const b = new ReaderBudget({ maxReaders: 4, maxBufferBytes: MiB });
    const g1 = await b.reserve(8 * MiB);
    expect(g1.bytes).toBe(MiB - 3 * MIN_READ_BUFFER);
    const rest = await Promise.all([b.reserve(8 * MiB), b.reserve(8 * MiB), b.reserve(1000)]);
    expect(rest.map((g) => g.bytes)).toEqual([MIN_READ_BUFFER, MIN_READ_BUFFER, 1000]);
    expect(b.bufferBytes).toBeLessThanOrEqual(MiB);
    for (const g of [g1, ...rest]) g.release();
    expect(b.bufferBytes).toBe(0);
  });

  it('a waiting reader that is aborted leaves the queue with ABORTED', async () => {
    const b = new ReaderBudget({ maxReaders: 0, maxBufferBytes: MIN_READ_BUFFER });
    const g = await b.reserve(MIN_READ_BUFFER);
    const ac = new AbortController();
    const w = b.reserve(MIN_READ_BUFFER, ac.signal).then(
      () => 'granted',
      (err: unknown) => toEvioError(err).code,
    );
    await sleep(10);
    expect(b.waiting).toBe(1);
    ac.abort();
    expect(await w).toBe(1006);
    expect(b.waiting).toBe(0);
    g.release();
    expect(b.bufferBytes).toBe(0);
  });

  it('counts answers across stores and refuses one more with 1637', () => {
    const b = new ReaderBudget({ maxReaders: 2, maxBufferBytes: 0 });
    const r1 = b.take();
    const r2 = b.take();
    expect(() => b.take()).toThrow(/^1637 /);
    r1();
    r1();
    const r3 = b.take();
    expect(b.readers).toBe(2);
    expect(b.peakReaders).toBe(2);
    r2();
    r3();
    expect(b.readers).toBe(0);
  });
});

describe('paused readers over several stores', () => {
  it('never stream more than maxReaders answers at once, within maxReaderBufferBytes: the rest are 503 / 1637 with Retry-After', async () => {
    const bound = 4 * MiB;
    const { server, budget } = await serverWith({ maxReaders: 8, maxReadersPerStore: 32, maxReaderBufferBytes: bound });
    const rssBefore = process.memoryUsage().rss;
    // 4 logs x 4 paused readers: each store is far under its own 32, together they are 16.
    const statuses: string[] = [];
    for (const log of LOGS) {
      for (let i = 0; i < 4; i++) {
        statuses.push((await pausedReader(server, bigQuery(log))).status);
        expect(budget.readers).toBeLessThanOrEqual(8);
      }
    }
    expect(statuses.filter((s) => s === 'HTTP/1.1 200 OK').length).toBe(8);
    expect(statuses.filter((s) => s === 'HTTP/1.1 503 Service Unavailable').length).toBe(8);
    expect(budget.peakReaders).toBe(8);
    await sleep(1000); // the paused answers fill their sockets and wait
    console.log(`16 paused readers asked, 8 streaming: ${(budget.bufferBytes / MiB).toFixed(1)} MiB of read buffers, RSS +${((process.memoryUsage().rss - rssBefore) / MiB).toFixed(1)} MiB`);
    // Eight readers wanting 8 MiB each share 4 MiB; none of them waited for it.
    expect(budget.bufferBytes).toBeLessThanOrEqual(bound);
    expect(budget.waiting).toBe(0);
    const refused = await signed(server, 'admin', 'GET', smallQuery('a.ndjson'));
    expect(refused.http).toBe(503);
    expect(refused.body.status).toBe(1637);
    expect(refused.headers['retry-after']).toBe('1');
    // One reader goes: a query gets its answer again.
    sockets[0]!.destroy();
    let status: unknown = null;
    for (let i = 0; i < 50 && status !== 0; i++) {
      await sleep(50);
      status = (await signed(server, 'admin', 'GET', smallQuery('b.ndjson'))).body.status;
    }
    expect(status).toBe(0);
    expect(budget.peakReaders).toBe(8);
  }, 120_000);

  it('hold at most maxReaderBufferBytes of read buffers: without a count bound, a new reader waits, paused, until one ends', async () => {
    const bound = 3 * MiB;
    const { server, budget } = await serverWith({ maxReaders: 0, maxReaderBufferBytes: bound });
    const first = await pausedReader(server, bigQuery('a.ndjson'));
    expect(first.status).toBe('HTTP/1.1 200 OK');
    // The first reader wanted 8 MiB and got what the bound allows.
    expect(budget.bufferBytes).toBe(bound);
    let answered: number | null = null;
    const second = signed(server, 'admin', 'GET', smallQuery('b.ndjson')).then((a) => (answered = a.body.status as number));
    for (let i = 0; i < 200 && budget.waiting === 0; i++) await sleep(10);
    expect(budget.waiting).toBe(1);
    await sleep(200);
    expect(answered).toBeNull();
    expect(budget.bufferBytes).toBeLessThanOrEqual(bound);
    first.socket.destroy();
    await second;
    expect(answered).toBe(0);
    for (let i = 0; i < 200 && budget.bufferBytes > 0; i++) await sleep(10);
    expect(budget.bufferBytes).toBe(0);
    expect(budget.readers).toBe(0);
  }, 120_000);
});
