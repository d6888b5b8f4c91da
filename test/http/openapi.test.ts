// The OpenAPI document is generated from the routes' parameter declarations and is valid
// OpenAPI; the same declarations check the calls, and a bad value is answered with the code the
// engine answers it with, after the signature check.
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { querySchema } from '../../src/app/param-schema.js';
import { allRoutes } from '../../src/app/routes/index.js';
import { makeHome, raw, serve, signed, type Answer, type TestHome } from './server/helpers.js';
import type { RunningServer } from '../../src/http/server.js';

type Parameter = { name?: string; $ref?: string; schema?: { type?: string; enum?: string[]; items?: { enum?: string[] } } };
type Operation = { summary: string; parameters: Parameter[]; 'x-evio-aliases': string[] };
type Document = {
  openapi: string;
  servers?: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { parameters: Record<string, { name: string; in: string; required?: boolean }> };
};

const V = '/REST/v2.0';

let home: TestHome;
let server: RunningServer;
let doc: Document;

beforeAll(async () => {
  home = makeHome({ prefix: '/pm' });
  server = await serve(home);
  const a = await raw(`${server.url}/openapi.json`);
  expect(a.http).toBe(200);
  doc = a.body as unknown as Document;
});
afterAll(async () => {
  await server?.close();
  await home?.cleanup();
});

function expectCode(a: Answer, code: number, http = 400): void {
  expect({ http: a.http, status: a.body.status }, String(a.body.error)).toEqual({ http, status: code });
  expect(typeof a.body.error).toBe('string');
}

describe('/openapi.json', () => {
  it('is a valid OpenAPI document', async () => {
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
  });

  it('lists each route once, under /REST/v2.0 when it has that version, with its other paths as aliases', () => {
    const listed = Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m} ${p}`));
    expect(listed).toHaveLength(allRoutes().length);
    for (const route of allRoutes()) {
      const canonical = `/REST${route.versions.includes('v2.0') ? '/v2.0' : ''}${route.path}`;
      const op = doc.paths[canonical]?.[route.method.toLowerCase()];
      expect(op?.summary, `${route.method} ${canonical}`).toBe(route.summary);
      const expected = route.versions.flatMap((v) => ['', '/pm'].map((p) => `${p}/REST${v ? `/${v}` : ''}${route.path}`)).filter((p) => p !== canonical);
      expect(op!['x-evio-aliases'].sort()).toEqual(expected.sort());
    }
    expect(doc.paths[`${V}/events`]!.get!['x-evio-aliases']).toEqual(expect.arrayContaining(['/REST/v2/events', '/pm/REST/v2.0/events', '/pm/REST/v2/events']));
    expect(doc.paths['/REST/v2/events']).toBeUndefined();
    expect(doc.paths['/pm/REST/v2.0/events']).toBeUndefined();
  });

  it('sets servers: the root and the configured prefix', () => {
    expect(doc.servers?.map((s) => s.url)).toEqual(['/', '/pm']);
  });

  it('declares the signature parameters once, nonce included, and every operation refers to them', () => {
    const sig = doc.components.parameters;
    expect(Object.keys(sig).sort()).toEqual(['appid', 'hmac', 'nonce', 'timestamp']);
    expect(sig.nonce).toMatchObject({ name: 'nonce', in: 'query', required: false });
    expect(sig.hmac).toMatchObject({ name: 'hmac', in: 'query', required: true });
    for (const ops of Object.values(doc.paths)) {
      for (const op of Object.values(ops)) {
        expect(op.parameters.filter((p) => p.$ref).map((p) => p.$ref)).toEqual(['appid', 'timestamp', 'hmac', 'nonce'].map((n) => `#/components/parameters/${n}`));
      }
    }
  });

  it('publishes the enumerations and types the routes declare', () => {
    const params = new Map(doc.paths[`${V}/events`]!.get!.parameters.filter((p) => p.name).map((p) => [p.name!, p.schema!]));
    expect(params.get('format')!.enum).toEqual(['ff', 'flatfile', 'file', 'db', 'odbc']);
    expect(params.get('etype')!.items!.enum).toEqual(['A', 'R', 'K', 'F', 'Accept', 'Reject', 'Keystroke', 'Finish']);
    expect(params.get('orderdirection')!.enum).toEqual(['asc', 'desc']);
    expect(params.get('verbose')!.enum).toEqual(['0', '1', 'true', 'false']);
    expect(params.get('dump')!.enum).toEqual(['0', '1', 'true', 'false']);
    expect(params.get('order')!.enum).toContain('recnum');
    expect(params.get('limit')!.type).toBe('integer');
    // The schema the server checks has the same parameters as the document.
    for (const route of allRoutes()) {
      const published = Object.values(doc.paths).flatMap((ops) => (ops[route.method.toLowerCase()]?.summary === route.summary ? [ops[route.method.toLowerCase()]!] : []));
      const names = published[0]!.parameters.filter((p) => p.name).map((p) => p.name);
      expect(Object.keys((querySchema(route) as { properties: object }).properties)).toEqual(names);
    }
  });
});

describe('the declarations check the calls', () => {
  it('answers a bad enumeration, flag or number with the code the engine uses for it', async () => {
    expectCode(await signed(server, 'admin', 'GET', `${V}/events?format=bogus`), 1100);
    expectCode(await signed(server, 'admin', 'GET', `${V}/events?format=db&orderdirection=up`), 1109);
    expectCode(await signed(server, 'admin', 'GET', `${V}/events?format=db&verbose=2`), 1110);
    expectCode(await signed(server, 'admin', 'GET', `${V}/events?format=db&limit=ten`), 1106);
    expectCode(await signed(server, 'admin', 'GET', `${V}/events?format=db&etype=A,Q`), 1103);
    expectCode(await signed(server, 'admin', 'GET', `${V}/events?format=db&etype=A&etype=Q`), 1103);
    expectCode(await signed(server, 'admin', 'GET', `${V}/events?format=db&order=${encodeURIComponent('recnum;--')}`), 1108);
    expectCode(await signed(server, 'admin', 'DELETE', `${V}/events?format=db&all=yes`), 1110);
    expectCode(await signed(server, 'admin', 'GET', '/REST/events?file=x&accept=2'), 1110);
    expectCode(await signed(server, 'admin', 'GET', '/REST/iolog?file=x&start=abc'), 1401);
    expectCode(await signed(server, 'admin', 'GET', '/REST/iolog/list?refresh=2'), 1401);
    expectCode(await signed(server, 'admin', 'GET', '/pm/REST/v2/events?format=bogus'), 1100);
    const a = await signed(server, 'admin', 'GET', `${V}/events?format=db&orderdirection=up`);
    // The schema answered (the engine words it "is neither asc nor desc").
    expect(a.body.error).toBe('1109 orderdirection="up" is not one of asc, desc');
  });

  it('lets through what the engine accepts, and leaves it the answers it owns', async () => {
    // Any case (the engine lowercases format, etype and orderdirection); spaces around list items.
    expectCode(await signed(server, 'admin', 'GET', `${V}/events?format=FF`), 1101);
    expectCode(await signed(server, 'admin', 'GET', `${V}/events?format=Odbc`), 1102);
    expectCode(await signed(server, 'admin', 'GET', `${V}/events?format=ff&file=x&etype=${encodeURIComponent(' a , Finish ')}`), 1104);
    // A repeat where one value is expected: the engine's 1009; an unknown parameter: its 1114.
    expectCode(await signed(server, 'admin', 'GET', `${V}/events?format=db&format=ff`), 1009);
    expectCode(await signed(server, 'admin', 'GET', `${V}/events?format=db&nosuchparameter=1`), 1114);
    // Empty values the engine reads as absent.
    expectCode(await signed(server, 'admin', 'GET', `${V}/events?format=ff&verbose=&limit=&orderdirection=`), 1101);
  });

  it('answers an unsigned call with a bad parameter 8119, not the parameter code', async () => {
    const a = await raw(`${server.url}${V}/events?format=bogus&orderdirection=up`);
    expectCode(a, 8119, 401);
  });
});
