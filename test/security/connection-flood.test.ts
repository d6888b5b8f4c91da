// Connections held by callers without a key, against a real server on 127.0.0.1 (attack
// review, finding 1: 300 slowloris sockets whose peer never reads kept every signed call at
// 503 / 1615 for as long as they stayed). Here the sockets send a partial request and never
// read a byte, so nothing the server writes ever makes them close; only the server can end them.
// Counts are bounded (twice the cap and less) and every wait is a poll with a deadline.
// Other peers are other loopback addresses (127.0.0.2 ...), bound with `localAddress`.
import { connect, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/http/server.js';
import type { Settings } from '../../src/settings.js';
import { makeHome, serve, signedHref, type TestHome } from '../http/server/helpers.js';

const DEST = '/REST/v2.0/events/destinations';
const DEADLINE_MS = 15_000;

const sockets: Socket[] = [];

afterEach(() => {
  for (const s of sockets.splice(0)) s.destroy();
});

function withServer(overrides: Partial<Settings>): () => RunningServer {
  let home: TestHome;
  let server: RunningServer;
  beforeAll(async () => {
    home = makeHome(overrides);
    server = await serve(home);
  });
  afterAll(async () => {
    await server?.close();
    await home?.cleanup();
  });
  return () => server;
}

/** A TCP connection from `from` that never reads (no data listener, never resumed). */
function openSilent(port: number, from = '127.0.0.1'): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect({ port, host: '127.0.0.1', localAddress: from });
    sockets.push(s);
    s.once('connect', () => {
      s.removeListener('error', reject);
      s.on('error', () => {});
      resolve(s);
    });
    s.once('error', reject);
  });
}

interface Answer {
  head: string;
  body: Record<string, unknown> | null;
}

/**
 * Sends a signed GET on a connection of its own from `from` and reads its answer (keep-alive
 * unless `close`); resolves with the status line and headers and the JSON body, or with an
 * empty head when the server closed the connection without answering.
 */
function signedCall(server: RunningServer, from = '127.0.0.1', opts: { keep?: boolean; socket?: Socket } = {}): Promise<Answer & { socket: Socket }> {
  return new Promise((resolve, reject) => {
    const s = opts.socket ?? connect({ port: server.port, host: '127.0.0.1', localAddress: from });
    if (!opts.socket) sockets.push(s);
    const href = new URL(signedHref(server, 'admin', 'GET', DEST));
    let buf = Buffer.alloc(0);
    const done = (a: Answer) => {
      s.removeListener('data', onData);
      s.removeListener('close', onClose);
      resolve({ ...a, socket: s });
    };
    const onData = (c: Buffer) => {
      buf = Buffer.concat([buf, c]);
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = buf.subarray(0, end).toString('latin1');
      const len = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? NaN);
      if (!(buf.length >= end + 4 + len)) return;
      done({ head, body: JSON.parse(buf.subarray(end + 4, end + 4 + len).toString('utf8')) as Record<string, unknown> });
    };
    const onClose = () => done({ head: buf.toString('latin1'), body: null });
    s.on('data', onData);
    s.on('close', onClose);
    s.on('error', () => {});
    const send = () => s.write(`GET ${href.pathname}${href.search} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: ${opts.keep === false ? 'close' : 'keep-alive'}\r\n\r\n`);
    if (opts.socket) send();
    else s.once('connect', send);
    s.once('error', reject);
  });
}

/** Polls `value` until `ok` holds or the deadline passes; returns the last value. */
async function until<T>(value: () => T, ok: (v: T) => boolean): Promise<T> {
  const end = Date.now() + DEADLINE_MS;
  let v = value();
  while (!ok(v) && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 25));
    v = value();
  }
  return v;
}

describe('sockets that send part of a request and never read', () => {
  const CAP = 8;
  const server = withServer({ maxConnections: CAP, headersTimeoutMs: 300, requestTimeoutMs: 1000, keepAliveTimeoutMs: 300, maxConnectionsPerAddress: 1000 } as Partial<Settings>);

  it('do not lock out a signed call, and are destroyed after their 408', async () => {
    for (let i = 0; i < 2 * CAP; i++) {
      const s = await openSilent(server().port);
      s.write(`GET ${DEST} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: `);
    }
    const first = await signedCall(server(), '127.0.0.1', { keep: false });
    expect(first.head).toMatch(/^HTTP\/1\.1 200 /);
    expect(first.body?.status).toBe(0);
    // Past the header timeout the server answers 408 to each it still holds and closes it for
    // good: no socket of the flood is left counted, though this side never ends or reads one.
    expect(await until(() => server().connections.open, (n) => n === 0)).toBe(0);
    const second = await signedCall(server(), '127.0.0.1', { keep: false });
    expect(second.head).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('are destroyed after a refusal that ends the connection (8119 before the body is read)', async () => {
    for (let i = 0; i < CAP; i++) {
      const s = await openSilent(server().port);
      s.write(`DELETE /REST/v2.0/events?format=ff&file=x.ndjson&appid=nobody&timestamp=${Math.floor(Date.now() / 1000)}&hmac=00 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"pad":"`);
    }
    expect(await until(() => server().connections.open, (n) => n === 0)).toBe(0);
  });

  it('are destroyed when they sent nothing at all, and an idle keep-alive socket is too', async () => {
    for (let i = 0; i < CAP; i++) await openSilent(server().port);
    const kept = await signedCall(server(), '127.0.0.1', { keep: true });
    expect(kept.head).toMatch(/^HTTP\/1\.1 200 /);
    kept.socket.pause(); // keep-alive, and never reads again
    expect(await until(() => server().connections.open, (n) => n === 0)).toBe(0);
  });
});

describe('an unauthenticated flood against the reserve', () => {
  const CAP = 10;
  // Timeouts long enough that only the reserve, not a timeout, lets the signed calls through.
  const server = withServer({ maxConnections: CAP, headersTimeoutMs: 20_000, requestTimeoutMs: 20_000, keepAliveTimeoutMs: 20_000, maxConnectionsPerAddress: 1000 } as Partial<Settings>);

  it('keeps signed connections served while twice the cap in silent sockets arrive, and refuses only when signed callers fill it', async () => {
    // Signed keep-alive connections first: they hold their slots once authenticated.
    const signedConns: Socket[] = [];
    for (let i = 0; i < 3; i++) {
      const a = await signedCall(server(), '127.0.0.1', { keep: true });
      expect(a.head).toMatch(/^HTTP\/1\.1 200 /);
      signedConns.push(a.socket);
    }
    for (let i = 0; i < 2 * CAP; i++) {
      const s = await openSilent(server().port);
      s.write(`GET ${DEST} HTTP/1.1\r\nHost: 127.0.0.1\r\n`);
    }
    // New signed connections still get in (an unauthenticated socket gives way), and the ones
    // already signed are never the ones that give way.
    for (let i = 0; i < 3; i++) {
      const a = await signedCall(server(), '127.0.0.1', { keep: true });
      expect(a.head).toMatch(/^HTTP\/1\.1 200 /);
      signedConns.push(a.socket);
    }
    for (const s of signedConns) {
      const again = await signedCall(server(), '127.0.0.1', { socket: s, keep: true });
      expect(again.head).toMatch(/^HTTP\/1\.1 200 /);
    }
    expect(server().connections.open).toBeLessThanOrEqual(CAP);
    // Signed callers may take every slot; the one after them is refused with 503 / 1615.
    while (signedConns.length < CAP) {
      const a = await signedCall(server(), '127.0.0.1', { keep: true });
      expect(a.head).toMatch(/^HTTP\/1\.1 200 /);
      signedConns.push(a.socket);
    }
    const refused = await signedCall(server(), '127.0.0.1', { keep: true });
    expect(refused.head).toMatch(/^HTTP\/1\.1 503 /);
    expect(refused.body?.status).toBe(1615);
  });
});

describe('connections per client address', () => {
  const PER = 4;
  const server = withServer({ maxConnections: 64, maxConnectionsPerAddress: PER, headersTimeoutMs: 500, requestTimeoutMs: 1000, keepAliveTimeoutMs: 20_000 } as Partial<Settings>);

  it('bounds what one address holds, refusing the rest with 503 / 1615; other addresses are served', async () => {
    for (let i = 0; i < 3 * PER; i++) await openSilent(server().port, '127.0.0.2');
    // The ones over the bound were answered and closed, though none reads.
    expect(await until(() => server().connections.open, (n) => n === PER)).toBe(PER);
    expect(server().connections.fromAddress('127.0.0.2')).toBe(PER);
    const other = await signedCall(server(), '127.0.0.3', { keep: false });
    expect(other.head).toMatch(/^HTTP\/1\.1 200 /);
    const same = await signedCall(server(), '127.0.0.2', { keep: false });
    expect(same.head).toMatch(/^HTTP\/1\.1 503 /);
    expect(same.head).toMatch(/retry-after: 1/i);
    expect(same.body?.status).toBe(1615);
    expect(String(same.body?.error)).toContain('maxConnectionsPerAddress');
    // Past the header timeout the silent ones are gone, and the address is served again.
    expect(await until(() => server().connections.fromAddress('127.0.0.2'), (n) => n === 0)).toBe(0);
    const later = await signedCall(server(), '127.0.0.2', { keep: false });
    expect(later.head).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('counts signed connections too: one more from an address whose connections are all signed is refused', async () => {
    const held: Socket[] = [];
    for (let i = 0; i < PER; i++) {
      const a = await signedCall(server(), '127.0.0.4', { keep: true });
      expect(a.head).toMatch(/^HTTP\/1\.1 200 /);
      held.push(a.socket);
    }
    const refused = await signedCall(server(), '127.0.0.4', { keep: true });
    expect(refused.head).toMatch(/^HTTP\/1\.1 503 /);
    expect(refused.body?.status).toBe(1615);
    const elsewhere = await signedCall(server(), '127.0.0.5', { keep: false });
    expect(elsewhere.head).toMatch(/^HTTP\/1\.1 200 /);
    for (const s of held) {
      const again = await signedCall(server(), '127.0.0.4', { socket: s, keep: true });
      expect(again.head).toMatch(/^HTTP\/1\.1 200 /);
    }
  });
});
