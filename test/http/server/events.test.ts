// Every event route over real HTTP on a flat-file log in the temp data folder (written with the
// `evio generate events` generator): queries under each version path, the legacy listing, a
// delete, a streamed 32768-event answer, and an aborted one whose store iteration must stop.
import { copyFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateEvents } from '../../../src/eventlog/generate.js';
import { openStore } from '../../../src/eventlog/stores.js';
import type { EventRow, EventStore } from '../../../src/eventlog/types.js';
import { signedUrl } from '../../../src/app/rest-client.js';
import type { RunningServer } from '../../../src/http/server.js';
import { KEYS, makeHome, readAnswer, serve, signed, type TestHome } from './helpers.js';

const BIG = 200_000;

function writeLog(path: string, count: number, seed: number): void {
  const lines: string[] = [];
  for (const rec of generateEvents({ count, seed })) lines.push(JSON.stringify(rec));
  writeFileSync(path, `${lines.join('\n')}\n`);
}

/** Counts the rows the store yields for the next queries, and whether their iteration was closed. */
function watchQueries(store: EventStore) {
  const stats = { rows: 0, closed: 0, completed: 0 };
  // The batched path is what the service reads.
  const original = store.queryBatches.bind(store);
  store.queryBatches = (q, opts) =>
    (async function* (): AsyncGenerator<EventRow[]> {
      try {
        for await (const batch of original(q, opts)) {
          stats.rows += batch.length;
          yield batch;
        }
        stats.completed++;
      } finally {
        stats.closed++;
      }
    })();
  return stats;
}

let home: TestHome;
let server: RunningServer;
beforeAll(async () => {
  home = makeHome();
  writeLog(join(home.dir, 'events.ndjson'), 40_000, 1);
  copyFileSync(join(home.dir, 'events.ndjson'), join(home.dir, 'deletable.ndjson'));
  writeLog(join(home.dir, 'big.ndjson'), BIG, 2);
  server = await serve(home);
}, 120_000);
afterAll(async () => {
  await server?.close();
  await home?.cleanup();
});

describe('event routes over HTTP', () => {
  it('GET /REST/v2.0/events streams 32768 events (the default limit) with status 0', async () => {
    const a = await signed(server, 'admin', 'GET', '/REST/v2.0/events?format=ff&file=events.ndjson&dump=1');
    expect(a.http).toBe(200);
    expect(a.headers['transfer-encoding']).toBe('chunked');
    expect(a.body.status).toBe(0);
    const events = a.body.events as { recnum: number; offset: number }[];
    expect(events.length).toBe(32768);
    expect(events[0]!.recnum).toBe(1);
    expect(events[32767]!.recnum).toBe(32768);
    expect(events.every((e, i) => i === 0 || e.recnum > events[i - 1]!.recnum)).toBe(true);
  });

  it('GET /REST/v2/events filters and pages like /REST/v2.0/events', async () => {
    const q = 'format=ff&file=events.ndjson&runuser=root&submithost=web*&limit=5';
    const a = await signed(server, 'admin', 'GET', `/REST/v2/events?${q}`);
    const b = await signed(server, 'admin', 'GET', `/REST/v2.0/events?${q}`);
    expect(a.body.status).toBe(0);
    const events = a.body.events as { runuser: string; submithost: string; offset: number }[];
    expect(events.length).toBe(5);
    for (const e of events) {
      expect(e.runuser).toBe('root');
      expect(e.submithost).toMatch(/^web/);
      expect(typeof e.offset).toBe('number');
    }
    expect(b.body.events).toEqual(a.body.events);
    const next = await signed(server, 'admin', 'GET', `/REST/v2.0/events?${q}&offset=${events[4]!.offset}`);
    expect((next.body.events as { recnum: number }[])[0]!.recnum).toBeGreaterThan((a.body.events as { recnum: number }[])[4]!.recnum);
  });

  it('GET /REST/events answers the legacy shape', async () => {
    const a = await signed(server, 'admin', 'GET', '/REST/events?file=events.ndjson&accept=0&reject=0&limit=3');
    expect(a.body.status).toBe(0);
    expect(typeof a.body.time).toBe('number');
    const events = a.body.events as { event: string }[];
    expect(events.length).toBe(3);
    for (const e of events) expect(e.event).toBe('Keystroke');
  });

  it('answers parameter errors with the registry code and HTTP status', async () => {
    const a = await signed(server, 'admin', 'GET', '/REST/v2.0/events?format=ff&file=events.ndjson&etype=F');
    expect(a.http).toBe(400);
    expect(a.body.status).toBe(1104);
    const outside = await signed(server, 'admin', 'GET', '/REST/v2.0/events?format=ff&file=../../etc/passwd');
    expect(outside.http).toBe(403);
    expect(outside.body.status).toBe(1008);
  });

  it('DELETE /REST/v2.0/events removes the matching records', async () => {
    const q = 'format=ff&file=deletable.ndjson&runuser=nobody';
    const before = await signed(server, 'admin', 'GET', `/REST/v2.0/events?${q}&dump=1`);
    const n = (before.body.events as unknown[]).length;
    expect(n).toBeGreaterThan(0);
    const del = await signed(server, 'admin', 'DELETE', `/REST/v2.0/events?${q}`);
    expect(del.body).toEqual({ status: 0, deleted: n });
    const after = await signed(server, 'admin', 'GET', `/REST/v2.0/events?${q}&dump=1`);
    expect(after.body).toMatchObject({ status: 0, events: [] });
  });

  it('an aborted answer stops the store iteration, and the server stays healthy', async () => {
    // The store a request names is the confined one (stores.ts): watch that one.
    const store = await openStore(home.engine, { kind: 'ff', path: join(home.dir, 'big.ndjson'), confined: true });
    const stats = watchQueries(store);
    const href = signedUrl({ url: server.url, appid: 'admin', key: KEYS.admin, method: 'GET', path: `/REST/v2.0/events?format=ff&file=big.ndjson&dump=1&limit=${BIG}` }).href;
    let received = 0;
    await new Promise<void>((resolve, reject) => {
      const req = request(href, (res) => {
        res.once('data', (chunk: Buffer) => {
          received = chunk.length;
          req.destroy(); // the client goes away after the first bytes
          resolve();
        });
      });
      req.on('error', () => {});
      req.end();
      setTimeout(() => reject(new Error('no data within 30 s')), 30_000);
    });
    expect(received).toBeGreaterThan(0);
    const end = Date.now() + 10_000;
    while (stats.closed === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    expect(stats.closed).toBe(1); // the iteration was closed ...
    expect(stats.completed).toBe(0); // ... before the end of the log
    expect(stats.rows).toBeLessThan(BIG / 2);
    const settled = stats.rows;
    await new Promise((r) => setTimeout(r, 300));
    expect(stats.rows).toBe(settled); // nothing reads on in the background

    const after = await signed(server, 'admin', 'GET', '/REST/v2.0/events?format=ff&file=big.ndjson&limit=3');
    expect(after.body.status).toBe(0);
    expect((after.body.events as unknown[]).length).toBe(3);
  });
});
