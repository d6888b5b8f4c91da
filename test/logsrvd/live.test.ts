// A session being received can be watched: what a client sent reaches the session's files
// within a moment (unsynced: no commit point yet), and evio's readers — a chunk, the session
// list with its live mark — see it while the session runs.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { iologChunk, iologList } from '../../src/app/iolog.js';
import { INFO, RawClient, T0 } from './client.js';
import { events, startTestServer, type TestServer } from './helpers.js';

async function until(what: string, probe: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`no ${what} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('a session while it is received', () => {
  let t: TestServer;
  beforeAll(async () => {
    // Commit points far apart: only the write-out can make the bytes visible in time.
    t = await startTestServer({ commitIntervalMs: 600_000 });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('reaches its files and evio\'s readers before any commit point, and is listed as live', async () => {
    const c = await RawClient.open(t.port);
    c.send({ type: 'hello', clientId: 'test' });
    c.send({ type: 'accept', submitTime: T0, info: INFO, expectIobufs: true });
    await c.until((m) => m.some((x) => x.type === 'log_id'));
    c.send({ type: 'io', stream: 4, delay: { sec: 0, nsec: 1000 }, data: Buffer.from('root@web01:~# tail -f /var/log/auth.log\r\nLIVE-MARKER-1\r\n') });
    const dir = events(t.settings).find((r) => r.etype === 'K')!.iolog as string;
    await until('the bytes in ttyout', () => existsSync(join(dir, 'ttyout')) && readFileSync(join(dir, 'ttyout'), 'latin1').includes('LIVE-MARKER-1'));
    expect(c.messages.some((m) => m.type === 'commit_point')).toBe(false);
    const file = dir.slice(t.root.length + 1);
    const chunk = await iologChunk(t.engine, { file });
    const text = chunk.items.flatMap((i) => ('blob' in i ? [Buffer.from(i.blob, 'base64').toString('latin1')] : [])).join('');
    expect(text).toContain('LIVE-MARKER-1');
    const listed = (await iologList(t.engine, {})) as unknown as Record<string, unknown>[];
    const row = listed.find((r) => String(r.logpath ?? r.file ?? '').includes(file));
    expect(row, JSON.stringify(listed)).toBeDefined();
    expect(row!.live).toBe(true);
    // More output while it runs, then the end: no longer live.
    c.send({ type: 'io', stream: 4, delay: { sec: 0, nsec: 1000 }, data: Buffer.from('LIVE-MARKER-2\r\n') });
    await until('the second bytes', () => readFileSync(join(dir, 'ttyout'), 'latin1').includes('LIVE-MARKER-2'));
    c.send({ type: 'exit', runTime: { sec: 0, nsec: 2000 }, exitValue: 0, dumpedCore: false, signal: '', error: '' });
    await c.until((m) => m.some((x) => x.type === 'commit_point'));
    c.end();
    await until('the session to complete', async () => {
      const rows = (await iologList(t.engine, {})) as unknown as Record<string, unknown>[];
      const r = rows.find((x) => String(x.logpath ?? x.file ?? '').includes(file));
      return r !== undefined && r.live !== true;
    });
  });
});
