// The auditor's console (docs/console.md): the page esbuild bundled into dist/console at build
// time, served as static files at /console/ (and under the configured prefix), with a content
// security policy that lets the page talk to this server only. Also the Swagger UI's signer:
// the script that adds the appid/key bar to /docs and signs "Try it out" calls.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';
import { evioError } from '../errors.js';

/** dist/console, from dist/http (the built server) and from src/http (tests run the sources). */
export const CONSOLE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'console');

export const CONSOLE_PATH = '/console/';

/** The page loads its own files and calls this origin; nothing else (no CDN, no font service). */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  // xterm.js sizes its rows with a <style> element and inline styles.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export function consoleBuilt(): boolean {
  return existsSync(join(CONSOLE_DIR, 'index.html'));
}

/** The Swagger UI's signer script, or null when the console was not built. */
export function swaggerSignScript(): Buffer | null {
  const f = join(CONSOLE_DIR, 'swagger-sign.js');
  return existsSync(f) ? readFileSync(f) : null;
}

export async function registerConsole(app: FastifyInstance, prefix: string): Promise<void> {
  const bases = prefix ? ['', prefix] : [''];
  if (!consoleBuilt()) {
    for (const base of bases) {
      app.get(`${base}${CONSOLE_PATH}*`, async (_req, reply) => {
        const e = evioError('CONSOLE_NOT_BUILT', `${CONSOLE_DIR} has no index.html: run npm run build`);
        return reply.code(e.http).type('application/json; charset=utf-8').send(e.toBody());
      });
    }
    return;
  }
  // /console is answered by the same route as /console/ (the router ignores trailing slashes),
  // but the page's relative URLs need the slash: redirect.
  const bare = new Set(bases.map((b) => `${b}${CONSOLE_PATH.slice(0, -1)}`));
  app.addHook('onRequest', async (req, reply) => {
    const url = req.raw.url ?? req.url;
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    if (bare.has(path) && (req.method === 'GET' || req.method === 'HEAD')) await reply.redirect(`${path}/${q < 0 ? '' : url.slice(q)}`, 301);
  });
  for (const base of bases) {
    await app.register(fastifyStatic, {
      root: CONSOLE_DIR,
      prefix: `${base}${CONSOLE_PATH}`,
      decorateReply: false,
      index: 'index.html',
      redirect: false, // the router ignores trailing slashes; the hook below redirects
      wildcard: false,
      // The page itself is small and changes with each build: always revalidated.
      cacheControl: true,
      maxAge: 0,
      setHeaders(res) {
        res.header('content-security-policy', CSP);
        res.header('x-content-type-options', 'nosniff');
        res.header('referrer-policy', 'no-referrer');
      },
    });
  }
}
