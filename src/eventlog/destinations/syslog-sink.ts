// The syslog destination: RFC 5424 messages (syslog-message.ts) to a syslog daemon listening on
// loopback.
// - tcp://HOST:PORT: one connection, messages framed by octet counting (RFC 6587 §3.4.1:
//   `LENGTH SP MESSAGE`), written with backpressure (stream-writes.ts). A batch is delivered when
//   written to the socket. When the connection is refused, nothing is written and the batch is
//   retried; when it breaks, the records that may still have been in the two socket buffers are
//   sent again on the next connection (unread-window.ts): a repeat, never a loss.
// - udp://HOST:PORT: one datagram per message (RFC 5426), from a connected socket. When nothing
//   listens, the kernel refuses the datagram (ICMP port unreachable, which on loopback comes back
//   at once and Node reports as an 'error' event): a batch during which that happened, or within
//   `udpSettleMs` after it, fails and is sent again. Beyond that UDP confirms nothing — a daemon
//   whose receive buffer is full drops datagrams silently. Best effort; use tcp for the guarantee.
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { connect, type Socket } from 'node:net';
import type { SyslogTarget } from '../../destination-settings.js';
import { evioError } from '../../errors.js';
import { RewindPending, type DeliveryItem, type Sink } from './sink.js';
import { writeItems } from './stream-writes.js';
import { syslogMessage, type SyslogFormat } from './syslog-message.js';
import { StreamSinkBase, tcpCapacity, UnreadWindow } from './unread-window.js';

export interface SyslogSinkOptions {
  target: SyslogTarget;
  log: (line: string) => void;
  /** Header fields and the size bound (the facility comes from the target). */
  format?: Omit<SyslogFormat, 'facility'>;
  /** Bytes a TCP connection may hold unread (default: the kernel's socket buffer maxima). */
  capacity?: number;
  /** How long a TCP connect may take, ms (default 5 s). */
  connectTimeoutMs?: number;
  /** UDP: how long after a batch a refusal still fails it, ms (default 10). */
  udpSettleMs?: number;
}

interface Connection {
  socket: Socket;
  gone: Promise<never>;
  closed: Promise<void>;
}

const failed = (t: SyslogTarget, what: string, cause?: unknown) => evioError('DEST_SYSLOG_FAILED', `syslog ${t.transport}://${t.host.includes(':') ? `[${t.host}]` : t.host}:${t.port}: ${what}`, cause);

export class SyslogSink extends StreamSinkBase implements Sink {
  private readonly t: SyslogTarget;
  private readonly format: SyslogFormat;
  private conn: Connection | null = null;
  private udp: UdpSocket | null = null;
  /** A datagram was refused (nothing listens) since the current UDP batch started. */
  private udpRefused = false;

  constructor(private readonly o: SyslogSinkOptions) {
    super(new UnreadWindow(o.capacity ?? tcpCapacity()));
    this.t = o.target;
    this.format = { ...o.format, facility: o.target.facility };
  }

  async deliver(items: readonly DeliveryItem[], after: number, signal: AbortSignal): Promise<void> {
    // Records of a broken stream go first, in order, before this batch.
    if (this.rewind !== null) throw new RewindPending();
    if (this.t.transport === 'udp') return this.sendUdp(items, signal);
    const conn = this.conn ?? (await this.connect(after, signal));
    // Octet counting: the length in bytes, a space, the message.
    const frame = (i: DeliveryItem) => {
      const m = syslogMessage(i.rec, this.format);
      return Buffer.concat([Buffer.from(`${m.length} `), m]);
    };
    try {
      await writeItems({ stream: conn.socket, gone: conn.gone }, items, frame, this.window, signal, this.seen);
    } catch (err) {
      if (signal.aborted) throw err;
      throw failed(this.t, `writing failed: ${(err as Error).message}`, err);
    }
  }

  private connect(after: number, signal: AbortSignal): Promise<Connection> {
    signal.throwIfAborted();
    return new Promise<Connection>((resolve, reject) => {
      const socket = connect({ host: this.t.host, port: this.t.port });
      const timer = setTimeout(() => socket.destroy(new Error(`no connection within ${this.o.connectTimeoutMs ?? 5000} ms`)), this.o.connectTimeoutMs ?? 5000);
      const onAbort = () => socket.destroy(new Error('closing'));
      signal.addEventListener('abort', onAbort, { once: true });
      socket.once('error', (err) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        reject(failed(this.t, `cannot connect: ${err.message}`, err));
      });
      socket.once('connect', () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        socket.removeAllListeners('error');
        let broke!: (err: Error) => void;
        const gone = new Promise<never>((_, rej) => {
          broke = rej;
        });
        gone.catch(() => {});
        const conn: Connection = { socket, gone, closed: new Promise<void>((r) => socket.once('close', () => r())) };
        const lost = (err?: Error) => {
          broke(failed(this.t, err ? `connection lost: ${err.message}` : 'the daemon closed the connection'));
          this.lost(conn, err);
        };
        socket.on('error', lost);
        socket.once('close', () => lost());
        socket.setKeepAlive(true);
        // A syslog daemon sends nothing; whatever it sends is read and dropped.
        socket.resume();
        this.window.reset(after);
        this.conn = conn;
        resolve(conn);
      });
    });
  }

  private lost(conn: Connection, err?: Error): void {
    if (this.conn !== conn) return;
    this.conn = null;
    conn.socket.destroy();
    const r = this.window.rewindPoint();
    this.rewind = this.rewind === null ? r : Math.min(this.rewind, r);
    if (this.closing) return;
    this.o.log(`destination syslog: ${err ? `connection lost: ${err.message}` : 'the daemon closed the connection'}; records it may not have read are sent again on the next connection`);
    this.wake?.();
  }

  private async udpSocket(): Promise<UdpSocket> {
    if (this.udp) return this.udp;
    const sock = createSocket(this.t.host.includes(':') ? 'udp6' : 'udp4');
    sock.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNREFUSED') this.udpRefused = true;
    });
    try {
      // Connected: a refused datagram (ICMP port unreachable) fails the next send.
      await new Promise<void>((resolve, reject) => {
        sock.once('error', reject);
        sock.connect(this.t.port, this.t.host, () => {
          sock.off('error', reject);
          resolve();
        });
      });
    } catch (err) {
      sock.close();
      throw failed(this.t, `cannot open a socket: ${(err as Error).message}`, err);
    }
    this.udp = sock;
    return sock;
  }

  private async sendUdp(items: readonly DeliveryItem[], signal: AbortSignal): Promise<void> {
    const sock = await this.udpSocket();
    this.udpRefused = false;
    for (const i of items) {
      signal.throwIfAborted();
      await new Promise<void>((resolve, reject) => {
        sock.send(syslogMessage(i.rec, this.format), (err) => (err ? reject(failed(this.t, `send failed: ${err.message}`, err)) : resolve()));
      });
      if (this.udpRefused) break;
    }
    if (!this.udpRefused) await new Promise((r) => setTimeout(r, this.o.udpSettleMs ?? 10));
    if (this.udpRefused) throw failed(this.t, 'datagrams refused: nothing listens (ECONNREFUSED)');
  }

  async close(): Promise<void> {
    this.closing = true;
    const conn = this.conn;
    this.conn = null;
    if (conn) {
      // What was written is flushed before the connection closes (at most 2 s).
      conn.socket.end();
      const timer = setTimeout(() => conn.socket.destroy(), 2000);
      await conn.closed;
      clearTimeout(timer);
    }
    if (this.udp) {
      const u = this.udp;
      this.udp = null;
      await new Promise<void>((resolve) => u.close(() => resolve()));
    }
  }
}
