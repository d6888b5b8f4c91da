// What real clients never send: each is answered with the protocol's error message carrying a
// registry code, closes that connection only, writes nothing outside the root and loses nothing
// acknowledged. Bounded in count and time, loopback only.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeFrame, MAX_FRAME_BYTES } from '../../src/logsrvd/frames.js';
import { INFO, RawClient, T0 } from './client.js';
import { events, startTestServer, type TestServer } from './helpers.js';

describe('log server: bad input', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ frameTimeoutMs: 300, helloTimeoutMs: 500, commitIntervalMs: 100, iologFile: '%{user}/%{hostname}/%{seq}', maxConnectionsPerAddress: 6 });
  });
  afterAll(async () => {
    await t?.close();
  });

  async function hello(): Promise<RawClient> {
    const c = await RawClient.open(t.port);
    c.send({ type: 'hello', clientId: 'test' });
    await c.until((m) => m.some((x) => x.type === 'hello'));
    return c;
  }

  it('answers a hello with a server id and subcommands', async () => {
    const c = await hello();
    expect(c.messages[0]).toMatchObject({ type: 'hello', subcommands: true });
    expect((c.messages[0] as { serverId: string }).serverId).toMatch(/evio/);
    c.end();
  });

  it('refuses a frame above 2 MiB with 1800 before reading it', async () => {
    const c = await hello();
    const head = Buffer.alloc(4);
    head.writeUInt32BE(MAX_FRAME_BYTES + 1);
    c.sendRaw(head);
    expect(await c.closedWithError()).toMatch(/^1800 /);
  });

  it('refuses bytes that are no ClientMessage with 1801', async () => {
    const c = await hello();
    c.sendRaw(encodeFrame(Uint8Array.from([0xff, 0xff, 0xff, 0xff])));
    expect(await c.closedWithError()).toMatch(/^1801 /);
  });

  it('refuses an I/O buffer before an Accept with 1802', async () => {
    const c = await hello();
    c.send({ type: 'io', stream: 4, delay: { sec: 0, nsec: 1 }, data: Buffer.from('x') });
    expect(await c.closedWithError()).toMatch(/^1802 .*io message in state ready/);
  });

  it('refuses an Accept without a required info key, or without a submit time, with 1803', async () => {
    const c = await hello();
    const info = new Map(INFO);
    info.delete('submituser');
    c.send({ type: 'accept', submitTime: T0, info, expectIobufs: true });
    expect(await c.closedWithError()).toMatch(/^1803 .*submituser/);
    const d = await hello();
    d.send({ type: 'accept', submitTime: null, info: INFO, expectIobufs: true });
    expect(await d.closedWithError()).toMatch(/^1803 .*submit_time/);
  });

  it('refuses a restart with a log id it never gave out with 1804', async () => {
    const c = await hello();
    c.send({ type: 'restart', logId: '/var/log/sudo-io/00/00/01', resumePoint: { sec: 0, nsec: 0 } });
    expect(await c.closedWithError()).toMatch(/^1804 /);
  });

  it('closes a connection whose message stalls half-way with 1808, and one that never speaks', async () => {
    const c = await hello();
    const frame = encodeFrame(Buffer.alloc(100));
    c.sendRaw(frame.subarray(0, 10));
    expect(await c.closedWithError()).toMatch(/^1808 .*begun and not finished/);
    const d = await RawClient.open(t.port);
    expect(await d.closedWithError()).toMatch(/^1808 .*no client message/);
  });

  it('closes a connection that drips a message byte by byte, counting from the message\'s first byte', async () => {
    const c = await hello();
    const frame = encodeFrame(Buffer.alloc(100));
    // A byte every 50 ms would finish the 104-byte frame after ~5 s; frameTimeoutMs is 300 ms.
    let sent = 0;
    while (!c.closed && sent < frame.length - 1) {
      c.sendRaw(frame.subarray(sent, sent + 1));
      sent++;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await c.closedWithError()).toMatch(/^1808 .*begun and not finished/);
    expect(sent).toBeLessThan(frame.length - 1);
  });

  it('keeps user and host names from escaping the root: a "/" in a value becomes "_"', async () => {
    const c = await hello();
    const info = new Map(INFO);
    info.set('submituser', '../../../../tmp/evil');
    info.set('submithost', '..');
    c.send({ type: 'accept', submitTime: T0, info, expectIobufs: true });
    await c.until((m, closed) => closed || m.some((x) => x.type === 'log_id' || x.type === 'error'));
    c.send({ type: 'io', stream: 4, delay: { sec: 0, nsec: 5 }, data: Buffer.from('hello') });
    c.send({ type: 'exit', runTime: { sec: 0, nsec: 5 }, exitValue: 0, dumpedCore: false, signal: '', error: '' });
    await c.until((m, closed) => closed || m.some((x) => x.type === 'commit_point'));
    expect(existsSync('/tmp/evil')).toBe(false);
    const k = events(t.settings).find((r) => r.submituser === '../../../../tmp/evil');
    if (k) expect(String(k.iolog).startsWith(`${t.root}/`)).toBe(true);
    else expect(c.messages.some((x) => x.type === 'error')).toBe(true);
    c.end();
  });

  it('refuses connections past the per-address bound with 1807 and serves the others', async () => {
    const held = await Promise.all(Array.from({ length: 6 }, () => hello()));
    const extra = await RawClient.open(t.port);
    expect(await extra.closedWithError()).toMatch(/^1807 /);
    for (const h of held) h.end();
    await new Promise((r) => setTimeout(r, 50));
    const again = await hello();
    again.end();
  });

  it('a misbehaving client does not disturb a session on another connection', async () => {
    const good = await hello();
    good.send({ type: 'accept', submitTime: T0, info: INFO, expectIobufs: true });
    await good.until((m) => m.some((x) => x.type === 'log_id'));
    const bad = await hello();
    bad.sendRaw(encodeFrame(Uint8Array.from([0x0a, 0x01])));
    expect(await bad.closedWithError()).toMatch(/^180[12] /);
    good.send({ type: 'io', stream: 4, delay: { sec: 0, nsec: 500 }, data: Buffer.from('still here\r\n') });
    good.send({ type: 'exit', runTime: { sec: 0, nsec: 500 }, exitValue: 3, dumpedCore: false, signal: '', error: '' });
    // The final commit point equals the sum of the delays sent.
    await good.until((m) => m.some((x) => x.type === 'commit_point'));
    expect(good.messages.filter((x) => x.type === 'commit_point').at(-1)).toEqual({ type: 'commit_point', point: { sec: 0, nsec: 500 } });
    const logId = (good.messages.find((x) => x.type === 'log_id') as { logId: string }).logId;
    expect(logId).toMatch(/^[A-Za-z0-9_-]{60,}$/);
    // Nothing of the session's path is in the log id.
    const dirs = readdirSync(t.root);
    expect(dirs.some((d) => logId.includes(d))).toBe(false);
    const f = events(t.settings).filter((r) => r.etype === 'F' && r.exitcode === 3);
    expect(f.length).toBe(1);
    expect(existsSync(join(t.root, 'alice', 'client1'))).toBe(true);
    good.end();
  });
});
