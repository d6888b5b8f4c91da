// Following a session while the log server receives it (GET /REST/iolog/follow's use case):
// what a client sends arrives as chunk events from the position asked for, and the end of the
// session ends the events. The readers that work on a finished session (search, the command
// timeline, chunks, the screen at a time) work on it while it is received.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { iologFollow, type FollowEvent } from '../../src/app/iolog-follow.js';
import { FOLLOW_MAX_WATCHERS } from '../../src/iolog/limits.js';
import { iologChunk, iologCommands, iologScreen, iologSearch, matchingPaths, SearchAnswer } from '../../src/app/iolog.js';
import { INFO, RawClient, T0 } from './client.js';
import { events, startTestServer, type TestServer } from './helpers.js';

async function until(what: string, probe: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`no ${what} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function text(e: FollowEvent): string {
  if (e.event !== 'chunk') return '';
  const c = JSON.parse(e.data) as { log: Array<{ blob?: string; cmd?: string }> };
  return c.log.filter((i) => i.blob !== undefined && i.cmd === 'ttyout').map((i) => Buffer.from(i.blob!, 'base64').toString('latin1')).join('');
}

describe('following a session while it is received', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ commitIntervalMs: 600_000 });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('sends what arrives from the position asked, ends with the session; the readers see the partial session', async () => {
    const c = await RawClient.open(t.port);
    c.send({ type: 'hello', clientId: 'test' });
    c.send({ type: 'accept', submitTime: T0, info: INFO, expectIobufs: true });
    await c.until((m) => m.some((x) => x.type === 'log_id'));
    c.send({ type: 'io', stream: 4, delay: { sec: 0, nsec: 1000 }, data: Buffer.from('root@web01:~# ') });
    c.send({ type: 'io', stream: 0, delay: { sec: 0, nsec: 1000 }, data: Buffer.from('echo FIRST-OUT\r') });
    c.send({ type: 'io', stream: 4, delay: { sec: 0, nsec: 1000 }, data: Buffer.from('echo FIRST-OUT\r\nFIRST-OUT\r\nroot@web01:~# ') });
    const dir = events(t.settings).find((r) => r.etype === 'K')!.iolog as string;
    await until('the first output', () => existsSync(join(dir, 'ttyout')) && readFileSync(join(dir, 'ttyout'), 'latin1').includes('FIRST-OUT\r\nroot'));
    const file = dir.slice(t.root.length + 1);

    // The readers on the session as far as it has arrived.
    const answer = new SearchAnswer();
    const run = await iologSearch(t.engine, { file, query: 'output:FIRST-OUT', detail: '1' });
    const found: string[] = [];
    for await (const p of matchingPaths(run, answer)) found.push(p);
    expect(found).toHaveLength(1);
    const cmds = await iologCommands(t.engine, { file });
    expect(cmds.log.map((x) => x.line)).toEqual(['echo FIRST-OUT']);
    const screen = await iologScreen(t.engine, { file });
    expect(screen.lines.join('\n')).toContain('FIRST-OUT');
    const first = await iologChunk(t.engine, { file });
    expect(first.bytes).toBeGreaterThan(0);

    // Follow from "now" (the end so far): only what comes after arrives.
    const ac = new AbortController();
    const f = await iologFollow(t.engine, { file, start: String(first.bytes) }, ac.signal);
    const got: FollowEvent[] = [];
    const reading = (async () => {
      for await (const e of f.events) got.push(e);
    })();
    await until('the state event', () => got.length > 0);
    expect(got[0]).toEqual({ event: 'state', data: JSON.stringify({ file, live: true, start: first.bytes }) });
    c.send({ type: 'io', stream: 4, delay: { sec: 0, nsec: 1000 }, data: Buffer.from('SECOND-OUT\r\n') });
    await until('the second output', () => got.map(text).join('').includes('SECOND-OUT'));
    c.send({ type: 'io', stream: 4, delay: { sec: 0, nsec: 1000 }, data: Buffer.from('THIRD-OUT\r\n') });
    await until('the third output', () => got.map(text).join('').includes('THIRD-OUT'));
    expect(got.map(text).join('')).toBe('SECOND-OUT\r\nTHIRD-OUT\r\n');
    // Positions: each chunk starts where the one before ended.
    const chunks = got.filter((e): e is Extract<FollowEvent, { event: 'chunk' }> => e.event === 'chunk').map((e) => JSON.parse(e.data) as { start: number; len: number });
    expect(chunks[0]!.start).toBe(first.bytes);
    for (let i = 1; i < chunks.length; i++) expect(chunks[i]!.start).toBe(chunks[i - 1]!.start + chunks[i - 1]!.len);

    c.send({ type: 'exit', runTime: { sec: 0, nsec: 2000 }, exitValue: 0, dumpedCore: false, signal: '', error: '' });
    await c.until((m) => m.some((x) => x.type === 'commit_point'));
    c.end();
    await reading;
    const last = got[got.length - 1]!;
    expect(last.event).toBe('end');
    const total = (await iologChunk(t.engine, { file, start: '0', len: '1' })).bytes;
    expect(JSON.parse((last as { data: string }).data)).toEqual({ bytes: total });
  });

  it('refuses a session that is not there before any event', async () => {
    await expect(iologFollow(t.engine, { file: 'no/such/session' }, new AbortController().signal)).rejects.toMatchObject({ name: 'EvioError' });
  });

  it('ends the events when the follower goes away', async () => {
    const c = await RawClient.open(t.port);
    c.send({ type: 'hello', clientId: 'test' });
    c.send({ type: 'accept', submitTime: { sec: T0.sec + 100, nsec: 0 }, info: INFO, expectIobufs: true });
    await c.until((m) => m.some((x) => x.type === 'log_id'));
    c.send({ type: 'io', stream: 4, delay: { sec: 0, nsec: 1000 }, data: Buffer.from('x') });
    const dirs = events(t.settings).filter((r) => r.etype === 'K').map((r) => r.iolog as string);
    const dir = dirs[dirs.length - 1]!;
    await until('the output', () => existsSync(join(dir, 'ttyout')) && readFileSync(join(dir, 'ttyout'), 'latin1') === 'x');
    const ac = new AbortController();
    const f = await iologFollow(t.engine, { file: dir.slice(t.root.length + 1) }, ac.signal);
    const got: string[] = [];
    const reading = (async () => {
      for await (const e of f.events) got.push(e.event);
    })();
    await until('the first chunk', () => got.includes('chunk'));
    ac.abort();
    await reading;
    expect(got).toEqual(['state', 'chunk']);
    c.end();
  });

  it('refuses a follower over the cap with 1473, and takes one again once one left', async () => {
    const c = await RawClient.open(t.port);
    c.send({ type: 'hello', clientId: 'test' });
    c.send({ type: 'accept', submitTime: { sec: T0.sec + 200, nsec: 0 }, info: INFO, expectIobufs: true });
    await c.until((m) => m.some((x) => x.type === 'log_id'));
    c.send({ type: 'io', stream: 4, delay: { sec: 0, nsec: 1000 }, data: Buffer.from('y') });
    const dirs = events(t.settings).filter((r) => r.etype === 'K').map((r) => r.iolog as string);
    const dir = dirs[dirs.length - 1]!;
    await until('the output', () => existsSync(join(dir, 'ttyout')));
    const file = dir.slice(t.root.length + 1);
    const held = [];
    for (let i = 0; i < FOLLOW_MAX_WATCHERS; i++) {
      const ac = new AbortController();
      held.push({ ac, f: await iologFollow(t.engine, { file }, ac.signal) });
    }
    await expect(iologFollow(t.engine, { file }, new AbortController().signal)).rejects.toMatchObject({ errorName: 'IOLOG_TOO_MANY_WATCHERS', code: 1473 });
    held[0]!.ac.abort();
    const again = new AbortController();
    await expect(iologFollow(t.engine, { file }, again.signal)).resolves.toMatchObject({ file });
    again.abort();
    for (const h of held) h.ac.abort();
    c.end();
  });
});
