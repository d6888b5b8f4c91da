// The server's transport of streamed answers, on handlers made for the test (no event store):
// backpressure (a client that stops reading stops the producer), an aborted request closing
// the handler's iteration, and the abort signal reaching a handler that has not answered yet.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonArrayResponse } from '../../../src/app/json-answer.js';
import { startServer, type RunningServer } from '../../../src/http/server.js';
import { signedUrl } from '../../../src/app/rest-client.js';
import type { Route } from '../../../src/app/types.js';
import { KEYS, makeHome, readAnswer, type TestHome } from './helpers.js';

const TOTAL = 1_000_000;
const produced = { items: 0, closed: false, completed: false };
const waited = { aborted: false, reason: '' };

async function* items(signal: AbortSignal): AsyncGenerator<{ n: number; pad: string }> {
  try {
    for (let n = 0; n < TOTAL; n++) {
      if (signal.aborted) throw signal.reason;
      produced.items++;
      yield { n, pad: 'x'.repeat(100) };
      if (n % 256 === 0) await new Promise((r) => setImmediate(r));
    }
    produced.completed = true;
  } finally {
    produced.closed = true;
  }
}

const testRoutes: Route[] = [
  {
    method: 'GET', path: '/test/stream', versions: ['v2.0'], writes: false, summary: 'test stream', params: { n: { description: 'items', type: 'integer' } },
    async handler(req) {
      const n = Number(req.query.n ?? TOTAL);
      async function* limited() {
        let i = 0;
        for await (const it of items(req.signal)) {
          if (i++ >= n) return;
          yield it;
        }
      }
      return jsonArrayResponse('items', limited());
    },
  },
  {
    method: 'GET', path: '/test/slow', versions: ['v2.0'], writes: false, summary: 'waits for an abort', params: {},
    async handler(req) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, 10_000);
        req.signal.addEventListener('abort', () => {
          clearTimeout(t);
          waited.aborted = true;
          waited.reason = String((req.signal.reason as Error)?.name);
          resolve();
        });
      });
      return { kind: 'json', http: 200, body: { status: 0 } };
    },
  },
];

let home: TestHome;
let server: RunningServer;
beforeAll(async () => {
  home = makeHome();
  server = await startServer(home.engine, { routes: testRoutes });
});
afterAll(async () => {
  await server?.close();
  await home?.cleanup();
});

const href = (path: string) => signedUrl({ url: server.url, appid: 'admin', key: KEYS.admin, method: 'GET', path }).href;

async function until(cond: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('streamed answers', () => {
  it('stream a whole answer as one JSON object ending with status 0', async () => {
    Object.assign(produced, { items: 0, closed: false, completed: false });
    const a = await readAnswer(await new Promise((resolve, reject) => request(href('/REST/v2.0/test/stream?n=32768'), resolve).on('error', reject).end()));
    expect(a.headers['transfer-encoding']).toBe('chunked');
    expect(a.headers['content-type']).toMatch(/^application\/json/);
    expect(a.body.status).toBe(0);
    expect((a.body.items as unknown[]).length).toBe(32768);
    await until(() => produced.closed);
  });

  it('produce only what the client reads, and stop the producer when the client goes away', async () => {
    Object.assign(produced, { items: 0, closed: false, completed: false });
    await new Promise<void>((resolve, reject) => {
      const req = request(href('/REST/v2.0/test/stream'), (res) => {
        res.once('data', () => {
          res.pause(); // a slow client: the server must wait
          setTimeout(() => {
            req.destroy();
            resolve();
          }, 500);
        });
      });
      req.on('error', () => {});
      req.end();
      setTimeout(() => reject(new Error('no data')), 10_000);
    });
    const atAbort = produced.items;
    await until(() => produced.closed);
    expect(produced.completed).toBe(false);
    // What socket buffers hold, not the million items (~110 MB) of the whole answer.
    expect(atAbort).toBeLessThan(TOTAL / 4);
    const settled = produced.items;
    await new Promise((r) => setTimeout(r, 300));
    expect(produced.items).toBe(settled);
  });

  it('abort the signal of a handler that has not answered yet', async () => {
    await new Promise<void>((resolve) => {
      const req = request(href('/REST/v2.0/test/slow'));
      req.on('error', () => resolve());
      req.end();
      setTimeout(() => req.destroy(), 200);
    });
    await until(() => waited.aborted);
    expect(waited.reason).toBe('AbortError');
  });
});

describe('shutdown', () => {
  it('closes promptly with a stalled stream in flight, and stops its producer', async () => {
    const h = makeHome();
    const s = await startServer(h.engine, { routes: testRoutes });
    try {
      Object.assign(produced, { items: 0, closed: false, completed: false });
      const url = signedUrl({ url: s.url, appid: 'admin', key: KEYS.admin, method: 'GET', path: '/REST/v2.0/test/stream' }).href;
      await new Promise<void>((resolve) => {
        const req = request(url, (res) => res.once('data', () => {
          res.pause(); // never reads on
          resolve();
        }));
        req.on('error', () => {});
        req.end();
      });
      const t0 = Date.now();
      await s.close();
      expect(Date.now() - t0).toBeLessThan(5000);
      await until(() => produced.closed);
      expect(produced.completed).toBe(false);
    } finally {
      await h.cleanup();
    }
  });
});
