// The operator's routes and hooks: GET /healthz (liveness), GET /readyz (readiness), GET /metrics
// (Prometheus text), the request counters behind it, and the drain of a graceful shutdown. None
// of the probes needs a key and none says anything secret; /metrics is limited by the `metrics`
// setting: direct loopback callers (a call a proxy forwarded is refused: on the same host, a
// reverse proxy makes every client a loopback caller), bearers of the metrics token (what
// Prometheus sends with `authorization: credentials_file`), signed calls of an app allowed
// GET /metrics, or nobody.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { dirname } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Engine } from '../engine.js';
import { evioError, toEvioError, type EvioError } from '../errors.js';
import { runningDestinations, type DestinationLag } from '../app/event-destinations.js';
import { indexedSessionsReader, opsFigures, readiness } from '../app/health.js';
import { logServerFigures } from '../app/log-receiver.js';
import type { Route } from '../app/types.js';
import type { Authenticator } from './auth.js';
import { noteCaller } from './request-log.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../private-files.js';

export interface Ops {
  /**
   * Refuses new calls (503 / 1628, connection closed) and waits for the calls in flight to
   * finish, at most `timeoutMs`. Resolves with the number still running when it gave up.
   */
  drain(timeoutMs: number): Promise<number>;
}

/** The route an app's routes list must allow under `metrics: "signed"`. */
const METRICS_ROUTE = { method: 'GET', path: '/metrics', versions: [], writes: false, summary: 'metrics', params: {} } as unknown as Route;

function isLoopback(addr: string | undefined): boolean {
  return !!addr && (addr.startsWith('127.') || addr === '::1' || addr.startsWith('::ffff:127.'));
}

/** Headers a proxy adds to a call it forwards: the caller is not the loopback peer. */
const FORWARDED = ['forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-real-ip', 'via'];

/** The token in `file`, made (32 random bytes, base64url, 0600) when missing. */
function metricsToken(file: string): Buffer {
  try {
    return Buffer.from(readFileSync(file, 'utf8').trim(), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(dirname(file), { recursive: true, mode: PRIVATE_DIR_MODE });
  try {
    writeFileSync(file, `${randomBytes(32).toString('base64url')}\n`, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return Buffer.from(readFileSync(file, 'utf8').trim(), 'utf8');
}

/** `Authorization: Bearer <token>` names `token` (compared in constant time, as digests). */
function bearerMatches(header: string | undefined, token: Buffer): boolean {
  const m = /^Bearer +(\S+) *$/i.exec(header ?? '');
  if (!m || token.length < 16) return false;
  const digest = (b: Buffer | string) => createHash('sha256').update(b).digest();
  return timingSafeEqual(digest(m[1]!), digest(token));
}

function sendError(reply: FastifyReply, e: EvioError): FastifyReply {
  return reply.code(e.http).type('application/json; charset=utf-8').send(e.toBody());
}

/** The metrics of one server: a registry of its own, so several servers in a process never clash. */
function buildMetrics(engine: Engine): { registry: Registry; requests: Counter<string>; latency: Histogram<string>; authFailures: Counter<string> } {
  const registry = new Registry();
  // The process metrics too (CPU, memory, heap, event-loop lag, open descriptors, GC): prom-client's default collectors.
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({ name: 'evio_http_requests_total', help: 'HTTP requests answered, by method, route and status', labelNames: ['method', 'route', 'status'], registers: [registry] });
  const latency = new Histogram({
    name: 'evio_http_request_duration_seconds',
    help: 'Time from request to the end of the answer (streamed answers included), by method, route and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const authFailures = new Counter({ name: 'evio_auth_failures_total', help: 'Calls refused for invalid authentication (8119)', registers: [registry] });
  new Counter({
    name: 'evio_events_returned_total',
    help: 'Event records streamed to callers (REST and local calls of this process)',
    registers: [registry],
    async collect() {
      const f = await opsFigures(engine);
      this.reset();
      this.inc(f.eventsReturned);
    },
  });
  new Counter({
    name: 'evio_flatfile_bytes_read_total',
    help: 'Bytes of flat-file event logs read by queries to find their rows (compressed bytes for gzip members): the scan cost behind evio_events_returned_total',
    registers: [registry],
    async collect() {
      const f = await opsFigures(engine);
      this.reset();
      this.inc(f.flatfileBytesRead);
    },
  });
  const lanes = (name: string, help: string, pick: (l: { threads: number; queueSize: number; utilization: number }) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['lane'],
      registers: [registry],
      async collect() {
        const f = await opsFigures(engine);
        for (const [lane, s] of Object.entries(f.lanes)) this.set({ lane }, pick(s));
      },
    });
  lanes('evio_worker_threads', 'Worker threads running, by lane (bulk, interactive, heavy)', (s) => s.threads);
  lanes('evio_worker_queue_size', 'Worker tasks waiting for a thread, by lane', (s) => s.queueSize);
  lanes('evio_worker_utilization', 'Share of the lane\'s capacity in use since it started (0..1)', (s) => s.utilization);
  const indexed = indexedSessionsReader(engine);
  new Gauge({
    name: 'evio_iolog_index_sessions',
    help: 'Sessions in the I/O-log index (0 until the index is built; counted at most every 30 s)',
    registers: [registry],
    async collect() {
      this.set((await indexed().catch(() => null)) ?? 0);
    },
  });
  // Event destinations, when this process runs them (a log server): one series per destination.
  const destinations = (name: string, help: string, pick: (d: DestinationLag) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['destination'],
      registers: [registry],
      async collect() {
        this.reset();
        for (const d of (await runningDestinations(engine)?.lag()) ?? []) this.set({ destination: d.name }, pick(d));
      },
    });
  destinations('evio_destination_lag_records', 'Records of the flat-file spool not yet delivered to the destination', (d) => d.lagRecords);
  destinations('evio_destination_delivered_recnum', 'The recnum of the last record delivered to the destination (its cursor)', (d) => d.deliveredRecnum ?? 0);
  destinations('evio_destination_pending_seconds', 'How long the destination has had records waiting without a pause (0 when caught up)', (d) => (d.pendingSince === undefined ? 0 : (Date.now() - d.pendingSince) / 1000));
  destinations('evio_destination_failures', 'Failed delivery attempts in a row (0 while delivering)', (d) => d.failures);
  // The log server, when this process runs one (evio serve with logsrvd.listen).
  const f = logServerFigures;
  const gauge = (name: string, help: string, value: () => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(value());
      },
    });
  gauge('evio_logsrvd_connections', 'Log-server client connections open', () => f.connections);
  gauge('evio_logsrvd_sessions_open', 'I/O-log sessions being received', () => f.sessionsOpen);
  const counter = (name: string, help: string, value: () => number) =>
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(value());
      },
    });
  counter('evio_logsrvd_sessions_total', 'I/O-log sessions opened by the log server (accepts with I/O, restarts)', () => f.sessionsReceived);
  counter('evio_logsrvd_events_total', 'Event records the log server appended', () => f.eventsRecorded);
  const labelled = (name: string, help: string, label: string, values: () => Map<string | number, number>) =>
    new Counter({
      name,
      help,
      labelNames: [label],
      registers: [registry],
      collect() {
        this.reset();
        for (const [k, n] of values()) this.inc({ [label]: String(k) }, n);
      },
    });
  labelled('evio_logsrvd_refusals_total', 'Log-server connections ended by a refusal, by error code', 'code', () => f.refusals);
  labelled('evio_logsrvd_redactions_total', 'Matches masked before writing, by redaction rule (password: typed after a prompt)', 'rule', () => f.redactions);
  return { registry, requests, latency, authFailures };
}

/** `onSigned`: told the socket of a call whose signature passed (a signed scrape of /metrics). */
export function registerOps(app: FastifyInstance, engine: Engine, auth: Authenticator, onSigned: (socket: Socket) => void = () => {}): Ops {
  const settings = engine.settings;
  const m = buildMetrics(engine);
  // Made at start, so that the operator can hand it to the scraper before the first scrape.
  const token = settings.metrics === 'token' ? metricsToken(settings.metricsTokenFile) : null;
  let draining = false;
  let inFlight = 0;
  let onIdle: (() => void) | null = null;

  app.addHook('onRequest', async (request, reply) => {
    if (draining) {
      await sendError(reply.header('connection', 'close'), evioError('SERVICE_STOPPING', 'the service is shutting down; retry against another instance or after the restart'));
      return;
    }
    inFlight++;
    // 'close' comes once the answer is sent or the client is gone: the call no longer holds the drain.
    reply.raw.once('close', () => {
      if (--inFlight === 0 && onIdle) onIdle();
    });
  });

  app.addHook('onResponse', async (request, reply) => {
    // The route template, not the URL: one series per route whatever the parameters.
    const route = request.routeOptions.url ?? 'unmatched';
    const labels = { method: request.method, route, status: String(reply.statusCode) };
    m.requests.inc(labels);
    m.latency.observe(labels, reply.elapsedTime / 1000);
    if (reply.statusCode === 401) m.authFailures.inc(); // 8119 is the registry's only 401
  });

  app.get('/healthz', async (_request, reply) => reply.type('application/json; charset=utf-8').send({ status: 0 }));

  app.get('/readyz', async (_request, reply) => {
    const r = await readiness(engine);
    if (r.ready) return reply.type('application/json; charset=utf-8').send({ status: 0, ready: r.parts });
    const failed = Object.entries(r.parts).filter(([, v]) => v !== 'ok' && v !== 'absent').map(([k, v]) => `${k} (${v})`);
    const e = evioError('SERVICE_NOT_READY', `not ready: ${failed.join(', ')}`);
    return reply.code(e.http).type('application/json; charset=utf-8').send({ ...e.toBody(), ready: r.parts });
  });

  app.get('/metrics', async (request, reply) => {
    try {
      checkMetricsAccess(request);
    } catch (err) {
      return sendError(reply, toEvioError(err));
    }
    const text = await m.registry.metrics();
    return reply.type(m.registry.contentType).send(text);
  });

  function checkMetricsAccess(request: FastifyRequest): void {
    switch (settings.metrics) {
      case 'off':
        throw evioError('NOT_FOUND', 'no route /metrics');
      case 'loopback':
        if (!isLoopback(request.socket.remoteAddress)) throw evioError('METRICS_FORBIDDEN', `GET /metrics from ${request.ip}: the metrics setting is "loopback"`);
        // Loopback is not an identity: behind a proxy on this host every client is loopback.
        for (const h of FORWARDED) {
          if (request.headers[h] !== undefined) throw evioError('METRICS_FORBIDDEN', `GET /metrics forwarded by a proxy (${h} header): the metrics setting is "loopback", which admits direct callers on this host only; use "token" or "signed"`);
        }
        return;
      case 'token':
        if (!bearerMatches(request.headers.authorization, token!)) throw evioError('METRICS_FORBIDDEN', 'GET /metrics without the metrics token (Authorization: Bearer, the metricsTokenFile setting): the metrics setting is "token"');
        return;
      case 'signed': {
        const rawUrl = request.raw.url ?? request.url;
        const q = rawUrl.indexOf('?');
        const who = auth.authenticate({ method: 'GET', rawPath: q < 0 ? rawUrl : rawUrl.slice(0, q), query: new URLSearchParams(q < 0 ? '' : rawUrl.slice(q + 1)), body: undefined, remote: request.ip });
        noteCaller(request, who.appid);
        onSigned(request.raw.socket);
        auth.authorize(who, METRICS_ROUTE);
        return;
      }
    }
  }

  return {
    drain(timeoutMs) {
      draining = true;
      // Keep-alive connections with no call on them close now; the others when their call ends.
      app.server.closeIdleConnections();
      if (inFlight === 0) return Promise.resolve(0);
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          onIdle = null;
          resolve(inFlight);
        }, timeoutMs);
        onIdle = () => {
          clearTimeout(timer);
          resolve(0);
        };
      });
    },
  };
}
