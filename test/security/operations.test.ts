// Operations: GET /healthz, GET /readyz and GET /metrics. Before, none existed (GET / and these
// answered 404). The probes need no key and say nothing secret (no path, no URL, no password);
// /metrics is limited by the `metrics` setting.
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateEvents } from '../../src/eventlog/generate.js';
import { buildServer, type RunningServer } from '../../src/http/server.js';
import { loadSettings } from '../../src/settings.js';
import { iologIndex } from '../../src/app/iolog.js';
import { sendSigned } from '../../src/app/rest-client.js';
import { APPS, makeHome, raw, readAnswer, serve, signed, type TestHome } from '../http/server/helpers.js';
import { writeSudoSession } from './helpers.js';

const V = '/REST/v2.0';
const SECRET = 'pa55w0rd-never-shown';
const apps = { ...APPS, scraper: { key: 'f'.repeat(64), scheme: 'hmac-sha256' as const, created: '2026-01-01T00:00:00.000Z', routes: ['GET /metrics'] } };

function writeEvents(home: TestHome, n: number): void {
  writeFileSync(join(home.dir, 'events.ndjson'), `${[...generateEvents({ count: n, seed: 3 })].map((r) => JSON.stringify(r)).join('\n')}\n`);
}

describe('GET /healthz and GET /readyz', () => {
  let home: TestHome;
  let server: RunningServer;
  beforeAll(async () => {
    home = makeHome();
    server = await serve(home);
  });
  afterAll(async () => {
    await server?.close();
    await home?.cleanup();
  });

  it('/healthz answers {status:0} without a signature', async () => {
    const a = await raw(`${server.url}/healthz`);
    expect({ http: a.http, body: a.body }).toEqual({ http: 200, body: { status: 0 } });
  });

  it('/readyz answers 200 when the data folder and the worker pool are usable (no event database yet: absent)', async () => {
    const a = await raw(`${server.url}/readyz`);
    expect({ http: a.http, body: a.body }).toEqual({ http: 200, body: { status: 0, ready: { 'eventlog folder': 'ok', eventdb: 'absent', workers: 'ok' } } });
  });

  it('/readyz checks a configured PostgreSQL database', async () => {
    const h = makeHome({ databases: { central: 'postgres://postgres@127.0.0.1:5432/test' } });
    const s = await serve(h);
    try {
      const a = await raw(`${s.url}/readyz`);
      expect(a.http).toBe(200);
      expect((a.body.ready as Record<string, string>)['database central']).toBe('ok');
    } finally {
      await s.close();
      await h.cleanup();
    }
  }, 20_000);
});

describe('GET /readyz when a part is not ready', () => {
  let home: TestHome;
  let server: RunningServer;
  beforeAll(async () => {
    const dir = join('/nonexistent-evio-folder', 'sub');
    home = makeHome({
      // the flat file's folder is missing, the event database is a FIFO, PostgreSQL refuses
      eventlog: join(dir, 'events.ndjson'),
      databases: { central: `postgres://evio:${SECRET}@127.0.0.1:1/audit` },
    });
    const fifo = join(home.dir, 'events.sqlite');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    home.settings.eventdb = fifo;
    server = await serve(home);
  });
  afterAll(async () => {
    await server?.close();
    await home?.cleanup();
  });

  it('answers 503 / 1627 naming each part that is not ready, and no path, URL or password', async () => {
    const t0 = Date.now();
    const a = await raw(`${server.url}/readyz`);
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(a.http).toBe(503);
    expect(a.body).toEqual({
      status: 1627,
      error: '1627 not ready: eventlog folder (ENOENT), eventdb (not a regular file), database central (ECONNREFUSED)',
      ready: { 'eventlog folder': 'ENOENT', eventdb: 'not a regular file', 'database central': 'ECONNREFUSED', workers: 'ok' },
    });
    expect(a.text).not.toContain(SECRET);
    expect(a.text).not.toContain('/nonexistent');
    expect(a.text).not.toContain(home.dir);
    expect(a.text).not.toContain('postgres:');
  }, 20_000);
});

describe('GET /metrics', () => {
  let home: TestHome;
  let server: RunningServer;
  beforeAll(async () => {
    home = makeHome({}, apps);
    writeEvents(home, 20);
    server = await serve(home);
  });
  afterAll(async () => {
    await server?.close();
    await home?.cleanup();
  });

  it('answers Prometheus text from loopback: requests by route and status, latency, events returned, auth failures, worker lanes', async () => {
    const q = await signed(server, 'admin', 'GET', `${V}/events?format=ff&file=events.ndjson&limit=7`);
    expect(q.body.status).toBe(0);
    const bad = await signed(server, 'nobody', 'GET', `${V}/events/destinations`);
    expect(bad.http).toBe(401);
    await raw(`${server.url}/healthz`);
    const m = await raw(`${server.url}/metrics`);
    expect(m.http).toBe(200);
    expect(m.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const t = m.text;
    expect(t).toMatch(/^evio_http_requests_total\{method="GET",route="\/REST\/v2\.0\/events",status="200"\} 1$/m);
    expect(t).toMatch(/^evio_http_requests_total\{method="GET",route="\/REST\/v2\.0\/events\/destinations",status="401"\} 1$/m);
    expect(t).toMatch(/^evio_http_request_duration_seconds_count\{method="GET",route="\/healthz",status="200"\} 1$/m);
    expect(t).toMatch(/^# TYPE evio_http_request_duration_seconds histogram$/m);
    expect(Number(/^evio_events_returned_total (\d+)$/m.exec(t)![1])).toBeGreaterThanOrEqual(7);
    expect(Number(/^evio_flatfile_bytes_read_total (\d+)$/m.exec(t)![1])).toBeGreaterThan(0);
    expect(t).toMatch(/^evio_auth_failures_total 1$/m);
    expect(t).toMatch(/^evio_worker_threads\{lane="bulk"\} \d+$/m);
    expect(t).toMatch(/^evio_worker_queue_size\{lane="interactive"\} \d+$/m);
    expect(t).toMatch(/^evio_worker_utilization\{lane="interactive"\} [\d.e-]+$/m);
    // The process metrics (prom-client's default collectors, issue 27).
    expect(Number(/^process_resident_memory_bytes (\d+)$/m.exec(t)![1])).toBeGreaterThan(0);
    expect(t).toMatch(/^process_cpu_seconds_total [\d.e-]+$/m);
    expect(t).toMatch(/^nodejs_heap_size_used_bytes \d+$/m);
    expect(t).toMatch(/^# TYPE nodejs_eventloop_lag_seconds gauge$/m);
  }, 20_000);

  it('counts the sessions of the I/O-log index once it is built', async () => {
    // This server's index was never built.
    expect((await raw(`${server.url}/metrics`)).text).toMatch(/^evio_iolog_index_sessions 0$/m);
    const h = makeHome();
    writeSudoSession(join(h.dir, 'iolog', 'one'), Buffer.from('hi\r\n'));
    writeSudoSession(join(h.dir, 'iolog', 'two'), Buffer.from('hi\r\n'));
    await iologIndex(h.engine);
    const s = await serve(h);
    try {
      expect((await raw(`${s.url}/metrics`)).text).toMatch(/^evio_iolog_index_sessions 2$/m);
    } finally {
      await s.close();
      await h.cleanup();
    }
  }, 20_000);

  it('refuses a caller that is not on loopback (403 / 1626)', async () => {
    const { app } = await buildServer(home.engine);
    try {
      const far = await app.inject({ method: 'GET', url: '/metrics', remoteAddress: '10.1.2.3' });
      expect({ http: far.statusCode, body: far.json() }).toEqual({ http: 403, body: { status: 1626, error: '1626 GET /metrics from 10.1.2.3: the metrics setting is "loopback"' } });
      const near = await app.inject({ method: 'GET', url: '/metrics', remoteAddress: '::ffff:127.0.0.9' });
      expect(near.statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('under "loopback", a call a proxy on this host forwarded (X-Forwarded-For, Forwarded, X-Real-IP, Via) is refused (issue 28, point 11: loopback is not an identity)', async () => {
    // Before, a reverse proxy on the same host made every client of the proxy a loopback caller.
    for (const [h, v] of [['x-forwarded-for', '203.0.113.9'], ['forwarded', 'for=203.0.113.9'], ['x-real-ip', '203.0.113.9'], ['via', '1.1 nginx']] as const) {
      const a = await raw(`${server.url}/metrics`, { headers: { [h]: v } });
      expect({ http: a.http, status: a.body.status, error: a.body.error }).toEqual({ http: 403, status: 1626, error: expect.stringContaining(`forwarded by a proxy (${h} header)`) });
    }
    expect((await raw(`${server.url}/metrics`)).http).toBe(200);
  });

  it('metrics: "token" wants Authorization: Bearer with the token of metricsTokenFile (made 0600 at start), from anywhere, forwarded or not', async () => {
    const h = makeHome({ metrics: 'token' });
    const s = await serve(h);
    try {
      const file = h.engine.settings.metricsTokenFile;
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const token = readFileSync(file, 'utf8').trim();
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const none = await raw(`${s.url}/metrics`);
      expect({ http: none.http, status: none.body.status }).toEqual({ http: 403, status: 1626 });
      const wrong = await raw(`${s.url}/metrics`, { headers: { authorization: `Bearer ${token.slice(1)}x` } });
      expect({ http: wrong.http, status: wrong.body.status }).toEqual({ http: 403, status: 1626 });
      const ok = await raw(`${s.url}/metrics`, { headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': '203.0.113.9' } });
      expect(ok.http).toBe(200);
      expect(ok.text).toMatch(/^evio_http_requests_total/m);
    } finally {
      await s.close();
      await h.cleanup();
    }
  }, 20_000);

  it('metrics: "signed" wants a signed call of an app allowed GET /metrics; "off" answers 404', async () => {
    const h = makeHome({ metrics: 'signed' }, apps);
    const s = await serve(h);
    try {
      expect((await raw(`${s.url}/metrics`)).body.status).toBe(8119);
      const auditor = await signed(s, 'auditor', 'GET', '/metrics');
      expect({ http: auditor.http, status: auditor.body.status }).toEqual({ http: 403, status: 1605 });
      const ok = await readAnswer(await sendSigned({ url: s.url, appid: 'scraper', key: 'f'.repeat(64), method: 'GET', path: '/metrics' }));
      expect(ok.http).toBe(200);
      expect(ok.text).toMatch(/^evio_auth_failures_total 1$/m); // the unsigned scrape
    } finally {
      await s.close();
      await h.cleanup();
    }
    const off = makeHome({ metrics: 'off' });
    const o = await serve(off);
    try {
      const a = await raw(`${o.url}/metrics`);
      expect({ http: a.http, status: a.body.status }).toEqual({ http: 404, status: 1004 });
    } finally {
      await o.close();
      await off.cleanup();
    }
  }, 20_000);
});

describe('settings of operations', () => {
  it('metrics must be loopback, token, signed or off; shutdownTimeoutMs a whole number of 1 or more', () => {
    expect(loadSettings({ env: {} }).metrics).toBe('loopback');
    expect(loadSettings({ env: {} }).shutdownTimeoutMs).toBe(10_000);
    expect(() => loadSettings({ env: {}, overrides: { metrics: 'public' as never } })).toThrow(/^1002 "metrics": "public" must be one of loopback, token, signed, off/);
    expect(() => loadSettings({ env: {}, overrides: { shutdownTimeoutMs: 0 } })).toThrow(/^1002 "shutdownTimeoutMs"/);
  });
});
