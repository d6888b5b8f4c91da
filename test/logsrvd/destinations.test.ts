// The log server feeds the configured event destinations: what sudo clients send (an accept, a
// reject, an alert through the protocol; a whole session through sudo_sendlog when Debian's sudo
// is installed) is acknowledged once in the flat-file log and arrives, with the same recnums, in
// an SQLite destination and at a syslog daemon on loopback that starts listening only later.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runningDestinations } from '../../src/app/event-destinations.js';
import { Engine } from '../../src/engine.js';
import { dumpQuery } from '../../src/eventlog/query.js';
import { SqliteStore } from '../../src/eventlog/sqlite/index.js';
import { startLogServer, type LogServer } from '../../src/logsrvd/server.js';
import { loadSettings, type Settings } from '../../src/settings.js';
import type { ClientMessage } from '../../src/logsrvd/messages.js';
import { INFO, RawClient, T0 } from './client.js';
import { events, makeSession, sendlog, settled, sudoToolsAvailable } from './helpers.js';
import { freePort } from '../helpers/ports.js';

async function until(cond: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}


describe('log server -> event destinations', () => {
  let home: string;
  let settings: Settings;
  let engine: Engine;
  let server: LogServer;
  let syslogPort: number;
  let daemon: Server | null = null;
  const logs: Record<string, unknown>[] = [];
  const frames: string[] = [];

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'evio-logsrvd-dest-'));
    syslogPort = await freePort();
    const base = loadSettings({ env: { EVIO_HOME: home }, cwd: home, overrides: { destinations: { db: join(home, 'copy.sqlite'), syslog: `tcp://127.0.0.1:${syslogPort}` } } });
    settings = { ...base, requestLog: 'off', logsrvd: { ...base.logsrvd, commitIntervalMs: 50 } };
    engine = new Engine(settings);
    server = await startLogServer(engine, { listen: ['127.0.0.1:0'], log: (e) => logs.push(e) });
  });
  afterAll(async () => {
    await server?.close();
    if (daemon) await new Promise<void>((r) => daemon!.close(() => r()));
    await engine?.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('an accept, a reject and an alert reach the database at once, and the syslog daemon once it listens', async () => {
    // One command per connection, as sudo sends them.
    const send = async (msgs: ClientMessage[], count: number) => {
      const c = await RawClient.open(server.addresses[0]!.port);
      c.send({ type: 'hello', clientId: 'test' });
      await c.until((m) => m.some((x) => x.type === 'hello'));
      for (const m of msgs) c.send(m);
      await until(() => events(settings).length >= count, `${count} events in the flat-file log`);
      c.end();
    };
    await send([{ type: 'reject', submitTime: T0, reason: 'command not allowed', info: INFO }], 1);
    await send([{ type: 'alert', alertTime: T0, reason: 'problem with defaults entries', info: INFO }], 2);
    await send([{ type: 'accept', submitTime: T0, info: INFO, expectIobufs: false }, { type: 'exit', runTime: { sec: 0, nsec: 5 }, exitValue: 0, dumpedCore: false, signal: '', error: '' }], 4);
    const spooled = events(settings);
    const db = new SqliteStore({ path: join(home, 'copy.sqlite'), fileMustExist: true, createSchema: false });
    try {
      await until(async () => (await db.lastRecnum().catch(() => 0)) === spooled.at(-1)!.recnum, 'the database to hold every event');
      const inDb: unknown[] = [];
      for await (const row of db.query(dumpQuery())) inDb.push(row.rec);
      expect(inDb).toEqual(spooled);
    } finally {
      await db.close();
    }
    // The syslog daemon was not listening: nothing lost, it gets everything once it listens.
    const status = () => runningDestinations(engine)!.status().find((s) => s.name === 'syslog')!;
    await until(() => status().failures >= 1, 'a refused syslog connection');
    expect(status().lastError).toMatch(/^1263 .*ECONNREFUSED/);
    daemon = createServer((sock) => {
      let buf = '';
      sock.on('data', (b) => {
        buf += b.toString('utf8');
        for (let m = /^(\d+) /.exec(buf); m && buf.length >= m[0].length + Number(m[1]); m = /^(\d+) /.exec(buf)) {
          frames.push(buf.slice(m[0].length, m[0].length + Number(m[1])));
          buf = buf.slice(m[0].length + Number(m[1]));
        }
      });
    });
    await new Promise<void>((r) => daemon!.listen(syslogPort, '127.0.0.1', () => r()));
    await until(() => frames.length >= spooled.length, 'every event at the syslog daemon');
    expect(frames.map((f) => Number(/ ; RECNUM=(\d+) ; /.exec(f)![1]))).toEqual(spooled.map((r) => r.recnum));
    // reject: authpriv.notice; alert: authpriv.warning; accept and finish: authpriv.info.
    expect(frames.map((f) => /^<(\d+)>1 /.exec(f)![1])).toEqual(spooled.map((r) => (r.etype === 'R' ? (String(r.exitstatus).startsWith('Alert:') ? '84' : '85') : '86')));
    expect(frames[0]).toMatch(/ sudo-reject - alice : command not allowed ; HOST=client1 ; TTY=\/dev\/pts\/3 ; PWD=\/home\/alice ; USER=root ; RECNUM=1 ; UNIQUEID=\S+ ; COMMAND=\/usr\/bin\/id$/);
    expect(frames.some((f) => / sudo-alert - /.test(f))).toBe(true);
  });

  it.skipIf(!sudoToolsAvailable())('a session sudo_sendlog sends: its K and F events reach the destinations with their recnums', async () => {
    const work = mkdtempSync(join(tmpdir(), 'evio-dest-session-'));
    try {
      const before = events(settings).length;
      makeSession(join(work, 's'), { records: 20, bytes: 200, delayNs: 1_000_000 });
      const res = await sendlog(server.addresses[0]!.port, [], join(work, 's'));
      await settled({ server } as never);
      expect(res.code).toBe(0);
      const spooled = events(settings);
      expect(spooled.slice(before).map((r) => r.etype)).toEqual(['K', 'F']);
      await until(() => frames.length >= spooled.length, 'the session\'s events at the syslog daemon');
      expect(frames.slice(before).map((f) => / (sudo-[a-z-]+) - /.exec(f)![1])).toEqual(['sudo-accept-iolog', 'sudo-finish']);
      await until(() => runningDestinations(engine)!.status().every((s) => s.deliveredRecnum === spooled.at(-1)!.recnum), 'both destinations at the last recnum');
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});
