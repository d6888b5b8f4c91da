// The Swagger UI at /docs, set up so that "Try it out" works: the console's signer script is
// added to the page (a bar where the appid and key are typed once, kept in the tab's
// sessionStorage), and a request interceptor hands each call to it to be signed by docs/auth.md.
// The UI's copy of the document leaves out the signature parameters (appid, timestamp, hmac,
// nonce): the interceptor fills them in. /openapi.json still declares them.
import type { FastifySwaggerUiOptions } from '@fastify/swagger-ui';
import { AUTH_PARAMS } from '../signing.js';
import { swaggerSignScript } from './console-assets.js';

type Operation = { parameters?: ({ $ref?: string; name?: string } | undefined)[] };

/** The document as the UI shows it: operations without the signature parameters. */
export function withoutSignatureParams(doc: Record<string, unknown>): Record<string, unknown> {
  const refs = new Set(AUTH_PARAMS.map((n) => `#/components/parameters/${n}`));
  const paths = (doc.paths ?? {}) as Record<string, Record<string, Operation>>;
  for (const ops of Object.values(paths)) {
    for (const op of Object.values(ops)) {
      if (Array.isArray(op.parameters)) op.parameters = op.parameters.filter((p) => !(p?.$ref && refs.has(p.$ref)) && !(p?.name && (AUTH_PARAMS as readonly string[]).includes(p.name)));
    }
  }
  const info = doc.info as { description?: string } | undefined;
  if (info?.description) info.description = info.description.replace('"Try it out" cannot compute the signature; use `evio rest`.', '"Try it out" signs each call in the page with the appid and key typed in the bar above (kept in this tab only).');
  return doc;
}

export function swaggerUiOptions(): FastifySwaggerUiOptions {
  const script = swaggerSignScript();
  return {
    routePrefix: '/docs',
    transformSpecification: (doc) => withoutSignatureParams(doc as Record<string, unknown>) as never,
    uiConfig: {
      // Serialised into the page as source text: it calls the signer the theme script defines.
      // Swagger UI waits for a promise the interceptor returns.
      requestInterceptor: function (req: unknown) {
        const w = globalThis as unknown as { evioSignRequest?: (r: unknown) => Promise<unknown> };
        return w.evioSignRequest ? w.evioSignRequest(req) : req;
      } as never,
    },
    ...(script ? { theme: { js: [{ filename: 'evio-sign.js', content: script.toString('utf8') }] } } : {}),
  };
}
