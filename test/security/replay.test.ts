// Finding 2 of the attack review: the signature was compared as bytes but remembered as the text
// received, so one captured call was accepted again in upper and mixed case; and one shared
// 100k-entry cache could be flushed by a busy app, after which a captured call passed again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/http/server.js';
import { APPS, makeHome, raw, serve, signedHref, type TestHome } from '../http/server/helpers.js';

const DEST = '/REST/v2.0/events/destinations';
const CAPACITY = 20;

let home: TestHome;
let server: RunningServer;

beforeAll(async () => {
  home = makeHome({ replayCapacityPerApp: CAPACITY }, { ...APPS, busy: { key: 'f'.repeat(64), scheme: 'hmac-sha256', created: '2026-01-01T00:00:00.000Z', rateLimit: 0 } });
  server = await serve(home);
});
afterAll(async () => {
  await server?.close();
  await home?.cleanup();
});

/** The same URL with the hmac parameter's hex rewritten by `f`. */
function withHmac(href: string, f: (hex: string) => string): string {
  const u = new URL(href);
  u.searchParams.set('hmac', f(u.searchParams.get('hmac')!));
  return u.href;
}

const mixed = (hex: string) => [...hex].map((c, i) => (i % 2 ? c.toUpperCase() : c)).join('');
const mixedOther = (hex: string) => [...hex].map((c, i) => (i % 2 ? c : c.toUpperCase())).join('');

describe('a captured call', () => {
  it('is accepted once, whatever the case of its hex signature', async () => {
    const href = signedHref(server, 'admin', 'GET', DEST, { nonce: 'case-1' });
    const variants = [href, withHmac(href, (h) => h.toUpperCase()), withHmac(href, mixed), withHmac(href, mixedOther), withHmac(href, (h) => h.toLowerCase())];
    const statuses = [];
    for (const v of variants) statuses.push((await raw(v)).body.status);
    expect(statuses).toEqual([0, 8119, 8119, 8119, 8119]);
  });

  it('in upper case first is also accepted once (the bytes are the signature)', async () => {
    const href = withHmac(signedHref(server, 'admin', 'GET', DEST, { nonce: 'case-2' }), (h) => h.toUpperCase());
    expect((await raw(href)).body.status).toBe(0);
    expect((await raw(withHmac(href, (h) => h.toLowerCase()))).body.status).toBe(8119);
  });

  it('with a signature of the wrong length or with non-hex characters is refused', async () => {
    const href = signedHref(server, 'admin', 'GET', DEST, { nonce: 'case-3' });
    for (const f of [(h: string) => `${h}00`, (h: string) => h.slice(0, -2), (h: string) => `${h.slice(0, -1)}g`, (h: string) => ` ${h.slice(1)}`]) {
      expect((await raw(withHmac(href, f))).body.status).toBe(8119);
    }
    expect((await raw(href)).body.status).toBe(0);
  });

  it('stays refused after another app fills its own replay protection; that app is refused, not forgotten', async () => {
    const captured = signedHref(server, 'admin', 'GET', DEST, { nonce: 'flood-victim' });
    expect((await raw(captured)).body.status).toBe(0);
    const busy: unknown[] = [];
    const busyHrefs: string[] = [];
    for (let i = 0; i < CAPACITY + 10; i++) {
      busyHrefs.push(signedHref(server, 'busy', 'GET', DEST, { key: 'f'.repeat(64), nonce: `flood-${i}` }));
      busy.push((await raw(busyHrefs[i]!)).body.status);
    }
    expect(busy.slice(0, CAPACITY)).toEqual(Array(CAPACITY).fill(0));
    expect(busy.slice(CAPACITY)).toEqual(Array(10).fill(1620));
    // The victim's captured call is still remembered: the flood could not push it out.
    expect((await raw(captured)).body.status).toBe(8119);
    // And the flooding app's first calls are still remembered too (refused, not forgotten).
    expect((await raw(busyHrefs[0]!)).body.status).toBe(8119);
    // Other apps are not affected by one app's full cache.
    expect((await raw(signedHref(server, 'admin', 'GET', DEST, { nonce: 'after-flood' }))).body.status).toBe(0);
  });
});
