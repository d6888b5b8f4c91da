// The service's request log and the REST half of the audit trail (docs/service.md, "Request log
// and audit trail"). Every call is one JSON line through fastify's logger (pino): time, request
// id, client address, appid, method, path, parameters (never hmac, keys or passwords), HTTP status, evio
// status, rows or bytes returned, duration. Calls to writing routes are also appended to the
// audit event log (src/app/audit.ts) before their answer is sent.
import { randomUUID } from 'node:crypto';
import { LogController, type FastifyInstance, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import type { Engine } from '../engine.js';
import { auditArgv, isSecretParam, recordAudit } from '../app/audit.js';
import { recordUnsignedRefusal, UNAUTHENTICATED } from '../app/audit-refusals.js';
import { redactText } from '../app/audit-redact.js';
import type { ApiResponse, Route } from '../app/types.js';
import { toEvioError } from '../errors.js';
import { APPID_RE } from '../keystore.js';
import type { Settings } from '../settings.js';

/** fastify's logger options for the `requestLog` setting: stderr (the journal), a file, or off. */
export function requestLogOptions(settings: Settings): Pick<FastifyServerOptions, 'logger' | 'logController' | 'genReqId'> {
  const where = settings.requestLog;
  if (where === 'off') return { logger: false };
  return {
    // fastify's own two lines per call are replaced by the one line written on response.
    logController: new LogController({ disableRequestLogging: true }),
    // Unique across restarts, so a request id in the audit log names one call.
    genReqId: () => randomUUID(),
    logger: where === 'stderr' ? { level: 'info', stream: process.stderr } : { level: 'info', file: where },
  };
}

/** What the log line needs that only the route handler's side knows. */
interface Note {
  /** socket.bytesWritten when the call arrived: the answer's bytes are the difference. */
  bytes0: number;
  res: ApiResponse | null;
  /** The evio status of an answer that did not come from a route (fastify's refusals). */
  code: number | null;
  auditFailed: string | null;
  /** The appid whose signature was verified; null for every other call. */
  caller: string | null;
}

const notes = new WeakMap<FastifyRequest, Note>();
const STATUS_RE = /"status":(\d+)/;

/**
 * The query parameters of a raw URL without secret-named ones, and with credentials inside the
 * others replaced (a dsn's `PWD=...;`, audit-redact.ts); a repeated one becomes an array.
 */
function loggedParams(rawUrl: string): Record<string, string | string[]> {
  const q = rawUrl.indexOf('?');
  const out: Record<string, string | string[]> = {};
  if (q < 0) return out;
  for (const [k, v] of new URLSearchParams(rawUrl.slice(q + 1))) {
    if (isSecretParam(k)) continue;
    const had = out[k];
    const value = redactText(v);
    out[k] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
  }
  return out;
}

/** The appid a call names, as the auth refusals show it. */
function claimedAppid(search: URLSearchParams): string {
  const all = search.getAll('appid');
  return all.length === 0 ? '(none)' : all.length === 1 && APPID_RE.test(all[0]!) ? all[0]! : '(invalid)';
}

function evioStatus(res: ApiResponse): number {
  if (res.kind === 'json') return typeof res.body.status === 'number' ? res.body.status : 0;
  if (res.kind === 'json-stream') return res.status();
  return 0;
}

/** Adds the hooks that write one line per call (nothing when the request log is off). */
export function installRequestLog(app: FastifyInstance, settings: Settings): void {
  if (settings.requestLog === 'off') return;
  app.addHook('onRequest', (request, _reply, done) => {
    notes.set(request, { bytes0: request.raw.socket?.bytesWritten ?? 0, res: null, code: null, auditFailed: null, caller: null });
    done();
  });
  app.addHook('onSend', (request, _reply, payload, done) => {
    const note = notes.get(request);
    if (note && !note.res && typeof payload === 'string') {
      const m = STATUS_RE.exec(payload);
      if (m) note.code = Number(m[1]);
    }
    done(null, payload);
  });
  app.addHook('onResponse', (request, reply, done) => {
    const note = notes.get(request);
    const rawUrl = request.raw.url ?? request.url;
    const q = rawUrl.indexOf('?');
    const res = note?.res ?? null;
    const code = res ? evioStatus(res) : (note?.code ?? (reply.statusCode < 400 ? 0 : null));
    // An appid is a fact only once its signature was verified; otherwise it is what the call claims.
    const caller = note?.caller ?? null;
    const line: Record<string, unknown> = {
      ip: request.ip,
      ...(caller !== null ? { appid: caller } : { claimed_appid: claimedAppid(new URLSearchParams(q < 0 ? '' : rawUrl.slice(q + 1))) }),
      method: request.method,
      path: q < 0 ? rawUrl : rawUrl.slice(0, q),
      params: loggedParams(rawUrl),
      http: reply.statusCode,
      code,
    };
    if (res?.kind === 'json-stream') line.rows = res.items();
    const socket = request.raw.socket;
    if (socket && note) line.bytes = socket.bytesWritten - note.bytes0;
    line.ms = Math.round(reply.elapsedTime * 10) / 10;
    if (note?.auditFailed) line.auditFailed = note.auditFailed;
    request.log.info(line, 'request');
    done();
  });
  // A file's lines are written asynchronously: the last ones reach it before close returns.
  app.addHook('onClose', (instance, done) => {
    const flush = (instance.log as { flush?: (cb: () => void) => void }).flush;
    if (flush) flush.call(instance.log, () => done());
    else done();
  });
}

/** The appid whose signature a call outside the route table carried (GET /metrics, signed). */
export function noteCaller(request: FastifyRequest, appid: string): void {
  const note = notes.get(request);
  if (note) note.caller = appid;
}

/** A call's appid and parameters, for the audit record of a writing route. */
export interface AnsweredCall {
  route: Route;
  apiPath: string;
  search: URLSearchParams;
  /** The authenticated appid, or null when the call was refused before it was authorized. */
  appid: string | null;
  /** The signature was valid (the call may still have been refused: a route the app may not call). */
  authenticated: boolean;
  /** The appid whose signature was verified (null when it was not). */
  caller: string | null;
  started: number;
}

function outcomeOf(res: ApiResponse): { text: string; status: number; extra: Record<string, unknown> } {
  const status = evioStatus(res);
  if (res.kind !== 'json' || status !== 0) {
    const error = res.kind === 'json' && typeof res.body.error === 'string' ? res.body.error : `status ${status}`;
    return { text: error, status, extra: {} };
  }
  const b = res.body;
  const extra: Record<string, unknown> = {};
  let text = 'done';
  if (typeof b.deleted === 'number') {
    extra.deleted = b.deleted;
    text = `deleted ${b.deleted} records`;
  }
  if (typeof b.sessions === 'number') {
    extra.sessions = b.sessions;
    text += `${b.dryRun ? ', would remove' : ', removed'} ${b.sessions} I/O logs`;
  }
  if (b.dryRun === true) text = `dry run: ${text}`;
  return { text, status, extra };
}

/**
 * Called with a route's answer before it is sent: notes it for the log line and, for a route
 * that changes data, appends the call to the audit log. A failed audit append does not change
 * the answer (the change happened); it is logged and named on the call's log line.
 */
export async function answered(engine: Engine, request: FastifyRequest, call: AnsweredCall, res: ApiResponse, log: (line: string) => void): Promise<void> {
  const note = notes.get(request);
  if (note) note.res = res;
  if (!call.route.writes) return;
  const outcome = outcomeOf(res);
  if (note) note.caller = call.authenticated ? call.caller : null;
  try {
    // A caller whose signature was not verified is not named as a fact: the appid it claims is
    // kept as claimed_appid, submituser is a marker no appid can be.
    const signedBy = call.authenticated ? call.caller : null;
    const record = signedBy !== null ? recordAudit : recordUnsignedRefusal;
    await record(engine, {
      accepted: call.appid !== null,
      user: signedBy ?? UNAUTHENTICATED,
      from: request.ip,
      command: `${call.route.method} ${call.apiPath}`,
      argv: auditArgv(call.search),
      outcome: outcome.text,
      status: outcome.status,
      started: call.started,
      extra: { requestid: request.id, http: res.http, ...(signedBy === null ? { claimed_appid: claimedAppid(call.search) } : {}), ...outcome.extra },
    });
  } catch (err) {
    const e = toEvioError(err);
    log(e.message);
    request.log.error({ code: e.code }, e.message);
    if (note) note.auditFailed = e.message;
  }
}
