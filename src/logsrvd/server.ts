// The log server's listeners: TCP and TLS sockets speaking sudo's log-server protocol
// (docs/logserver.md). This door knows sockets, TLS and connection limits; each connection's
// protocol is connection.ts, and what a message does is the application layer's log receiver.
//
// Limits, each refused with the protocol's `error` message (LOGSRV_LIMIT) before the socket is
// closed: connections at once, connections from one address. Plain TCP on an address that is not
// loopback needs allowInsecure (session data and passwords typed would cross the network in
// clear), as the REST service does.
import { readFileSync } from 'node:fs';
import { createServer as createTcpServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';
import { startDestinations } from '../app/event-destinations.js';
import { openLogReceiver, type LogReceiver } from '../app/log-receiver.js';
import type { Engine } from '../engine.js';
import { evioError, toEvioError } from '../errors.js';
import { isLoopbackHost, loadTls } from '../listen-policy.js';
import { parseListen, type ListenEntry } from '../settings-logsrvd.js';
import { LogConnection } from './connection.js';
import { encodeFrame } from './frames.js';
import { encodeServerMessage } from './messages.js';

export interface LogServerOptions {
  /** Listen entries; default: the settings' logsrvd.listen. */
  listen?: string[];
  log?: (entry: Record<string, unknown>) => void;
  /** Plain TCP on a non-loopback address (the settings' allowInsecure, or --allow-insecure). */
  allowInsecure?: boolean;
}

export interface LogServer {
  /** The addresses listened on, ports resolved (a port of 0 picks a free one). */
  readonly addresses: (ListenEntry & { port: number })[];
  /** Connections open, or closed and still handling what they received. */
  readonly connections: number;
  readonly openSessions: number;
  /** Stops listening; each connection syncs its session, acknowledges it and is told the server stops. */
  close(): Promise<void>;
}

const SERVER_ID = 'evio log server';

function stderrLog(entry: Record<string, unknown>): void {
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), ...entry })}\n`);
}

function refuseSocket(socket: Socket, text: string): void {
  socket.on('error', () => {});
  socket.end(encodeFrame(encodeServerMessage({ type: 'error', text })));
  setTimeout(() => socket.destroy(), 2000).unref();
}

export async function startLogServer(engine: Engine, opts: LogServerOptions = {}): Promise<LogServer> {
  const s = engine.settings.logsrvd;
  const log = opts.log ?? stderrLog;
  const entries = (opts.listen ?? s.listen).map(parseListen);
  if (entries.length === 0) throw evioError('LOGSRV_BAD_LISTEN', 'no listen address: give --listen HOST:PORT or the settings\' logsrvd.listen');
  for (const e of entries) {
    if (e.tls && !s.tls) throw evioError('LOGSRV_BAD_LISTEN', `listen entry ${e.host}:${e.port}(tls) needs logsrvd.tls.cert and logsrvd.tls.key in the settings`);
    if (!e.tls && !(opts.allowInsecure ?? engine.settings.allowInsecure) && !(await isLoopbackHost(e.host))) {
      throw evioError('LISTEN_INSECURE', `plain TCP on ${e.host}:${e.port} would carry sessions in clear: add (tls) with logsrvd.tls, listen on 127.0.0.1, or set allowInsecure`);
    }
  }
  let tlsOptions: { cert: Buffer; key: Buffer; ca?: Buffer } | null = null;
  if (s.tls) {
    tlsOptions = loadTls(s.tls);
    if (s.tls.ca) {
      try {
        tlsOptions.ca = readFileSync(s.tls.ca);
      } catch (err) {
        throw evioError('TLS_UNREADABLE', `cannot read the CA bundle logsrvd.tls.ca: ${(err as Error).message}`);
      }
    }
  }

  // The configured event destinations are fed from the flat-file log the receiver appends to
  // (docs/events.md, "Event destinations"): woken after each acknowledged append.
  const d = engine.settings.destinations;
  const destinations = Object.keys(d).length > 0 ? startDestinations(engine, { log: (line) => log({ level: 'info', msg: line }) }) : null;
  let receiver: LogReceiver;
  try {
    receiver = await openLogReceiver(engine, { log, onAppended: (last) => destinations?.wake(last) });
  } catch (err) {
    await destinations?.close();
    throw err;
  }
  const live = new Set<LogConnection>();
  const perAddress = new Map<string, number>();
  let open = 0;
  const connOptions = {
    serverId: SERVER_ID,
    commitIntervalMs: s.commitIntervalMs,
    frameTimeoutMs: s.frameTimeoutMs,
    helloTimeoutMs: s.helloTimeoutMs,
    maxBytesPerSecond: s.maxBytesPerSecond,
    log,
  };

  /** Counts a new TCP connection; false when a limit refuses it. */
  function admit(socket: Socket): string | null {
    const addr = socket.remoteAddress ?? 'unknown';
    const n = (perAddress.get(addr) ?? 0) + 1;
    open++;
    perAddress.set(addr, n);
    socket.once('close', () => {
      open--;
      const m = (perAddress.get(addr) ?? 1) - 1;
      if (m === 0) perAddress.delete(addr);
      else perAddress.set(addr, m);
    });
    if (open > s.maxConnections) return `${evioError('LOGSRV_LIMIT', `the log server holds its maximum of ${s.maxConnections} connections (logsrvd.maxConnections)`).message}`;
    if (n > s.maxConnectionsPerAddress) return `${evioError('LOGSRV_LIMIT', `${addr} holds its maximum of ${s.maxConnectionsPerAddress} connections (logsrvd.maxConnectionsPerAddress)`).message}`;
    return null;
  }

  function serve(socket: Socket): void {
    // A connection counts until it has handled what it received and closed its session.
    const conn: LogConnection = new LogConnection(socket, receiver, { ...connOptions, onReleased: () => live.delete(conn) });
    live.add(conn);
  }

  const servers: Server[] = [];
  const addresses: (ListenEntry & { port: number })[] = [];
  for (const e of entries) {
    let server: Server;
    if (e.tls) {
      const refused = new WeakMap<Socket, string>();
      const tlsServer = createTlsServer({
        ...tlsOptions!,
        minVersion: 'TLSv1.2',
        // logsrvd's tls_checkpeer: with a CA, every client presents a certificate that chains to it.
        requestCert: s.tls!.ca !== null,
        rejectUnauthorized: s.tls!.ca !== null,
        handshakeTimeout: s.helloTimeoutMs,
      });
      tlsServer.prependListener('connection', (socket: Socket) => {
        const why = admit(socket);
        if (why) refused.set(socket, why);
      });
      tlsServer.on('secureConnection', (socket: TLSSocket) => {
        const tcp = (socket as TLSSocket & { _parent?: Socket })._parent ?? socket;
        const why = refused.get(tcp) ?? refused.get(socket);
        if (why) refuseSocket(socket, why);
        else serve(socket);
      });
      tlsServer.on('tlsClientError', (err, socket) => {
        log({ level: 'info', msg: 'logsrvd TLS handshake failed', peer: socket.remoteAddress, error: err.message });
        socket.destroy();
      });
      server = tlsServer;
    } else {
      server = createTcpServer((socket) => {
        const why = admit(socket);
        if (why) refuseSocket(socket, why);
        else serve(socket);
      });
    }
    server.on('error', (err) => log({ level: 'error', msg: 'logsrvd listener error', error: err.message }));
    await new Promise<void>((resolveP, rejectP) => {
      const onError = (err: Error) => rejectP(evioError('LISTEN_FAILED', `logsrvd cannot listen on ${e.host}:${e.port}: ${err.message}`));
      server.once('error', onError);
      server.listen(e.port, e.host, () => {
        server.off('error', onError);
        resolveP();
      });
    }).catch(async (err) => {
      await Promise.all(servers.map((x) => new Promise((r) => x.close(r))));
      await destinations?.close();
      throw err;
    });
    servers.push(server);
    addresses.push({ ...e, port: (server.address() as AddressInfo).port });
    log({ level: 'info', msg: 'logsrvd listening', host: e.host, port: (server.address() as AddressInfo).port, tls: e.tls });
  }

  return {
    addresses,
    get connections() {
      return live.size;
    },
    get openSessions() {
      return receiver.openSessions;
    },
    async close() {
      for (const server of servers) server.close();
      await Promise.all(
        [...live].map((c) =>
          c.stop().catch((err) => log({ level: 'error', msg: 'logsrvd stopping a connection failed', error: toEvioError(err).message })),
        ),
      );
      await receiver.close();
      // After the receiver: its last appends are delivered later, from the log, by the next start.
      await destinations?.close();
    },
  };
}
