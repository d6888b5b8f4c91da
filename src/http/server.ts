// The fastify app: mounts the framework-free handlers of the route table under every version
// path and the optional prefix. fastify does transport only (TLS, body parsing, streaming);
// before a handler runs, the call is authenticated, rate-limited and authorized. Every answer,
// fastify's own refusals included, is a JSON object with `status` (and `error` on failure) and
// the HTTP status of the registry.
import type { Socket } from 'node:net';
import fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { Engine } from '../engine.js';
import { evioError, setErrorTextFilter, toEvioError, type EvioError } from '../errors.js';
import { hideRoots } from '../paths.js';
import { Authenticator } from './auth.js';
import { errorResponse, matchRoute } from '../app/router.js';
import { queryRefusal, querySchema, type SchemaFailure } from '../app/param-schema.js';
import { openApiDocument, versionedPaths } from './openapi.js';
import { RateLimiter } from './rate-limit.js';
import { allRoutes } from '../app/routes/index.js';
import { queryFromSearch } from '../app/query-params.js';
import type { ConnectionCap } from './connection-cap.js';
import { finalAnswerText, sendFinalAnswer } from './final-answer.js';
import { createNodeServer, type NodeServer } from './node-server.js';
import { registerOps, type Ops } from './ops-routes.js';
import { guardStall } from './stall-guard.js';
import { iterableBody } from './stream-body.js';
import { checkListenPolicy, loadTls } from '../listen-policy.js';
import { answered, installRequestLog, requestLogOptions } from './request-log.js';
import { registerConsole } from './console-assets.js';
import { installFrameGuard } from './frame-guard.js';
import { swaggerUiOptions } from './swagger-signing.js';

/** For `evio serve`: the transport policy, checked before the data folder is prepared. */
export { checkListenPolicy } from '../listen-policy.js';
import type { ApiResponse, Route } from '../app/types.js';

/** Bounds on the query string, checked before any work (the handlers bound values further). */
export const MAX_PARAMS = 64;
export const MAX_PARAM_NAME = 64;
export const MAX_PARAM_VALUE = 8192;
const EVIO_VERSION = '0.1.0';

export interface ServerOptions {
  /** Default: allRoutes(). */
  routes?: readonly Route[];
  /** Server-side log lines (auth refusals, internal errors). */
  log?: (line: string) => void;
  /** Unix seconds, for the timestamp check (tests). */
  now?: () => number;
}

/** Raw body bytes per request: the signature covers them exactly as sent. */
const rawBodies = new WeakMap<object, Buffer>();


function checkQueryBounds(search: URLSearchParams): void {
  let n = 0;
  for (const [k, v] of search) {
    if (++n > MAX_PARAMS) throw evioError('HTTP_BAD_REQUEST', `more than ${MAX_PARAMS} query parameters`);
    if (k.length > MAX_PARAM_NAME) throw evioError('BAD_PARAMETER_ENCODING', `a parameter name is longer than ${MAX_PARAM_NAME} characters`);
    if (v.length > MAX_PARAM_VALUE) throw evioError('BAD_PARAMETER_ENCODING', `parameter "${k}" is longer than ${MAX_PARAM_VALUE} characters`);
    if (k.includes('\u0000') || v.includes('\u0000')) throw evioError('BAD_PARAMETER_ENCODING', `parameter "${k}" contains a NUL byte`);
  }
}

/** RFC 6266: a plain ASCII fallback plus the exact UTF-8 name. */
function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

/** Sends an answer; a streamed one is cut when its client stops reading (`onStall`). */
function sendResponse(reply: FastifyReply, res: ApiResponse, stalledMs: number, onStall: () => void): FastifyReply {
  reply.code(res.http);
  if (res.kind !== 'json') guardStall(reply.raw, stalledMs, onStall);
  switch (res.kind) {
    case 'json':
      return reply.type('application/json; charset=utf-8').send(res.body);
    case 'json-stream':
      return reply.type('application/json; charset=utf-8').send(iterableBody(res.chunks));
    case 'file':
      reply.type(res.contentType).header('content-disposition', contentDisposition(res.filename));
      if (res.size !== undefined) reply.header('content-length', res.size);
      return reply.send(res.stream);
  }
}

/** fastify's own refusals as registry codes. */
function frameworkError(err: FastifyError | Error, bodyLimit: number): EvioError {
  const code = (err as FastifyError).code;
  switch (code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return evioError('HTTP_BODY_TOO_LARGE', `the request body is larger than ${bodyLimit} bytes`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return evioError('HTTP_UNSUPPORTED_MEDIA_TYPE', 'the request body must be application/json');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return evioError('HTTP_BAD_BODY', `the request body is not valid JSON: ${err.message}`);
    case 'FST_ERR_BAD_URL':
      return evioError('HTTP_BAD_REQUEST', 'the URL is not validly percent-encoded');
    case 'FST_ERR_VALIDATION':
      // Routes attach their query check and answer it with the parameter's code (serveRoute);
      // anything else fastify validates is refused as a bad request naming what failed.
      return evioError('HTTP_BAD_REQUEST', err.message);
  }
  const status = (err as FastifyError).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) return evioError('HTTP_BAD_REQUEST', err.message);
  return toEvioError(err);
}

/**
 * Refusals of the HTTP parser itself (before fastify sees a request), the request timeouts
 * among them: still our JSON shape, and the connection is destroyed once the answer is out (a
 * peer that never reads would otherwise keep it half-open and counted; final-answer.ts).
 */
function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable || (err.code === 'ECONNRESET')) {
    socket.destroy();
    return;
  }
  const e = err.code === 'HPE_HEADER_OVERFLOW'
    ? evioError('HTTP_HEADERS_TOO_LARGE', 'the request line or headers are too large')
    : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? evioError('HTTP_REQUEST_TIMEOUT', 'the request did not arrive in time (headersTimeoutMs / requestTimeoutMs)')
      : evioError('HTTP_BAD_REQUEST', 'the HTTP request is malformed');
  sendFinalAnswer(socket, finalAnswerText(e));
}

export interface BuiltServer {
  app: FastifyInstance;
  auth: Authenticator;
  /** The Node server's connection count (tests, metrics). */
  node: NodeServer;
  /** Health, readiness, metrics and the shutdown drain (ops-routes.ts). */
  ops: Ops;
}

/** Whether a request announces a body (fastify reads one only then). */
function hasBody(req: FastifyRequest): boolean {
  const h = req.headers;
  return h['transfer-encoding'] !== undefined || (h['content-length'] !== undefined && h['content-length'] !== '0');
}

/**
 * Builds the app (not yet listening). Reads the keystore first and refuses to start when it is
 * missing, invalid or readable by others (KEYSTORE_INVALID / KEYSTORE_INSECURE), and reads the
 * TLS files when configured (TLS_UNREADABLE).
 */
/** The roots of every server of this process, hidden from error bodies (paths.ts, hideRoots). */
const hiddenRoots = new Set<string>();

export async function buildServer(engine: Engine, opts: ServerOptions = {}): Promise<BuiltServer> {
  const settings = engine.settings;
  // Errors name files relative to the configured roots, never by the server's absolute paths.
  for (const r of [...settings.iologdirs, ...settings.eventlogdirs, settings.home]) hiddenRoots.add(r);
  setErrorTextFilter((t) => hideRoots([...hiddenRoots], t));
  const routes = opts.routes ?? allRoutes();
  const log = opts.log ?? (() => {});
  const auth = new Authenticator({ keystorePath: settings.keystore, skewSeconds: settings.authSkewSeconds, replayCapacityPerApp: settings.replayCapacityPerApp, log, ...(opts.now ? { now: opts.now } : {}) });
  auth.load();
  const limiter = new RateLimiter();
  const bodyLimit = settings.maxBodyBytes;
  const tls = settings.tls ? loadTls(settings.tls) : null;
  let node: NodeServer | undefined;

  const app = fastify({
    // The Node server with the connection bounds (node-server.ts): timeouts, connection cap.
    serverFactory: (handler) => {
      node = createNodeServer(settings, tls, handler);
      return node.server;
    },
    ...requestLogOptions(settings),
    bodyLimit,
    exposeHeadRoutes: false,
    // Closing aborts streams in flight: their queries stop through the abort signal.
    forceCloseConnections: true,
    return503OnClosing: false,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 256 },
    clientErrorHandler,
    // Query values stay the strings sent: the schemas check them as strings, and a repeated
    // parameter stays an array (never coerced to its first value).
    ajv: { customOptions: { coerceTypes: false } },
    frameworkErrors(err, _req, reply) {
      const e = frameworkError(err, bodyLimit);
      void (reply as unknown as FastifyReply).code(e.http).send(e.toBody());
    },
  }) as unknown as FastifyInstance;

  installRequestLog(app, settings);
  installFrameGuard(app);

  // Bodies are JSON only; the raw bytes are kept for the signature check.
  app.removeAllContentTypeParsers();
  const parseBody = (isJson: boolean) => (req: FastifyRequest, body: Buffer, done: (err: Error | null, value?: unknown) => void) => {
    rawBodies.set(req, body);
    if (body.length === 0) return done(null, undefined);
    if (!isJson) return done(evioError('HTTP_UNSUPPORTED_MEDIA_TYPE', `the request body must be application/json, not ${req.headers['content-type'] ?? 'untyped'}`));
    try {
      done(null, JSON.parse(body.toString('utf8')));
    } catch (err) {
      done(evioError('HTTP_BAD_BODY', `the request body is not valid JSON: ${(err as Error).message}`));
    }
  };
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit }, parseBody(true));
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, parseBody(false));

  app.setErrorHandler((err: FastifyError, _req, reply) => {
    const e = frameworkError(err, bodyLimit);
    if (e.errorName === 'INTERNAL') log(`internal error: ${err.stack ?? err.message}`);
    // The rest of a refused body is not read: the connection ends with the answer.
    if (e.errorName === 'HTTP_BODY_TOO_LARGE') reply.header('connection', 'close');
    void reply.code(e.http).type('application/json; charset=utf-8').send(e.toBody());
  });

  app.setNotFoundHandler((req, reply) => {
    const path = (req.raw.url ?? req.url).split('?')[0]!;
    let e: EvioError;
    try {
      matchRoute(req.method, path, settings.prefix, routes);
      e = evioError('NOT_FOUND', `no route ${path}`); // fastify knows every route; a match here is a method it refused
    } catch (err) {
      e = toEvioError(err);
    }
    void reply.code(e.http).send(e.toBody());
  });

  const ops = registerOps(app, engine, auth, (socket) => node!.connections.signed(socket));

  // OpenAPI and Swagger UI: served without a signature; they describe the API and hold no data.
  const document = openApiDocument(routes, { prefix: settings.prefix, version: EVIO_VERSION });
  await app.register(swagger, { mode: 'static', specification: { document: document as never } });
  await app.register(swaggerUi, swaggerUiOptions());
  app.get('/openapi.json', async () => document);
  await registerConsole(app, settings.prefix);

  for (const route of routes) {
    // fastify checks the query against the schema derived from the parameter declarations the
    // document publishes; its verdict is attached to the request and answered after
    // authentication (serveRoute), so an unsigned call learns nothing about its parameters.
    const schema = { querystring: querySchema(route) };
    for (const url of versionedPaths(route, settings.prefix)) {
      const apiPath = settings.prefix && url.startsWith(`${settings.prefix}/`) ? url.slice(settings.prefix.length) : url;
      app.route({
        method: route.method,
        url,
        schema,
        attachValidation: true,
        onRequest: refuseHopelessBody,
        handler: (request, reply) => serveRoute(route, apiPath, request, reply),
      });
    }
  }

  /**
   * Runs before a body is read: a call whose signature cannot be valid (a missing or repeated
   * appid/timestamp/hmac, an unknown appid, a stale timestamp) is refused with 8119 and its
   * connection closed, without reading the body. Calls without a body go straight to the full
   * check, which costs the same time whatever is wrong.
   */
  async function refuseHopelessBody(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (!hasBody(request)) return;
    const rawUrl = request.raw.url ?? request.url;
    const q = rawUrl.indexOf('?');
    try {
      auth.precheck(new URLSearchParams(q < 0 ? '' : rawUrl.slice(q + 1)), request.ip);
    } catch (err) {
      const e = toEvioError(err);
      await reply.code(e.http).header('connection', 'close').type('application/json; charset=utf-8').send(e.toBody());
    }
  }

  async function serveRoute(route: Route, apiPath: string, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    // The client going away before the answer is complete aborts the handler's engine work.
    const ac = new AbortController();
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) ac.abort();
    });
    const rawUrl = request.raw.url ?? request.url;
    const q = rawUrl.indexOf('?');
    const rawPath = q < 0 ? rawUrl : rawUrl.slice(0, q);
    const search = new URLSearchParams(q < 0 ? '' : rawUrl.slice(q + 1));
    const remote = request.ip;
    const started = Date.now() / 1000;
    let appid: string | null = null; // set once the call is authorized (the audit record's A or R)
    let authenticated = false; // a valid signature: its refusals are recorded one by one
    let caller: string | null = null; // the appid whose signature was verified
    let res: ApiResponse;
    try {
      checkQueryBounds(search);
      const who = auth.authenticate({ method: request.method, rawPath, query: search, body: rawBodies.get(request), remote });
      authenticated = true;
      caller = who.appid;
      // The connection is a signed caller's from now on: never closed to make room (connection-cap.ts).
      node!.connections.signed(request.raw.socket);
      const rate = limiter.take(who.appid, who.rateLimit);
      if (rate.limit > 0) reply.header('x-ratelimit-limit', rate.limit).header('x-ratelimit-remaining', rate.remaining);
      if (!rate.allowed) {
        reply.header('retry-after', rate.retryAfter);
        throw evioError('HTTP_RATE_LIMITED', `appid ${who.appid} made more than ${rate.limit} calls per minute; retry in ${rate.retryAfter} s`);
      }
      auth.authorize(who, route);
      appid = who.appid;
      const invalid = request.validationError as { validation?: SchemaFailure[] } | undefined;
      if (invalid) throw queryRefusal(route, invalid.validation ?? [], request.query);
      res = await route.handler({ method: route.method, path: apiPath, query: queryFromSearch(search), body: request.body, signal: ac.signal, remote, unredacted: who.app.unredacted === true }, engine);
    } catch (err) {
      const e = toEvioError(err);
      if (e.errorName === 'INTERNAL') log(`internal error on ${route.method} ${apiPath}: ${(err as Error).stack ?? e.message}`);
      if (e.errorName === 'STORE_READERS_BUSY' || e.errorName === 'READERS_BUSY') reply.header('retry-after', 1);
      res = errorResponse(e);
    }
    await answered(engine, request, { route, apiPath, search, appid, authenticated, caller, started }, res, log);
    const stalledMs = settings.stalledResponseTimeoutMs;
    return sendResponse(reply, res, stalledMs, () => {
      const e = evioError('HTTP_RESPONSE_STALLED', `${route.method} ${apiPath} from ${remote}: the client read nothing for ${stalledMs} ms; the connection was closed`);
      log(e.message);
    });
  }

  if (!node) throw new Error('fastify did not create the server'); // serverFactory runs in fastify()
  return { app, auth, node, ops };
}

export interface ListenOptions extends ServerOptions {
  host?: string;
  port?: number;
  allowInsecure?: boolean;
}

export interface RunningServer {
  app: FastifyInstance;
  /** Base URL, e.g. http://127.0.0.1:24351 (the bound port when 0 was asked for). */
  url: string;
  port: number;
  /** Open, refused and evicted connections (maxConnections, maxConnectionsPerAddress). */
  connections: ConnectionCap;
  /** Graceful shutdown, first half: refuse new calls, let those in flight finish (Ops.drain). */
  drain(timeoutMs: number): Promise<number>;
  close(): Promise<void>;
}

/** Checks the transport policy, builds the app and listens. */
export async function startServer(engine: Engine, opts: ListenOptions = {}): Promise<RunningServer> {
  const s = engine.settings;
  const host = opts.host ?? s.host;
  const port = opts.port ?? s.port;
  await checkListenPolicy(host, s.tls, opts.allowInsecure ?? s.allowInsecure);
  const { app, node, ops } = await buildServer(engine, opts);
  try {
    await app.listen({ host, port });
  } catch (err) {
    await app.close().catch(() => {});
    throw evioError('LISTEN_FAILED', `cannot listen on ${host}:${port}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const addr = app.server.address();
  const boundPort = addr && typeof addr === 'object' ? addr.port : port;
  const urlHost = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return {
    app,
    url: `${s.tls ? 'https' : 'http'}://${urlHost}:${boundPort}`,
    port: boundPort,
    connections: node.connections,
    drain: (ms) => ops.drain(ms),
    close: () => app.close(),
  };
}
