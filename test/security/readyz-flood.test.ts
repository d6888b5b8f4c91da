// GET /readyz needs no key, and it probes the configured PostgreSQL databases (attack review,
// finding 2: each call opened a PostgreSQL connection of its own, so 300 calls in flight took
// 96 of the server's 100 connections). Now the probe goes through the store's pool, one probe
// at a time per server, and its verdict is kept for a second. 200 calls at once against a real
// server on 127.0.0.1 whose settings file names a PostgreSQL database; the connections evio
// opened are counted in pg_stat_activity by an application name of this run's own.
import { request } from 'node:http';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine.js';
import { writeKeystore } from '../../src/keystore.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { loadSettings } from '../../src/settings.js';
import { PG_URL, pgAvailable } from '../helpers/services.js';
import { APPS } from '../http/server/helpers.js';

const CALLS = 200;
const APP_NAME = `evio-readyz-test-${process.pid}`;

const available = await pgAvailable();

/** GET /readyz on a connection of its own; the status code and the answer's body. */
function readyz(url: string): Promise<{ http: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/readyz`, { agent: false }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => resolve({ http: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(parts).toString('utf8')) as Record<string, unknown> }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe.skipIf(!available)('GET /readyz, 200 calls at once, with a PostgreSQL database configured', () => {
  let dir: string;
  let engine: Engine;
  let server: RunningServer;
  let watcher: pg.Client;

  beforeAll(async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'evio-readyz-')));
    const url = new URL(PG_URL);
    url.searchParams.set('application_name', APP_NAME);
    const config = join(dir, 'settings.json');
    // Room for every call at once from this one address (the connection caps are not under test).
    writeFileSync(config, JSON.stringify({ home: dir, databases: { central: url.href }, maxConnections: 1024, maxConnectionsPerAddress: 1024, requestLog: 'off' }));
    const settings = loadSettings({ config, env: {} });
    writeKeystore(settings.keystore, { apps: APPS });
    engine = new Engine(settings);
    server = await startServer(engine, { host: '127.0.0.1', port: 0 });
    watcher = new pg.Client({ connectionString: PG_URL, application_name: 'evio-readyz-test-watcher' });
    await watcher.connect();
  });

  afterAll(async () => {
    await watcher?.end().catch(() => {});
    await server?.close();
    await engine?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function evioConnections(): Promise<number> {
    const r = await watcher.query<{ n: string }>("SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = $2", [new URL(PG_URL).pathname.slice(1), APP_NAME]);
    return Number(r.rows[0]!.n);
  }

  it('answers every call ready and opens one or two PostgreSQL connections, not one per call', async () => {
    expect(await evioConnections()).toBe(0);
    let most = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        most = Math.max(most, await evioConnections());
        await new Promise((r) => setImmediate(r));
      }
    })();
    const answers: Array<{ http: number; body: Record<string, unknown> }> = [];
    try {
      answers.push(...(await Promise.all(Array.from({ length: CALLS }, () => readyz(server.url)))));
    } finally {
      sampling = false;
      await sampler;
    }
    most = Math.max(most, await evioConnections());
    console.log(`${CALLS} GET /readyz at once: at most ${most} PostgreSQL connection(s) of evio at a time`);
    expect(answers.length).toBe(CALLS);
    for (const a of answers) {
      expect(a.http).toBe(200);
      expect((a.body.ready as Record<string, string>)['database central']).toBe('ok');
    }
    expect(most).toBeGreaterThanOrEqual(1); // the probe did reach the server
    expect(most).toBeLessThanOrEqual(2);
  }, 60_000);
});
