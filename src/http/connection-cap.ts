// A bound on the connections the service holds at once. Node's own `maxConnections` closes an
// extra connection without a word; here the extra one is counted at accept time and, where HTTP
// would take it over, answered with a complete 503 (1615, Retry-After) and closed instead, so a
// client learns why. Nothing of the refused connection's request is read.
import type { Server as HttpServer } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import { evioError } from '../errors.js';

/** Seconds a refused client is told to wait. */
const RETRY_AFTER_SECONDS = 1;
/** A refused client that does not take its answer is dropped after this long, ms. */
const REFUSAL_LINGER_MS = 2000;

export interface ConnectionCap {
  /** Connections open now (accepted TCP connections, refused ones until they close). */
  readonly open: number;
  /** Connections refused since start. */
  readonly refused: number;
}

function refusalText(max: number): string {
  const e = evioError('HTTP_TOO_MANY_CONNECTIONS', `the service holds its maximum of ${max} connections (maxConnections); retry in ${RETRY_AFTER_SECONDS} s`);
  const body = JSON.stringify(e.toBody());
  return `HTTP/1.1 ${e.http} Service Unavailable\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nretry-after: ${RETRY_AFTER_SECONDS}\r\nconnection: close\r\n\r\n${body}`;
}

function refuse(socket: Socket, text: string): void {
  socket.on('error', () => {});
  socket.setTimeout(REFUSAL_LINGER_MS, () => socket.destroy());
  socket.end(text, () => socket.destroy());
}

/**
 * Installs the bound on a Node HTTP or HTTPS server before it listens. For HTTPS the answer goes
 * after the TLS handshake (a plain-text answer would mean nothing to a TLS client); the handshake
 * itself is bounded by the server's handshake timeout.
 */
export function capConnections(server: HttpServer | HttpsServer, max: number, secure: boolean): ConnectionCap {
  const state = { open: 0, refused: 0 };
  const overCap = new WeakSet<Socket>();
  const text = refusalText(max);
  // The event HTTP takes a connection over on: the TCP one, or the TLS one after the handshake.
  const event = secure ? 'secureConnection' : 'connection';
  const httpListeners = server.listeners(event) as ((socket: Socket) => void)[];
  server.removeAllListeners(event);
  // Counted at TCP accept, before anything else (TLS included) sees the connection.
  server.prependListener('connection', (socket: Socket) => {
    state.open++;
    socket.once('close', () => state.open--);
    if (state.open > max) {
      state.refused++;
      overCap.add(socket);
    }
  });
  server.on(event, (socket: Socket) => {
    const tcp = secure ? ((socket as Socket & { _parent?: Socket })._parent ?? socket) : socket;
    if (overCap.has(tcp)) {
      refuse(socket, text);
      return;
    }
    for (const l of httpListeners) l.call(server, socket);
  });
  return state;
}
