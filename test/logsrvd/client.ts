// A raw client of sudo's log-server protocol for the tests that send what real clients never
// would (bad frames, messages out of order, stalls). Real clients are tested with sudo_sendlog.
import { connect, type Socket } from 'node:net';
import { encodeFrame, FrameReader } from '../../src/logsrvd/frames.js';
import { decodeServerMessage, encodeClientMessage, type ClientMessage, type ServerMessage } from '../../src/logsrvd/messages.js';

export class RawClient {
  readonly messages: ServerMessage[] = [];
  closed = false;
  private readonly reader = new FrameReader();
  private waiters: (() => void)[] = [];

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk) => {
      this.reader.push(chunk, (f) => this.messages.push(decodeServerMessage(f)));
      this.wake();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
    socket.on('error', () => {});
  }

  static open(port: number, localAddress?: string): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const s = connect({ host: '127.0.0.1', port, ...(localAddress ? { localAddress } : {}) }, () => resolve(new RawClient(s)));
      s.once('error', reject);
    });
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  send(msg: ClientMessage): void {
    this.socket.write(encodeFrame(encodeClientMessage(msg)));
  }

  sendRaw(bytes: Uint8Array): void {
    this.socket.write(bytes);
  }

  /** Waits until `pred` holds on the messages received (or the connection closed), at most `ms`. */
  async until(pred: (msgs: ServerMessage[], closed: boolean) => boolean, ms = 10_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!pred(this.messages, this.closed)) {
      if (Date.now() > deadline) throw new Error(`timed out; received ${JSON.stringify(this.messages)} closed=${this.closed}`);
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 100);
      });
    }
  }

  async closedWithError(): Promise<string> {
    await this.until((m, closed) => closed && m.some((x) => x.type === 'error'));
    return (this.messages.find((x) => x.type === 'error') as { text: string }).text;
  }

  end(): void {
    this.socket.destroy();
  }
}

export const INFO = new Map<string, string | number | string[]>([
  ['command', '/usr/bin/id'],
  ['runargv', ['id']],
  ['runuser', 'root'],
  ['submithost', 'client1'],
  ['submituser', 'alice'],
  ['submitcwd', '/home/alice'],
  ['ttyname', '/dev/pts/3'],
  ['lines', 24],
  ['columns', 80],
]);

export const T0 = { sec: 1795315546, nsec: 219578691 };
