// No page of evio may be shown inside another site's frame. The Swagger UI (/docs) holds the
// appid/key bar that signs "Try it out" calls, and the console (/console/) is signed in to; framed
// by another origin, either can be overlaid and clicked through (clickjacking). Every answer says
// so twice: `X-Frame-Options: DENY` (older browsers) and, where the answer has no content security
// policy of its own, `Content-Security-Policy: frame-ancestors 'none'`. The console's own policy
// already ends in frame-ancestors 'none' (console-assets.ts) and is left as it is; a policy that
// restricts only framing changes nothing else a page may load, so /docs keeps working.
import type { FastifyInstance } from 'fastify';

export const FRAME_ANCESTORS_NONE = "frame-ancestors 'none'";

export function installFrameGuard(app: FastifyInstance): void {
  app.addHook('onSend', (_request, reply, payload, done) => {
    reply.header('x-frame-options', 'DENY');
    if (!reply.hasHeader('content-security-policy')) reply.header('content-security-policy', FRAME_ANCESTORS_NONE);
    done(null, payload);
  });
}
