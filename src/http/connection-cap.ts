// Bounds on the connections the service holds at once (docs/security.md, "Connections held
// without a key"). Every connection is counted at TCP accept, before TLS or HTTP see it, under
// the client address it comes from (peer-address.ts), and is "unsigned" until a request on it
// passes the signature check (`signed()`); from then on it is "signed" for its life.
//
// - maxConnectionsPerAddress: one more connection from an address is refused.
// - maxConnections, with a reserve of an eighth of it (rounded down): unsigned connections may
//   hold at most maxConnections - reserve slots, so an unauthenticated flood never takes the
//   reserve. A new connection that would go over either bound makes room by closing the oldest
//   unsigned connection (one with no request in progress first), never a signed one. Only when
//   every other connection is signed is the new one refused.
//
// A refused connection is answered with a complete 503 (1615, Retry-After) and closed, so a
// client learns why; nothing of its request is read. (Node's own `maxConnections` would close it
// without a word.) Over TLS the answer goes after the handshake, which is bounded by the
// server's handshake timeout.
import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import { evioError } from '../errors.js';
import { finalAnswerText, sendFinalAnswer } from './final-answer.js';
import { peerKey } from './peer-address.js';

/** Seconds a refused client is told to wait. */
const RETRY_AFTER_SECONDS = 1;

export interface ConnectionCapOptions {
  maxConnections: number;
  maxConnectionsPerAddress: number;
  /** TLS: HTTP takes a connection over after the handshake ('secureConnection'). */
  secure: boolean;
}

export interface ConnectionCap {
  /** Connections open now: accepted TCP connections, refused and closed ones until they are gone. */
  readonly open: number;
  /** Connections refused since start (503 / 1615). */
  readonly refused: number;
  /** Unsigned connections closed to make room for a new one, since start. */
  readonly evicted: number;
  /** Slots unsigned connections may not take (an eighth of maxConnections, rounded down). */
  readonly reserve: number;
  /** Connections held now from one client address (its key, peer-address.ts). */
  fromAddress(key: string): number;
  /** A request on `socket` (the TCP or the TLS socket) passed the signature check. */
  signed(socket: Socket): void;
}

interface Conn {
  tcp: Socket;
  /** The socket HTTP reads: the TLS socket once the handshake is done, else the TCP one. */
  http: Socket | null;
  peer: string;
  signed: boolean;
  /** Requests on it whose answer is not finished. */
  busy: number;
}

/** The reserve of signed connections for a cap. */
export function reserveFor(maxConnections: number): number {
  return Math.floor(maxConnections / 8);
}

function refusalText(detail: string): string {
  return finalAnswerText(evioError('HTTP_TOO_MANY_CONNECTIONS', `${detail}; retry in ${RETRY_AFTER_SECONDS} s`), { 'retry-after': RETRY_AFTER_SECONDS });
}

/**
 * Installs the bounds on a Node HTTP or HTTPS server before it listens.
 */
export function capConnections(server: HttpServer | HttpsServer, opts: ConnectionCapOptions): ConnectionCap {
  const max = opts.maxConnections;
  const perAddress = opts.maxConnectionsPerAddress;
  const reserve = reserveFor(max);
  const counts = { open: 0, refused: 0, evicted: 0 };
  /** Connections admitted and not yet closed, oldest first. */
  const admitted = new Set<Conn>();
  /** The unsigned ones among them, oldest first. */
  const unsigned = new Set<Conn>();
  const byPeer = new Map<string, number>();
  const bySocket = new WeakMap<Socket, Conn>();
  const refusals = new WeakMap<Socket, string>();
  const capText = refusalText(`the service holds its maximum of ${max} connections (maxConnections)`);
  const peerText = refusalText(`this client address holds its maximum of ${perAddress} connections (maxConnectionsPerAddress)`);

  const forget = (c: Conn) => {
    if (!admitted.delete(c)) return;
    unsigned.delete(c);
    const n = (byPeer.get(c.peer) ?? 1) - 1;
    if (n > 0) byPeer.set(c.peer, n);
    else byPeer.delete(c.peer);
  };

  /** The oldest unsigned connection other than `except`: one with no request in progress first. */
  const victim = (except: Conn): Conn | null => {
    let busy: Conn | null = null;
    for (const c of unsigned) {
      if (c === except) continue;
      if (c.busy === 0) return c;
      busy ??= c;
    }
    return busy;
  };

  const evict = (c: Conn) => {
    forget(c);
    counts.evicted++;
    c.http?.destroy();
    c.tcp.destroy();
  };

  /** Admits `c` (counted already), making room if needed; or says why it is refused. */
  const admit = (c: Conn): string | null => {
    const fromPeer = byPeer.get(c.peer) ?? 0;
    if (fromPeer >= perAddress) return peerText;
    while (admitted.size >= max || unsigned.size >= max - reserve) {
      // With unsigned connections over their share there is one to close; with none, every
      // connection held is signed and they fill maxConnections.
      const v = victim(c);
      if (!v) return capText;
      evict(v);
    }
    admitted.add(c);
    unsigned.add(c);
    byPeer.set(c.peer, fromPeer + 1);
    return null;
  };

  // The event HTTP takes a connection over on: the TCP one, or the TLS one after the handshake.
  const event = opts.secure ? 'secureConnection' : 'connection';
  const httpListeners = server.listeners(event) as ((socket: Socket) => void)[];
  server.removeAllListeners(event);
  // Counted at TCP accept, before anything else (TLS included) sees the connection.
  server.prependListener('connection', (socket: Socket) => {
    counts.open++;
    const c: Conn = { tcp: socket, http: null, peer: peerKey(socket.remoteAddress), signed: false, busy: 0 };
    socket.once('close', () => {
      counts.open--;
      forget(c);
    });
    const refusal = admit(c);
    if (refusal) {
      counts.refused++;
      refusals.set(socket, refusal);
      return;
    }
    bySocket.set(socket, c);
  });
  server.on(event, (socket: Socket) => {
    const tcp = opts.secure ? ((socket as Socket & { _parent?: Socket })._parent ?? socket) : socket;
    const refusal = refusals.get(tcp);
    if (refusal) {
      sendFinalAnswer(socket, refusal);
      return;
    }
    const c = bySocket.get(tcp);
    if (c) {
      if (!admitted.has(c)) {
        socket.destroy(); // closed to make room during its handshake
        return;
      }
      c.http = socket;
      bySocket.set(socket, c);
    }
    for (const l of httpListeners) l.call(server, socket);
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const c = bySocket.get(req.socket);
    if (!c) return;
    c.busy++;
    res.once('close', () => c.busy--);
  });

  return {
    get open() {
      return counts.open;
    },
    get refused() {
      return counts.refused;
    },
    get evicted() {
      return counts.evicted;
    },
    reserve,
    fromAddress: (key) => byPeer.get(key) ?? 0,
    signed(socket) {
      const c = bySocket.get(socket);
      if (!c || c.signed) return;
      c.signed = true;
      unsigned.delete(c);
    },
  };
}
