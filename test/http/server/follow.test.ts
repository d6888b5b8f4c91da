// GET /REST/iolog/follow over HTTP, signed: a complete session answers text/event-stream with
// its state, its data from the position asked and the end mark; a bad call is an ordinary JSON
// error answer sent before any event.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sendSigned } from '../../../src/app/rest-client.js';
import { KEYS, makeHome, serve, serverPerTest, signed } from './helpers.js';

describe('GET /REST/iolog/follow', () => {
  const held = serverPerTest();

  function session(): string {
    const dir = join(held.home!.settings.iologdirs[0]!, 'h', 's1');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'ttyout'), 'hello\r\nworld\r\n');
    writeFileSync(join(dir, 'timing'), '4 0.100000 7\n4 0.200000 7\n');
    chmodSync(join(dir, 'timing'), 0o444); // complete, as sudo leaves it
    writeFileSync(join(dir, 'log.json'), JSON.stringify({ timestamp: { seconds: 1767225600, nanoseconds: 0 }, submituser: 'alice', runuser: 'root', command: '/bin/sh', lines: 24, columns: 80 }));
    return 'h/s1';
  }

  it('streams a complete session from a position as server-sent events, then the end', async () => {
    held.home = makeHome();
    const file = session();
    held.server = await serve(held.home);
    const a = await signed(held.server, 'admin', 'GET', `/REST/iolog/follow?file=${file}&start=7`);
    expect(a.http).toBe(200);
    expect(a.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    const events = a.text.split('\n\n').filter(Boolean).map((b) => Object.fromEntries(b.split('\n').map((l) => [l.slice(0, l.indexOf(': ')), l.slice(l.indexOf(': ') + 2)])));
    expect(events.map((e) => e.event)).toEqual(['state', 'chunk', 'end']);
    expect(JSON.parse(events[0]!.data!)).toEqual({ file, live: false, start: 7 });
    const c = JSON.parse(events[1]!.data!) as { start: number; len: number; bytes: number; log: Array<{ blob?: string }> };
    expect([c.start, c.len, c.bytes]).toEqual([7, 7, 14]);
    expect(events[1]!.id).toBe('14');
    expect(c.log.filter((i) => i.blob).map((i) => Buffer.from(i.blob!, 'base64').toString()).join('')).toBe('world\r\n');
    expect(JSON.parse(events[2]!.data!)).toEqual({ bytes: 14 });
  });

  it('answers a session that is not there with a JSON error (1004), and a bad start with 1401', async () => {
    held.home = makeHome();
    session();
    held.server = await serve(held.home);
    const missing = await signed(held.server, 'admin', 'GET', '/REST/iolog/follow?file=h/nope');
    expect(missing.headers['content-type']).toContain('application/json');
    expect(missing.body.status).toBe(1004);
    const bad = await signed(held.server, 'admin', 'GET', '/REST/iolog/follow?file=h/s1&start=x');
    expect(bad.body.status).toBe(1401);
  });

  it('a graceful shutdown ends the follows of live sessions instead of waiting for them', async () => {
    held.home = makeHome();
    const file = session();
    chmodSync(join(held.home.settings.iologdirs[0]!, file, 'timing'), 0o644); // live: sudo still writing
    held.server = await serve(held.home);
    const res = await sendSigned({ url: held.server.url, appid: 'admin', key: KEYS.admin, method: 'GET', path: `/REST/iolog/follow?file=${file}` });
    let text = '';
    const it = (res as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
    // Read until the session's data came: the follow is open and waiting for more.
    while (!text.includes('event: chunk')) text += (await it.next()).value.toString();
    const left = await held.server.drain(60_000);
    expect(left).toBe(0);
    for (;;) {
      const r = await it.next();
      if (r.done) break;
      text += r.value.toString();
    }
    const a = { text };
    expect(a.text).toContain('event: state');
    expect(a.text).not.toContain('event: end');
  });
});
