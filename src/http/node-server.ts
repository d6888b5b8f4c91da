// The Node HTTP(S) server under fastify, with every phase of a connection bounded in time
// (docs/service.md, "Connection limits"): the TLS handshake and the request headers
// (headersTimeoutMs), the whole request with its body (requestTimeoutMs), the idle time between
// keep-alive requests (keepAliveTimeoutMs), and the number of connections (maxConnections,
// maxConnectionsPerAddress and the reserve for signed callers, connection-cap.ts). A connection
// past a timeout is answered (408) and destroyed, or destroyed when idle: none stays half-open.
// A slow answer is bounded separately, by the stall guard on the response.
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type ServerOptions as HttpsOptions } from 'node:https';
import type { Settings } from '../settings.js';
import { capConnections, type ConnectionCap } from './connection-cap.js';

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

export interface NodeServer {
  server: Server;
  connections: ConnectionCap;
}

/** How often Node looks for requests past their header or request timeout: a few times per timeout. */
function checkingInterval(headersTimeoutMs: number): number {
  return Math.max(50, Math.min(1000, Math.floor(headersTimeoutMs / 4)));
}

export function createNodeServer(s: Settings, tls: HttpsOptions | null, handler: RequestHandler): NodeServer {
  const timeouts = {
    headersTimeout: s.headersTimeoutMs,
    requestTimeout: s.requestTimeoutMs,
    keepAliveTimeout: s.keepAliveTimeoutMs,
    connectionsCheckingInterval: checkingInterval(s.headersTimeoutMs),
  };
  const server: Server = tls
    ? (createHttpsServer({ ...tls, ...timeouts, handshakeTimeout: s.headersTimeoutMs }, handler) as unknown as Server)
    : createHttpServer(timeouts, handler);
  // No inactivity timeout on the socket: a handler may compute for a while before its first
  // byte (bounded by the statement and regex budgets), and a stalled answer has its own guard.
  server.setTimeout(0);
  server.keepAliveTimeout = s.keepAliveTimeoutMs;
  server.headersTimeout = s.headersTimeoutMs;
  server.requestTimeout = s.requestTimeoutMs;
  return { server, connections: capConnections(server, { maxConnections: s.maxConnections, maxConnectionsPerAddress: s.maxConnectionsPerAddress, secure: tls !== null }) };
}
