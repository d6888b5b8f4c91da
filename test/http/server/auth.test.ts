// Authentication, authorization and rate limits over real HTTP (DESIGN §5, docs/auth.md).
// Uses GET /events/destinations and the DELETE route, which answer without an event store
// for the checks that come before the handler.
import { chmodSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readKeystore, writeKeystore } from '../../../src/keystore.js';
import type { RunningServer } from '../../../src/http/server.js';
import { KEYS, makeHome, nowSeconds, raw, serve, signed, signedHref, type TestHome } from './helpers.js';

const DEST = '/REST/v2.0/events/destinations';
const AUTH_TEXT = /^8119 invalid authentication for appid (\S+) from 127\.0\.0\.1$/;

let home: TestHome;
let server: RunningServer;
const refusals: string[] = [];

beforeAll(async () => {
  home = makeHome();
  server = await serve(home, { log: (l) => refusals.push(l) });
});
afterAll(async () => {
  await server?.close();
  await home?.cleanup();
});

function expectRefused(a: { http: number; body: Record<string, unknown>; text: string }, appid: string): void {
  expect(a.http).toBe(401);
  expect(a.body.status).toBe(8119);
  expect(a.body.error).toMatch(AUTH_TEXT);
  expect(AUTH_TEXT.exec(String(a.body.error))![1]).toBe(appid);
  expect(Object.keys(a.body).sort()).toEqual(['error', 'status']);
  for (const k of Object.values(KEYS)) expect(a.text).not.toContain(k);
}

describe('signed calls', () => {
  it('answer a correctly signed call, under every version path', async () => {
    for (const path of [DEST, '/REST/v2/events/destinations', `${DEST}/`]) {
      const a = await signed(server, 'admin', 'GET', path);
      expect(a.http).toBe(200);
      expect(a.body).toMatchObject({ status: 0, destinations: { ff: 'events.ndjson' } });
      expect(a.headers['content-type']).toMatch(/^application\/json/);
    }
  });

  it('refuse an unsigned call, naming only the appid and the caller address', async () => {
    expectRefused(await raw(`${server.url}${DEST}`), '(none)');
    expectRefused(await raw(`${server.url}${DEST}?appid=admin&timestamp=${nowSeconds()}`), 'admin');
  });

  it('refuse a wrong key and an unknown appid with the same answer', async () => {
    const wrong = await signed(server, 'admin', 'GET', DEST, { key: KEYS.auditor });
    expectRefused(wrong, 'admin');
    const unknown = await signed(server, 'nobody', 'GET', DEST);
    expectRefused(unknown, 'nobody');
    expect(wrong.text.replace('admin', 'X')).toBe(unknown.text.replace('nobody', 'X'));
  });

  it('refuse a stale or future timestamp', async () => {
    const skew = home.settings.authSkewSeconds;
    expectRefused(await signed(server, 'admin', 'GET', DEST, { timestamp: nowSeconds() - skew - 5 }), 'admin');
    expectRefused(await signed(server, 'admin', 'GET', DEST, { timestamp: nowSeconds() + skew + 5 }), 'admin');
    expect((await signed(server, 'admin', 'GET', DEST, { timestamp: nowSeconds() - skew + 5 })).body.status).toBe(0);
  });

  it('refuse a replayed signature (identical calls in one second differ only by their nonce)', async () => {
    const ts = nowSeconds();
    expect((await signed(server, 'admin', 'GET', DEST, { timestamp: ts, nonce: 'n1' })).body.status).toBe(0);
    expect((await signed(server, 'admin', 'GET', DEST, { timestamp: ts, nonce: 'n2' })).body.status).toBe(0);
    expectRefused(await signed(server, 'admin', 'GET', DEST, { timestamp: ts, nonce: 'n1' }), 'admin');
    expect((await signed(server, 'admin', 'GET', DEST, { timestamp: ts, nonce: null })).body.status).toBe(0);
    expectRefused(await signed(server, 'admin', 'GET', DEST, { timestamp: ts, nonce: null }), 'admin');
  });

  it('refuse a replayed signature sent as is', async () => {
    const href = signedHref(server, 'admin', 'GET', DEST);
    expect((await raw(href)).body.status).toBe(0);
    expectRefused(await raw(href), 'admin');
  });

  it('refuse a signature over another path, method, query or body', async () => {
    const href = signedHref(server, 'admin', 'GET', DEST);
    expectRefused(await raw(href.replace('/v2.0/', '/v2/')), 'admin');
    expectRefused(await raw(`${href}&extra=1`), 'admin');
    const get = signedHref(server, 'admin', 'GET', '/REST/v2.0/events?format=ff&file=x.ndjson');
    expectRefused(await raw(get, { method: 'DELETE' }), 'admin');
    const del = signedHref(server, 'admin', 'DELETE', '/REST/v2.0/events?all=1&format=ff&file=x.ndjson', { body: '{"a":1}' });
    expectRefused(await raw(del, { method: 'DELETE', headers: { 'content-type': 'application/json' }, body: '{"a":2}' }), 'admin');
  });

  it('refuse a malformed appid without echoing it', async () => {
    const a = await raw(`${server.url}${DEST}?appid=${encodeURIComponent('<script>')}&timestamp=${nowSeconds()}&hmac=00`);
    expectRefused(a, '(invalid)');
  });

  it('log the reason on the server side only', () => {
    expect(refusals.some((l) => l.includes('signature already used'))).toBe(true);
    expect(refusals.some((l) => l.includes('signature does not match'))).toBe(true);
    expect(refusals.some((l) => /timestamp \d+ is -?\d+ s from/.test(l))).toBe(true);
  });
});

describe('authorization', () => {
  it('refuses a route the app is not listed for (1605, after a valid signature)', async () => {
    expect((await signed(server, 'auditor', 'GET', DEST)).body.status).toBe(0);
    const a = await signed(server, 'auditor', 'GET', '/REST/v2.0/events?format=ff&file=events.ndjson');
    expect(a.http).toBe(403);
    expect(a.body).toEqual({ status: 1605, error: '1605 appid auditor may not call GET /events' });
  });

  it('refuses a writing route to a read-only app', async () => {
    const a = await signed(server, 'reader', 'DELETE', '/REST/v2.0/events?all=1&format=ff&file=events.ndjson');
    expect(a.http).toBe(403);
    expect(a.body).toEqual({ status: 1605, error: '1605 appid reader is read-only and may not call DELETE /events' });
    expect((await signed(server, 'reader', 'GET', DEST)).body.status).toBe(0);
  });

  it('passes a writing route of a read-write app on to its handler', async () => {
    const a = await signed(server, 'admin', 'DELETE', '/REST/v2.0/events?format=ff&file=events.ndjson');
    expect(a.body.status).toBe(1111); // no filter: the handler's own refusal, not auth
  });
});

describe('legacy HMAC-MD5 scheme', () => {
  it('is accepted for an app that enables it, with its replay rule', async () => {
    const ts = nowSeconds();
    expect((await signed(server, 'legacy', 'GET', DEST, { scheme: 'hmac-md5-legacy', timestamp: ts, nonce: null })).body.status).toBe(0);
    // The same signature on another call in the same second: the weakness the doc names.
    expect((await signed(server, 'legacy', 'GET', '/REST/v2/events/destinations', { scheme: 'hmac-md5-legacy', timestamp: ts, nonce: null })).body.status).toBe(0);
    // The identical call again is a replay.
    expectRefused(await signed(server, 'legacy', 'GET', DEST, { scheme: 'hmac-md5-legacy', timestamp: ts, nonce: null }), 'legacy');
    // SHA-256 keeps working for the legacy app.
    expect((await signed(server, 'legacy', 'GET', DEST)).body.status).toBe(0);
  });

  it('is refused for an app that does not enable it', async () => {
    expectRefused(await signed(server, 'admin', 'GET', DEST, { scheme: 'hmac-md5-legacy' }), 'admin');
  });
});

describe('rate limits', () => {
  it('send X-RateLimit headers and refuse with 1604 / HTTP 429 past the limit', async () => {
    const seen: string[] = [];
    for (let i = 0; i < 3; i++) {
      const a = await signed(server, 'limited', 'GET', DEST);
      expect(a.body.status).toBe(0);
      expect(a.headers['x-ratelimit-limit']).toBe('3');
      seen.push(String(a.headers['x-ratelimit-remaining']));
    }
    expect(seen).toEqual(['2', '1', '0']);
    const over = await signed(server, 'limited', 'GET', DEST);
    expect(over.http).toBe(429);
    expect(over.body.status).toBe(1604);
    expect(over.body.error).toMatch(/^1604 appid limited made more than 3 calls per minute; retry in \d+ s$/);
    expect(over.headers['x-ratelimit-remaining']).toBe('0');
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('applies the default limit of 600 per minute when the keystore sets none', async () => {
    const a = await signed(server, 'reader', 'GET', DEST);
    expect(a.headers['x-ratelimit-limit']).toBe('600');
  });

  it('sends no headers for an unlimited app (rateLimit 0)', async () => {
    const a = await signed(server, 'admin', 'GET', DEST);
    expect(a.headers['x-ratelimit-limit']).toBeUndefined();
  });
});

describe('keystore changes while running', () => {
  it('picks up a new app, and refuses every call while the keystore is exposed', async () => {
    const ks = readKeystore(home.settings.keystore);
    ks.apps.late = { key: 'f'.repeat(64), scheme: 'hmac-sha256', created: '2026-01-02T00:00:00.000Z' };
    writeKeystore(home.settings.keystore, ks);
    expect((await signed(server, 'late', 'GET', DEST, { key: 'f'.repeat(64) })).body.status).toBe(0);
    chmodSync(home.settings.keystore, 0o644);
    try {
      expectRefused(await signed(server, 'admin', 'GET', DEST), 'admin');
      expect(refusals.some((l) => l.includes('keystore unusable') && l.includes('1606'))).toBe(true);
    } finally {
      chmodSync(home.settings.keystore, 0o600);
    }
    expect((await signed(server, 'admin', 'GET', DEST)).body.status).toBe(0);
  });
});
