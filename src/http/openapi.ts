// The OpenAPI 3 document, generated from the route table: each route once, under its canonical
// path, with its other paths (older versions, the configured prefix) named as aliases, and its
// parameters as the route declares them (src/app/param-schema.ts derives the validation schema
// from the same declarations), so what is published cannot drift from what is served.
import { ERRORS } from '../errors.js';
import { FLAG_VALUES } from '../app/param-schema.js';
import type { ParamSpec, Route } from '../app/types.js';
import { AUTH_PARAMS } from '../signing.js';

/** Every path a route answers under: each of its versions, bare and under the prefix. */
export function versionedPaths(route: Route, prefix: string): string[] {
  const out: string[] = [];
  for (const p of prefix ? ['', prefix] : ['']) {
    for (const v of route.versions) out.push(`${p}/REST${v ? `/${v}` : ''}${route.path}`);
  }
  return out;
}

/** The path a route is published under: its newest version, without the prefix (a server). */
export function canonicalPath(route: Route): string {
  const v = (['v2.0', 'v2', ''] as const).find((x) => route.versions.includes(x)) ?? '';
  return `/REST${v ? `/${v}` : ''}${route.path}`;
}

/** The signature's parameters, declared once and referenced by every operation. */
const SIGNATURE_PARAMETERS: Record<(typeof AUTH_PARAMS)[number], { description: string; required: boolean; schema: Record<string, unknown> }> = {
  appid: { required: true, description: 'the calling app (the keystore\'s appid)', schema: { type: 'string' } },
  timestamp: { required: true, description: 'Unix seconds when the call was signed; refused outside the allowed skew', schema: { type: 'integer', minimum: 0 } },
  hmac: { required: true, description: 'hex signature of the call (docs/auth.md)', schema: { type: 'string', pattern: '^[0-9a-fA-F]+$' } },
  nonce: {
    required: false,
    description: 'optional text that makes two otherwise identical calls in the same second differ (the second would be refused as a replay); signed with the rest',
    schema: { type: 'string' },
  },
};

/** A declared parameter as OpenAPI publishes it: numbers as integers, flags and enumerations with their values. */
function parameter(name: string, spec: ParamSpec): Record<string, unknown> {
  const description = spec.anyCase ? `${spec.description} (any case)` : spec.description;
  const out: Record<string, unknown> = { name, in: 'query', required: false, description };
  if (spec.type === 'integer') {
    out.schema = { type: 'integer', minimum: 0 };
  } else if (spec.type === 'flag') {
    out.schema = { type: 'string', enum: [...FLAG_VALUES] };
    out.allowEmptyValue = true;
  } else if (spec.list && spec.enum) {
    // etype=A,R (and etype=A&etype=R, which the engine reads the same).
    out.schema = { type: 'array', items: { type: 'string', enum: [...spec.enum] } };
    out.style = 'form';
    out.explode = false;
  } else if (spec.repeat) {
    // runuser=root&runuser=admin: each value an alternative.
    out.schema = { type: 'array', items: { type: 'string' } };
    out.style = 'form';
    out.explode = true;
  } else {
    out.schema = { type: 'string', ...(spec.enum ? { enum: [...spec.enum] } : {}), ...(spec.default !== undefined ? { default: spec.default } : {}) };
    if (spec.allowEmpty) out.allowEmptyValue = true;
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
  const signature = AUTH_PARAMS.map((name) => ({ $ref: `#/components/parameters/${name}` }));
  for (const route of routes) {
    const path = canonicalPath(route);
    const aliases = versionedPaths(route, opts.prefix).filter((p) => p !== path);
    const notes = [route.writes ? 'Changes data: refused for read-only apps.' : '', aliases.length ? `Also answered at ${aliases.join(', ')}.` : ''].filter(Boolean);
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = {
      operationId: operationId(route.method, path),
      summary: route.summary,
      ...(notes.length ? { description: notes.join(' ') } : {}),
      'x-evio-aliases': aliases,
      tags: [route.path.split('/')[1] ?? 'rest'],
      parameters: [...signature, ...Object.entries(route.params).map(([name, spec]) => parameter(name, spec))],
      responses: {
        '200': route.produces === 'text/event-stream'
          ? { description: 'server-sent events (event: state, chunk, end; data: JSON on one line) until the end or the client goes away', content: { 'text/event-stream': { schema: { type: 'string' } } } }
          : {
              description: 'status 0; large answers stream (a failure after the first record ends the body with status and error)',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Answer' } } },
            },
        ...errorResponses,
      },
    };
  }
  return {
    openapi: '3.0.3',
    info: {
      title: 'evio REST service',
      version: opts.version,
      description:
        'Event-log and I/O-log endpoints. Every call is signed: query parameters appid, timestamp (Unix seconds), hmac ' +
        '(hex HMAC-SHA256 over METHOD\\nPATH\\nsorted query without hmac\\nsha256(body); docs/auth.md) and optionally nonce. ' +
        'Each path is listed once, under its newest version; x-evio-aliases names the other paths that answer the same ' +
        '(/REST/v2/..., /REST/..., and the configured prefix). "Try it out" cannot compute the signature; use `evio rest`.',
    },
    servers: [{ url: '/', description: 'the service' }, ...(opts.prefix ? [{ url: opts.prefix, description: 'the same routes under the configured prefix' }] : [])],
    paths,
    components: {
      parameters: Object.fromEntries(AUTH_PARAMS.map((name) => [name, { name, in: 'query', ...SIGNATURE_PARAMETERS[name] }])),
      schemas: {
        Answer: { type: 'object', required: ['status'], properties: { status: { type: 'integer', enum: [0] } }, additionalProperties: true },
        Error: { type: 'object', required: ['status', 'error'], properties: { status: { type: 'integer' }, error: { type: 'string' } } },
      },
    },
  };
}
