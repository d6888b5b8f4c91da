// Transport: start-up refusals (keystore mode, plain HTTP off loopback, TLS files), HTTPS with a
// self-signed certificate made here, fastify's own refusals in our {status, error} shape, the
// prefix, and the OpenAPI document and Swagger UI.
import { execFileSync } from 'node:child_process';
import { chmodSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withoutSignatureParams } from '../../../src/http/swagger-signing.js';
import { ERRORS, isEvioError } from '../../../src/errors.js';
import { buildServer, startServer, type RunningServer } from '../../../src/http/server.js';
import { allRoutes } from '../../../src/app/routes/index.js';
import { KEYS, makeHome, raw, serve, signed, signedHref, type TestHome } from './helpers.js';

const DEST = '/REST/v2.0/events/destinations';

async function refusal(p: Promise<unknown>): Promise<{ name: string; message: string }> {
  try {
    await p;
  } catch (err) {
    if (isEvioError(err)) return { name: err.errorName, message: err.message };
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('start-up refusals', () => {
  let home: TestHome;
  beforeAll(() => {
    home = makeHome();
  });
  afterAll(async () => home.cleanup());

  it('refuses a keystore that group or others can read (1606)', async () => {
    for (const mode of [0o640, 0o604, 0o620]) {
      chmodSync(home.settings.keystore, mode);
      const r = await refusal(buildServer(home.engine));
      expect(r.name).toBe('KEYSTORE_INSECURE');
      expect(r.message).toMatch(/^1606 keystore .* has mode 0[0-7]{3}: group or others may access it; run chmod 600 /);
    }
    chmodSync(home.settings.keystore, 0o600);
    const { app } = await buildServer(home.engine);
    await app.close();
  });

  it('refuses a missing or broken keystore (1607)', async () => {
    const other = makeHome();
    try {
      rmSync(other.settings.keystore);
      expect((await refusal(buildServer(other.engine))).name).toBe('KEYSTORE_INVALID');
    } finally {
      await other.cleanup();
    }
  });

  it('refuses plain HTTP on a non-loopback address (1610) unless allowed', async () => {
    const r = await refusal(startServer(home.engine, { host: '0.0.0.0', port: 0 }));
    expect(r.name).toBe('LISTEN_INSECURE');
    expect(r.message).toMatch(/^1610 refusing plain HTTP on 0\.0\.0\.0/);
    const s = await startServer(home.engine, { host: '0.0.0.0', port: 0, allowInsecure: true });
    try {
      const a = await signed({ ...s, url: `http://127.0.0.1:${s.port}` }, 'admin', 'GET', DEST);
      expect(a.body.status).toBe(0);
    } finally {
      await s.close();
    }
  });

  it('refuses unreadable TLS files (1611) and a port in use (1612)', async () => {
    const tlsHome = makeHome({ tls: { cert: '/nonexistent/cert.pem', key: '/nonexistent/key.pem' } });
    try {
      expect((await refusal(startServer(tlsHome.engine))).name).toBe('TLS_UNREADABLE');
    } finally {
      await tlsHome.cleanup();
    }
    const s = await serve(home);
    try {
      const r = await refusal(startServer(home.engine, { port: s.port }));
      expect(r.name).toBe('LISTEN_FAILED');
      expect(r.message).toContain('EADDRINUSE');
    } finally {
      await s.close();
    }
  });
});

describe('HTTPS', () => {
  let home: TestHome;
  let server: RunningServer;
  beforeAll(async () => {
    const boot = makeHome();
    const cert = join(boot.dir, 'cert.pem');
    const key = join(boot.dir, 'key.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'], { stdio: 'ignore' });
    home = makeHome({ tls: { cert, key }, host: '0.0.0.0' });
    server = await serve(home); // TLS: a non-loopback address is allowed
    home.cleanup = ((orig) => async () => {
      await orig();
      await boot.cleanup();
    })(home.cleanup);
  });
  afterAll(async () => {
    await server?.close();
    await home?.cleanup();
  });

  it('serves signed calls over TLS', async () => {
    expect(server.url).toMatch(/^https:\/\/0\.0\.0\.0:\d+$/);
    const a = await signed({ ...server, url: `https://127.0.0.1:${server.port}` }, 'admin', 'GET', DEST, { insecure: true });
    expect(a.http).toBe(200);
    expect(a.body.status).toBe(0);
  });

  it('lets a client that verifies certificates refuse the self-signed one', async () => {
    const r = await refusal(signed({ ...server, url: `https://127.0.0.1:${server.port}` }, 'admin', 'GET', DEST));
    expect(r.name).toBe('REST_CLIENT');
    expect(r.message).toMatch(/self[- ]signed/i);
  });

  it('does not answer plain HTTP on the TLS port', async () => {
    await expect(raw(`http://127.0.0.1:${server.port}${DEST}`)).rejects.toThrow();
  });
});

describe('fastify refusals in the {status, error} shape', () => {
  let home: TestHome;
  let server: RunningServer;
  beforeAll(async () => {
    home = makeHome({ prefix: '/pm' });
    server = await serve(home);
  });
  afterAll(async () => {
    await server?.close();
    await home?.cleanup();
  });

  const shape = (a: { http: number; body: Record<string, unknown> }, name: keyof typeof ERRORS) => {
    expect(a.body.status).toBe(ERRORS[name].code);
    expect(String(a.body.error)).toMatch(new RegExp(`^${ERRORS[name].code} `));
    expect(a.http).toBe(ERRORS[name].http);
  };

  it('unknown paths 1004, wrong methods 1005', async () => {
    shape(await raw(`${server.url}/REST/v2.0/nothing`), 'NOT_FOUND');
    shape(await raw(`${server.url}/elsewhere`), 'NOT_FOUND');
    shape(await raw(`${server.url}/REST/v2.0/events`, { method: 'PUT' }), 'METHOD_NOT_ALLOWED');
    shape(await raw(`${server.url}/pm/REST/v2.0/events/destinations`, { method: 'DELETE' }), 'METHOD_NOT_ALLOWED');
  });

  it('bodies: too large 1600, not JSON 1601, not application/json 1602', async () => {
    // Bodies are read only for calls that may be signed (known appid, fresh timestamp, hmac):
    // the others are 8119 before their body (test/security/connection-limits.test.ts).
    const del = () => signedHref(server, 'admin', 'DELETE', '/REST/v2.0/events');
    const big = JSON.stringify({ pad: 'x'.repeat(1024 * 1024) });
    shape(await raw(del(), { method: 'DELETE', headers: { 'content-type': 'application/json' }, body: big }), 'HTTP_BODY_TOO_LARGE');
    shape(await raw(del(), { method: 'DELETE', headers: { 'content-type': 'application/json' }, body: '{"a":' }), 'HTTP_BAD_BODY');
    shape(await raw(del(), { method: 'DELETE', headers: { 'content-type': 'text/plain' }, body: 'a' }), 'HTTP_UNSUPPORTED_MEDIA_TYPE');
  });

  it('URLs: bad percent-encoding 1603, too many parameters 1603, long values 1009, huge request line 1614', async () => {
    shape(await raw(`${server.url}/REST/v2.0/events/%zz`), 'HTTP_BAD_REQUEST');
    const many = Array.from({ length: 70 }, (_, i) => `p${i}=1`).join('&');
    shape(await raw(`${server.url}${DEST}?${many}`), 'HTTP_BAD_REQUEST');
    shape(await raw(`${server.url}${DEST}?runuser=${'x'.repeat(9000)}`), 'BAD_PARAMETER_ENCODING');
    shape(await raw(`${server.url}${DEST}?runuser=${'x'.repeat(20000)}`), 'HTTP_HEADERS_TOO_LARGE');
  });

  it('serves the routes under the prefix as well, signed over the path as sent', async () => {
    const a = await signed(server, 'admin', 'GET', `/pm${DEST}`);
    expect(a.body.status).toBe(0);
    const legacyPath = await signed(server, 'admin', 'GET', '/pm/REST/v2/events/destinations');
    expect(legacyPath.body.status).toBe(0);
  });

  it('every route of the table, under every version path and the prefix, is mounted behind authentication', async () => {
    for (const route of allRoutes()) {
      for (const version of route.versions) {
        for (const prefix of ['', '/pm']) {
          const path = `${prefix}/REST${version ? `/${version}` : ''}${route.path}`;
          const unsigned = await raw(`${server.url}${path}`, { method: route.method });
          expect(unsigned.body.status, `${route.method} ${path}`).toBe(8119);
          const bad = await signed(server, 'admin', route.method, `${path}?nosuchparameter=1`);
          expect([8119, 1004, 1005], `${route.method} ${path}`).not.toContain(bad.body.status);
          expect(typeof bad.body.status).toBe('number');
        }
      }
    }
  });
});

describe('OpenAPI and Swagger UI', () => {
  let home: TestHome;
  let server: RunningServer;
  beforeAll(async () => {
    home = makeHome({ prefix: '/pm' });
    server = await serve(home);
  });
  afterAll(async () => {
    await server?.close();
    await home?.cleanup();
  });

  it('describes every route once, its version and prefix paths as aliases, without a signature', async () => {
    const a = await raw(`${server.url}/openapi.json`);
    expect(a.http).toBe(200);
    type Op = { summary: string; parameters: { name?: string; $ref?: string }[]; 'x-evio-aliases': string[] };
    const doc = a.body as { openapi: string; paths: Record<string, Record<string, Op>> };
    expect(doc.openapi).toMatch(/^3\./);
    for (const route of allRoutes()) {
      const all = route.versions.flatMap((v) => ['', '/pm'].map((prefix) => `${prefix}/REST${v ? `/${v}` : ''}${route.path}`));
      const listed = all.filter((p) => doc.paths[p]?.[route.method.toLowerCase()]);
      expect(listed, `${route.method} ${route.path}`).toHaveLength(1);
      const op = doc.paths[listed[0]!]![route.method.toLowerCase()]!;
      expect(op.summary).toBe(route.summary);
      expect([...listed, ...op['x-evio-aliases']].sort()).toEqual(all.sort());
      expect(op.parameters.filter((p) => p.name).map((p) => p.name).sort()).toEqual(Object.keys(route.params).sort());
    }
    // The Swagger UI's copy is the same document without the signature parameters, which its
    // request interceptor fills in (docs/console.md).
    const json = await raw(`${server.url}/docs/json`);
    expect(json.body).toEqual(withoutSignatureParams(structuredClone(a.body)));
  });

  it('serves Swagger UI from the npm package', async () => {
    const page = await raw(`${server.url}/docs`);
    expect(page.http).toBe(200);
    expect(page.text).toContain('swagger-ui-bundle.js');
    expect(page.text).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)[a-z]/i);
    const bundle = await raw(`${server.url}/docs/static/swagger-ui-bundle.js`);
    expect(bundle.http).toBe(200);
    expect(bundle.text.length).toBeGreaterThan(100_000);
  });

  it('keeps the key out of every answer', async () => {
    const a = await raw(`${server.url}/openapi.json`);
    for (const k of Object.values(KEYS)) expect(a.text).not.toContain(k);
  });
});
