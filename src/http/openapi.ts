// The OpenAPI 3 document, generated from the route table (methods, summaries, parameters) for
// every version path and the configured prefix, so it cannot drift from what is served.
import { ERRORS } from '../errors.js';
import type { Route } from '../app/types.js';

export function versionedPaths(route: Route, prefix: string): string[] {
  const out: string[] = [];
  for (const p of prefix ? ['', prefix] : ['']) {
    for (const v of route.versions) out.push(`${p}/REST${v ? `/${v}` : ''}${route.path}`);
  }
  return out;
}

function operationId(method: string, path: string): string {
  return `${method.toLowerCase()}${path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ''))}`;
}

/** HTTP statuses of the registry's codes, for the documented error responses. */
function errorStatuses(): Map<number, number[]> {
  const byHttp = new Map<number, number[]>();
  for (const d of Object.values(ERRORS)) {
    if ('retired' in d && d.retired) continue;
    byHttp.set(d.http, [...(byHttp.get(d.http) ?? []), d.code]);
  }
  return byHttp;
}

export function openApiDocument(routes: readonly Route[], opts: { prefix: string; version: string }): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const statuses = errorStatuses();
  const errorResponses: Record<string, unknown> = {};
  for (const [http, codes] of [...statuses].sort((a, b) => a[0] - b[0])) {
    errorResponses[String(http)] = {
      description: `codes ${codes.join(', ')} (docs/errors.md)`,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  for (const route of routes) {
    for (const path of versionedPaths(route, opts.prefix)) {
      const parameters = Object.entries(route.params).map(([name, description]) => ({ name, in: 'query', required: false, description, schema: { type: 'string' } }));
      paths[path] ??= {};
      paths[path][route.method.toLowerCase()] = {
        operationId: operationId(route.method, path),
        summary: route.summary,
        description: route.writes ? 'Changes data: refused for read-only apps.' : undefined,
        tags: [route.path.split('/')[1] ?? 'rest'],
        parameters,
        responses: {
          '200': {
            description: 'status 0; large answers stream (a failure after the first record ends the body with status and error)',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Answer' } } },
          },
          ...errorResponses,
        },
      };
    }
  }
  return {
    openapi: '3.0.3',
    info: {
      title: 'evio REST service',
      version: opts.version,
      description:
        'Event-log and I/O-log endpoints. Every call is signed: query parameters appid, timestamp (Unix seconds) and hmac ' +
        '(hex HMAC-SHA256 over METHOD\\nPATH\\nsorted query without hmac\\nsha256(body); docs/auth.md). ' +
        '"Try it out" cannot compute the signature; use `evio rest`.',
    },
    paths,
    components: {
      securitySchemes: {
        appid: { type: 'apiKey', in: 'query', name: 'appid' },
        timestamp: { type: 'apiKey', in: 'query', name: 'timestamp', description: 'Unix seconds, within the allowed skew' },
        hmac: { type: 'apiKey', in: 'query', name: 'hmac', description: 'signature of the call (docs/auth.md)' },
      },
      schemas: {
        Answer: { type: 'object', required: ['status'], properties: { status: { type: 'integer', enum: [0] } }, additionalProperties: true },
        Error: { type: 'object', required: ['status', 'error'], properties: { status: { type: 'integer' }, error: { type: 'string' } } },
      },
    },
    security: [{ appid: [], timestamp: [], hmac: [] }],
  };
}
