// sudo's log-server messages, decoded with protobufjs from the vendored schema
// (log_server.proto beside this file, copied into dist/ by the build) into plain typed values:
// the rest of the server never sees a protobuf object. int64 values (seconds, numbers of info
// messages) are kept exact: one past 2^53 - 1 is refused, not rounded.
import { readFileSync } from 'node:fs';
import protobuf from 'protobufjs';
import type { InfoValue, TimeSpec } from '../app/log-receiver.js';
import { evioError } from '../errors.js';

export type { InfoValue, TimeSpec };

export type IoStream = 0 | 1 | 2 | 3 | 4;

/** A client message, by its `type` (the protobuf oneof). Times a client left out are null. */
export type ClientMessage =
  | { type: 'hello'; clientId: string }
  | { type: 'accept'; submitTime: TimeSpec | null; info: Map<string, InfoValue>; expectIobufs: boolean }
  | { type: 'reject'; submitTime: TimeSpec | null; reason: string; info: Map<string, InfoValue> }
  | { type: 'alert'; alertTime: TimeSpec | null; reason: string; info: Map<string, InfoValue> }
  | { type: 'exit'; runTime: TimeSpec | null; exitValue: number; dumpedCore: boolean; signal: string; error: string }
  | { type: 'restart'; logId: string; resumePoint: TimeSpec | null }
  | { type: 'io'; stream: IoStream; delay: TimeSpec | null; data: Uint8Array }
  | { type: 'winsize'; delay: TimeSpec | null; rows: number; cols: number }
  | { type: 'suspend'; delay: TimeSpec | null; signal: string };

export type ServerMessage =
  | { type: 'hello'; serverId: string; subcommands: boolean }
  | { type: 'commit_point'; point: TimeSpec }
  | { type: 'log_id'; logId: string }
  | { type: 'error'; text: string }
  | { type: 'abort'; text: string };

/** The I/O-buffer fields of ClientMessage and the stream number sudo's timing file gives each. */
const IO_FIELDS: Record<string, IoStream> = { stdin_buf: 0, stdout_buf: 1, stderr_buf: 2, ttyin_buf: 3, ttyout_buf: 4 };

const root = protobuf.parse(readFileSync(new URL('./log_server.proto', import.meta.url), 'utf8'), { keepCase: true }).root;
const ClientMessageType = root.lookupType('ClientMessage');
const ServerMessageType = root.lookupType('ServerMessage');

type Pb = Record<string, unknown>;

function int64(v: unknown, field: string): number {
  if (typeof v === 'number') return v;
  const l = v as { toNumber(): number; toString(): string };
  const n = l.toNumber();
  if (!Number.isSafeInteger(n)) throw evioError('LOGSRV_BAD_MESSAGE', `${field} ${l.toString()} is outside the exact range of 2^53`);
  return n;
}

function timeSpec(v: unknown, field: string): TimeSpec | null {
  if (v === null || v === undefined) return null;
  const t = v as Pb;
  return { sec: int64(t.tv_sec ?? 0, `${field}.tv_sec`), nsec: (t.tv_nsec as number | undefined) ?? 0 };
}

function infoMap(list: unknown): Map<string, InfoValue> {
  const out = new Map<string, InfoValue>();
  for (const m of (list as Pb[] | undefined) ?? []) {
    const key = m.key as string;
    switch (m.value as string | undefined) {
      case 'numval':
        out.set(key, int64(m.numval, `info ${key}`));
        break;
      case 'strval':
        out.set(key, m.strval as string);
        break;
      case 'strlistval':
        out.set(key, [...(((m.strlistval as Pb).strings as string[] | undefined) ?? [])]);
        break;
      case 'numlistval':
        out.set(key, (((m.numlistval as Pb).numbers as unknown[] | undefined) ?? []).map((n) => int64(n, `info ${key}`)));
        break;
      default:
        // An info message without a value: kept as an empty string, as sudo's own server does not refuse it.
        out.set(key, '');
    }
  }
  return out;
}

/** Decodes one frame's message. Throws LOGSRV_BAD_MESSAGE when it is not a ClientMessage with a type. */
export function decodeClientMessage(frame: Uint8Array): ClientMessage {
  let m: Pb;
  try {
    m = ClientMessageType.decode(frame) as unknown as Pb;
  } catch (err) {
    throw evioError('LOGSRV_BAD_MESSAGE', `malformed client message: ${(err as Error).message}`);
  }
  const type = m.type as string | undefined;
  if (type === undefined) throw evioError('LOGSRV_BAD_MESSAGE', 'client message has no known type (an unknown field number, or an empty message)');
  const body = m[type] as Pb;
  const io = IO_FIELDS[type];
  if (io !== undefined) return { type: 'io', stream: io, delay: timeSpec(body.delay, 'delay'), data: body.data as Uint8Array };
  switch (type) {
    case 'hello_msg':
      return { type: 'hello', clientId: body.client_id as string };
    case 'accept_msg':
      return { type: 'accept', submitTime: timeSpec(body.submit_time, 'submit_time'), info: infoMap(body.info_msgs), expectIobufs: body.expect_iobufs === true };
    case 'reject_msg':
      return { type: 'reject', submitTime: timeSpec(body.submit_time, 'submit_time'), reason: body.reason as string, info: infoMap(body.info_msgs) };
    case 'alert_msg':
      return { type: 'alert', alertTime: timeSpec(body.alert_time, 'alert_time'), reason: body.reason as string, info: infoMap(body.info_msgs) };
    case 'exit_msg':
      return {
        type: 'exit',
        runTime: timeSpec(body.run_time, 'run_time'),
        exitValue: body.exit_value as number,
        dumpedCore: body.dumped_core === true,
        signal: body.signal as string,
        error: body.error as string,
      };
    case 'restart_msg':
      return { type: 'restart', logId: body.log_id as string, resumePoint: timeSpec(body.resume_point, 'resume_point') };
    case 'winsize_event':
      return { type: 'winsize', delay: timeSpec(body.delay, 'delay'), rows: body.rows as number, cols: body.cols as number };
    case 'suspend_event':
      return { type: 'suspend', delay: timeSpec(body.delay, 'delay'), signal: body.signal as string };
    default:
      throw evioError('LOGSRV_BAD_MESSAGE', `client message of unknown type ${type}`);
  }
}

const pbTime = (t: TimeSpec) => ({ tv_sec: t.sec, tv_nsec: t.nsec });

/** Encodes a server message (without its frame). */
export function encodeServerMessage(msg: ServerMessage): Uint8Array {
  let body: Pb;
  switch (msg.type) {
    case 'hello':
      body = { hello: { server_id: msg.serverId, subcommands: msg.subcommands } };
      break;
    case 'commit_point':
      body = { commit_point: pbTime(msg.point) };
      break;
    case 'log_id':
      body = { log_id: msg.logId };
      break;
    case 'error':
      body = { error: msg.text };
      break;
    case 'abort':
      body = { abort: msg.text };
      break;
  }
  return ServerMessageType.encode(ServerMessageType.create(body)).finish();
}

/** Decodes a server message: for tests and the benchmark's client. */
export function decodeServerMessage(frame: Uint8Array): ServerMessage {
  const m = ServerMessageType.decode(frame) as unknown as Pb;
  switch (m.type as string | undefined) {
    case 'hello': {
      const h = m.hello as Pb;
      return { type: 'hello', serverId: h.server_id as string, subcommands: h.subcommands === true };
    }
    case 'commit_point':
      return { type: 'commit_point', point: timeSpec(m.commit_point, 'commit_point')! };
    case 'log_id':
      return { type: 'log_id', logId: m.log_id as string };
    case 'error':
      return { type: 'error', text: m.error as string };
    case 'abort':
      return { type: 'abort', text: m.abort as string };
    default:
      throw evioError('LOGSRV_BAD_MESSAGE', 'server message has no known type');
  }
}

const IO_FIELD_OF: Record<IoStream, string> = { 0: 'stdin_buf', 1: 'stdout_buf', 2: 'stderr_buf', 3: 'ttyin_buf', 4: 'ttyout_buf' };

function pbInfo(info: ReadonlyMap<string, InfoValue>): Pb[] {
  return [...info].map(([key, v]) => {
    if (typeof v === 'number') return { key, numval: v };
    if (typeof v === 'string') return { key, strval: v };
    if (v.every((x) => typeof x === 'number')) return { key, numlistval: { numbers: v } };
    return { key, strlistval: { strings: v } };
  });
}

/** Encodes a client message (without its frame): for tests and the benchmark's client. */
export function encodeClientMessage(msg: ClientMessage): Uint8Array {
  let body: Pb;
  const t = (x: TimeSpec | null) => (x ? pbTime(x) : undefined);
  switch (msg.type) {
    case 'hello':
      body = { hello_msg: { client_id: msg.clientId } };
      break;
    case 'accept':
      body = { accept_msg: { submit_time: t(msg.submitTime), info_msgs: pbInfo(msg.info), expect_iobufs: msg.expectIobufs } };
      break;
    case 'reject':
      body = { reject_msg: { submit_time: t(msg.submitTime), reason: msg.reason, info_msgs: pbInfo(msg.info) } };
      break;
    case 'alert':
      body = { alert_msg: { alert_time: t(msg.alertTime), reason: msg.reason, info_msgs: pbInfo(msg.info) } };
      break;
    case 'exit':
      body = { exit_msg: { run_time: t(msg.runTime), exit_value: msg.exitValue, dumped_core: msg.dumpedCore, signal: msg.signal, error: msg.error } };
      break;
    case 'restart':
      body = { restart_msg: { log_id: msg.logId, resume_point: t(msg.resumePoint) } };
      break;
    case 'io':
      body = { [IO_FIELD_OF[msg.stream]]: { delay: t(msg.delay), data: msg.data } };
      break;
    case 'winsize':
      body = { winsize_event: { delay: t(msg.delay), rows: msg.rows, cols: msg.cols } };
      break;
    case 'suspend':
      body = { suspend_event: { delay: t(msg.delay), signal: msg.signal } };
      break;
  }
  return ClientMessageType.encode(ClientMessageType.create(body)).finish();
}
