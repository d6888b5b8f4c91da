// No page of evio can be framed by another site. Before, /docs (the Swagger UI with the appid/key
// bar that signs "Try it out") sent neither a content security policy nor X-Frame-Options, so
// another origin could frame it and overlay it; the console had frame-ancestors 'none' in its own
// policy but no X-Frame-Options for browsers without CSP level 2.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/http/server.js';
import { CONSOLE_DIR, consoleBuilt } from '../../src/http/console-assets.js';
import { makeHome, raw, serve, type TestHome } from '../http/server/helpers.js';

let home: TestHome;
let server: RunningServer;

beforeAll(async () => {
  if (!consoleBuilt()) throw new Error(`${CONSOLE_DIR} is missing: npm run build`);
  home = makeHome({ prefix: '/pm' });
  server = await serve(home);
});
afterAll(async () => {
  await server?.close();
  await home?.cleanup();
});

function framingRefused(headers: Record<string, unknown>): boolean {
  return headers['x-frame-options'] === 'DENY' && String(headers['content-security-policy'] ?? '').split(';').map((d) => d.trim()).includes("frame-ancestors 'none'");
}

describe('framing', () => {
  it('/docs, its page, scripts and document refuse to be framed, and the page still loads', async () => {
    const page = await raw(`${server.url}/docs`);
    expect(page.http).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('swagger-ui');
    expect(framingRefused(page.headers)).toBe(true);
    // Only framing is restricted: the UI's own scripts and styles load as before.
    expect(page.headers['content-security-policy']).toBe("frame-ancestors 'none'");
    for (const path of ['/docs/static/index.html', '/docs/static/swagger-initializer.js', '/docs/static/swagger-ui-bundle.js', '/docs/static/theme/evio-sign.js', '/docs/json', '/openapi.json']) {
      const a = await raw(`${server.url}${path}`);
      expect([path, a.http < 400, framingRefused(a.headers)]).toEqual([path, true, true]);
    }
  });

  it('/console/ keeps its own policy (which ends framing) and adds X-Frame-Options', async () => {
    for (const path of ['/console/', '/pm/console/', '/console/console.js']) {
      const a = await raw(`${server.url}${path}`);
      expect([path, a.http]).toEqual([path, 200]);
      expect([path, framingRefused(a.headers)]).toEqual([path, true]);
      const csp = String(a.headers['content-security-policy']);
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
    }
    const redirect = await raw(`${server.url}/console`);
    expect(redirect.http).toBe(301);
    expect(framingRefused(redirect.headers)).toBe(true);
  });

  it('API answers, errors included, say the same', async () => {
    for (const path of ['/healthz', '/REST/v2.0/events', '/nothing-here']) {
      const a = await raw(`${server.url}${path}`);
      expect([path, framingRefused(a.headers)]).toEqual([path, true]);
    }
  });
});
