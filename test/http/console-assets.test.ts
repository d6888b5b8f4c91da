// The console is served by evio serve itself (under /console/ and the configured prefix), with a
// content security policy that keeps the page to its own origin; the Swagger UI carries the
// signer and a copy of the document without the signature parameters (the interceptor adds them).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/http/server.js';
import { CONSOLE_DIR, consoleBuilt } from '../../src/http/console-assets.js';
import { makeHome, raw, serve, type TestHome } from './server/helpers.js';

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

type Doc = { paths: Record<string, Record<string, { parameters: { $ref?: string; name?: string }[] }>>; info: { description: string } };

describe('GET /console/', () => {
  it('serves the page with a policy that allows this origin only', async () => {
    for (const path of ['/console/', '/pm/console/']) {
      const a = await raw(`${server.url}${path}`);
      expect(a.http, path).toBe(200);
      expect(a.headers['content-type']).toMatch(/^text\/html/);
      expect(a.text).toContain('<script src="console.js"></script>');
      const csp = String(a.headers['content-security-policy']);
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("connect-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toMatch(/https?:/);
    }
  });

  it('redirects /console to /console/ (the page\'s URLs are relative), keeping the query', async () => {
    const a = await raw(`${server.url}/console?view=sessions`);
    expect(a.http).toBe(301);
    expect(a.headers.location).toBe('/console/?view=sessions');
    const b = await raw(`${server.url}/pm/console`);
    expect(b.headers.location).toBe('/pm/console/');
  });

  it('serves the bundle: the script, and one stylesheet with xterm.js\'s', async () => {
    const js = await raw(`${server.url}/console/console.js`);
    expect(js.http).toBe(200);
    expect(js.headers['content-type']).toMatch(/javascript/);
    const css = await raw(`${server.url}/console/console.css`);
    expect(css.text).toContain('.xterm');
    expect(css.text).not.toMatch(/@import|url\(https?:/);
    expect((await raw(`${server.url}/console/nothing.js`)).http).toBe(404);
  });
});

describe('Swagger UI signing', () => {
  it('loads the signer and hands every call to it through a request interceptor', async () => {
    const init = await raw(`${server.url}/docs/static/swagger-initializer.js`);
    expect(init.text).toContain('requestInterceptor');
    expect(init.text).toContain('evioSignRequest');
    const html = await raw(`${server.url}/docs/`);
    expect(html.text).toContain('theme/evio-sign.js');
    const signer = await raw(`${server.url}/docs/static/theme/evio-sign.js`);
    expect(signer.http).toBe(200);
    expect(signer.text).toContain('evioSignRequest');
  });

  it('shows the operations without the signature parameters; /openapi.json keeps them', async () => {
    const ui = (await raw(`${server.url}/docs/json`)).body as unknown as Doc;
    const api = (await raw(`${server.url}/openapi.json`)).body as unknown as Doc;
    const names = (d: Doc) => d.paths['/REST/v2.0/events']!.get!.parameters.map((p) => p.name ?? p.$ref!.split('/').pop());
    expect(names(api)).toEqual(expect.arrayContaining(['appid', 'timestamp', 'hmac', 'nonce', 'runuser']));
    expect(names(ui)).toContain('runuser');
    for (const n of ['appid', 'timestamp', 'hmac', 'nonce']) expect(names(ui)).not.toContain(n);
    expect(ui.info.description).toContain('"Try it out" signs each call');
  });
});
