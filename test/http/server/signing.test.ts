// The shared signing module: the canonical string of docs/auth.md, its worked example (checked
// against `openssl dgst -hmac` when the doc was written), and the client side that adds the
// signature to a request target.
import { describe, expect, it } from 'vitest';
import { canonicalQuery, canonicalString, rfc3986, sha256Hex, signMd5Legacy, signRequest, signSha256 } from '../../../src/signing.js';
import { parseRoutePattern, routeAllowed } from '../../../src/keystore.js';
import { ReplayCache } from '../../../src/http/replay-guard.js';
import { RateLimiter } from '../../../src/http/rate-limit.js';
import { isLoopbackAddress } from '../../../src/listen-policy.js';

const KEY = '4f1c6c2a2b9e8d7f00112233445566778899aabbccddeeff0011223344556677';
const TARGET = '/REST/v2.0/events?format=ff&file=events.ndjson&submithost=web*&from=2026/01/02 10:00&limit=3&appid=admin&timestamp=1767225600';

describe('canonical string (docs/auth.md worked example)', () => {
  const url = new URL(TARGET, 'http://example.invalid');
  const parts = { method: 'get', path: url.pathname, query: url.searchParams };
  it('sorts RFC 3986-encoded pairs and hashes the empty body', () => {
    expect(canonicalString(parts)).toBe(
      'GET\n/REST/v2.0/events\nappid=admin&file=events.ndjson&format=ff&from=2026%2F01%2F02%2010%3A00&limit=3&submithost=web%2A&timestamp=1767225600\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
  });
  it('gives the documented signatures', () => {
    expect(signSha256(KEY, parts)).toBe('c01db3b47c19b66d8490fed11352ea16b5fc18f70f633b5cd52bb690a3fce28c');
    expect(signMd5Legacy(KEY, 'admin', '1767225600')).toBe('61b779cdbd67e18247dbeb1f91f7df5f');
    expect(sha256Hex('{"note":"x"}')).toBe('be7d6db86e0c5b0b496c4f424a10de3e76ea9752b7ce20b3e0700e2f24d8089e');
  });
  it('signRequest adds appid, timestamp and hmac and sends the query in canonical order', () => {
    const r = signRequest({ method: 'GET', target: '/REST/v2.0/events?format=ff&file=events.ndjson&submithost=web*&from=2026/01/02 10:00&limit=3', appid: 'admin', key: KEY, timestamp: 1767225600 });
    expect(r.hmac).toBe('c01db3b47c19b66d8490fed11352ea16b5fc18f70f633b5cd52bb690a3fce28c');
    expect(r.target).toBe('/REST/v2.0/events?appid=admin&file=events.ndjson&format=ff&from=2026%2F01%2F02%2010%3A00&limit=3&submithost=web%2A&timestamp=1767225600&hmac=c01db3b47c19b66d8490fed11352ea16b5fc18f70f633b5cd52bb690a3fce28c');
  });
  it('ignores hmac, sorts by key then value, encodes what RFC 3986 reserves', () => {
    expect(canonicalQuery([['b', '2'], ['a', 'z'], ['a', 'y'], ['hmac', 'x'], ['c', "!'()* ~"]])).toBe('a=y&a=z&b=2&c=%21%27%28%29%2A%20~');
    expect(rfc3986('é/ +')).toBe('%C3%A9%2F%20%2B');
  });
  it('covers the body: a changed body changes the signature', () => {
    const q = new URLSearchParams('appid=admin&timestamp=1767225600');
    expect(signSha256(KEY, { method: 'DELETE', path: '/REST/v2.0/events', query: q, body: '{"a":1}' })).not.toBe(signSha256(KEY, { method: 'DELETE', path: '/REST/v2.0/events', query: q, body: '{"a":2}' }));
  });
});

describe('route patterns', () => {
  it('match method and path, with subtrees and wildcards', () => {
    expect(parseRoutePattern('GET /events')).toEqual({ method: 'GET', path: '/events', subtree: false });
    expect(parseRoutePattern('get /iolog/*')).toEqual({ method: 'GET', path: '/iolog', subtree: true });
    expect(parseRoutePattern('GET events')).toBeNull();
    expect(routeAllowed(['GET /events'], 'GET', '/events')).toBe(true);
    expect(routeAllowed(['GET /events'], 'DELETE', '/events')).toBe(false);
    expect(routeAllowed(['GET /events'], 'GET', '/events/destinations')).toBe(false);
    expect(routeAllowed(['* /events/*'], 'DELETE', '/events/iologs')).toBe(true);
    expect(routeAllowed(['* *'], 'PUT', '/anything')).toBe(true);
  });
});

describe('replay cache and rate limiter', () => {
  it('refuses a key until its expiry, and refuses new keys when full rather than forget old ones', () => {
    const c = new ReplayCache(3);
    expect(c.remember('a', 110, 100)).toBe('fresh');
    expect(c.remember('a', 110, 105)).toBe('replay');
    expect(c.remember('a', 110, 110)).toBe('replay'); // the expiry second itself is still inside the window
    expect(c.remember('a', 120, 111)).toBe('fresh'); // expired: a new timestamp window
    expect(['b', 'c', 'd', 'e'].map((k) => c.remember(k, 200, 112))).toEqual(['fresh', 'fresh', 'full', 'full']);
    expect(c.size).toBe(3);
    expect(c.remember('a', 120, 113)).toBe('replay'); // still remembered: nothing was forgotten to make room
    expect(c.remember('d', 200, 121)).toBe('fresh'); // 'a' expired at 120, so its place is free again
    expect(c.size).toBe(3);
  });
  it('lets a burst of `limit` through, then refills at limit per minute', () => {
    let t = 0;
    const r = new RateLimiter(() => t);
    expect([1, 2, 3].map(() => r.take('x', 3).remaining)).toEqual([2, 1, 0]);
    const refused = r.take('x', 3);
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfter: 20 });
    t += 20_000;
    expect(r.take('x', 3).allowed).toBe(true);
    expect(r.take('y', 0)).toMatchObject({ allowed: true, limit: 0 });
  });
});

describe('loopback addresses', () => {
  it('knows loopback from the rest', () => {
    for (const a of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', '::ffff:127.0.0.1']) expect(isLoopbackAddress(a)).toBe(true);
    for (const a of ['0.0.0.0', '::', '10.0.0.1', '192.168.1.1', '::ffff:10.0.0.1']) expect(isLoopbackAddress(a)).toBe(false);
  });
});
