// The syslog destination: RFC 5424 messages checked field by field, the sudo-like MSG read back by
// evio's own sudo-text parser, and delivery over loopback TCP (octet counting, RFC 6587) to a
// daemon that is not listening at first, or that drops the connection part-way; and over UDP.
import { createSocket } from 'node:dgram';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseSyslogTarget } from '../../../src/destination-settings.js';
import { cursorFile } from '../../../src/eventlog/destinations/cursor.js';
import { Forwarder } from '../../../src/eventlog/destinations/forwarder.js';
import type { Spool } from '../../../src/eventlog/destinations/spool.js';
import { summaryLine, syslogMessage } from '../../../src/eventlog/destinations/syslog-message.js';
import { SyslogSink } from '../../../src/eventlog/destinations/syslog-sink.js';
import { parseTextBody } from '../../../src/eventlog/import/sudo-text-parse.js';
import type { StoredEvent } from '../../../src/eventlog/types.js';
import { FAST, flatFileWith, records, spoolOf, tempDir, until } from './helpers.js';
import { freePort } from '../../helpers/ports.js';

interface Parsed {
  pri: number;
  timestamp: string;
  hostname: string;
  app: string;
  procid: string;
  msgid: string;
  sd: string;
  msg: string;
}

/** RFC 5424 §6: HEADER SP STRUCTURED-DATA [SP MSG]. */
function parse5424(m: string): Parsed {
  const r = /^<(\d{1,3})>1 (\S+) (\S+) (\S+) (\S+) (\S+) (-|\[[^\]]*\]) (.*)$/s.exec(m);
  if (!r) throw new Error(`not RFC 5424: ${m.slice(0, 120)}`);
  return { pri: Number(r[1]), timestamp: r[2]!, hostname: r[3]!, app: r[4]!, procid: r[5]!, msgid: r[6]!, sd: r[7]!, msg: r[8]! };
}

const recnumOf = (p: Parsed): number => Number(/ ; RECNUM=(\d+) ; /.exec(p.msg)![1]);

/** Splits octet-counted frames (RFC 6587 §3.4.1) as they arrive. */
function octetFrames(onFrame: (m: string) => void): (chunk: Buffer) => void {
  let buf = Buffer.alloc(0);
  return (chunk) => {
    buf = Buffer.concat([buf, chunk]);
    for (;;) {
      const sp = buf.indexOf(0x20);
      if (sp < 0) return;
      const len = Number(buf.subarray(0, sp).toString('latin1'));
      if (!Number.isInteger(len) || len <= 0) throw new Error(`bad frame length ${buf.subarray(0, sp).toString('latin1')}`);
      if (buf.length < sp + 1 + len) return;
      onFrame(buf.subarray(sp + 1, sp + 1 + len).toString('utf8'));
      buf = buf.subarray(sp + 1 + len);
    }
  };
}


const ACCEPT: StoredEvent = {
  recnum: 7, uniqueid: 'u-7', etype: 'A', time: 1767225600.25, submituser: 'alice', submithost: 'web1.example.com', runuser: 'root', runhost: 'web1.example.com',
  runcommand: '/bin/ls', runargv: ['/bin/ls', '-l', "my dir's", 'back\\slash'], cwd: '/home/alice', ttyname: '/dev/pts/0',
};

describe('syslog messages (RFC 5424)', () => {
  const fmt = { facility: 10, hostname: 'evio-host', procId: '4242' };
  it('accept: authpriv.info, the event time, sudo-like MSG that sudo-text import reads back', () => {
    const p = parse5424(syslogMessage(ACCEPT, fmt).toString('utf8'));
    expect(p).toEqual({
      pri: 86, timestamp: '2026-01-01T00:00:00.250Z', hostname: 'evio-host', app: 'evio', procid: '4242', msgid: 'sudo-accept', sd: '-',
      msg: `alice : HOST=web1.example.com ; TTY=/dev/pts/0 ; PWD=/home/alice ; USER=root ; RECNUM=7 ; UNIQUEID=u-7 ; COMMAND=/bin/ls -l 'my dir\\'s' 'back\\\\slash'`,
    });
    const body = parseTextBody(p.msg.slice('alice : '.length));
    expect(body).toMatchObject({ kind: 'accept', reason: null, argv: ACCEPT.runargv, fields: { HOST: 'web1.example.com', TTY: '/dev/pts/0', PWD: '/home/alice', USER: 'root', RECNUM: '7', UNIQUEID: 'u-7' } });
  });
  it('reject: notice with its reason first; alert: warning; finish: info with SIGNAL and EXIT; K: its own MSGID', () => {
    const reject = parse5424(syslogMessage({ ...ACCEPT, etype: 'R', reason: 'command not allowed', exitstatus: 'Request rejected: command not allowed' }, fmt).toString());
    expect([reject.pri, reject.msgid]).toEqual([85, 'sudo-reject']);
    expect(reject.msg.startsWith('alice : command not allowed ; HOST=web1.example.com ;')).toBe(true);
    expect(parseTextBody(reject.msg.slice(8))).toMatchObject({ kind: 'reject', reason: 'command not allowed' });
    const alert = parse5424(syslogMessage({ ...ACCEPT, etype: 'R', reason: 'problem with defaults entries', exitstatus: 'Alert: problem with defaults entries' }, { ...fmt, facility: 4 }).toString());
    expect([alert.pri, alert.msgid]).toEqual([4 * 8 + 4, 'sudo-alert']);
    const fin = parse5424(syslogMessage({ recnum: 9, uniqueid: 'u-7', etype: 'F', time: 1767225601, submituser: 'alice', runuser: 'root', runcommand: '/bin/sleep', exitcode: 143, signal: 'TERM', exitstatus: 'Command killed by signal TERM' }, fmt).toString());
    expect([fin.pri, fin.msgid]).toEqual([86, 'sudo-finish']);
    expect(fin.msg).toBe('alice : USER=root ; RECNUM=9 ; UNIQUEID=u-7 ; COMMAND=/bin/sleep ; SIGNAL=TERM ; EXIT=143');
    expect(parseTextBody(fin.msg.slice(8))).toMatchObject({ kind: 'exit', exitValue: 143, signal: 'TERM' });
    expect(parse5424(syslogMessage({ ...ACCEPT, etype: 'K', iolog: '/var/log/sudo-io/00/00/01' }, fmt).toString()).msgid).toBe('sudo-accept-iolog');
    // The command's path, then the arguments: runargv[0] is what the user typed.
    expect(summaryLine({ ...ACCEPT, runcommand: '/usr/bin/id', runargv: ['id', '-u'] })).toMatch(/ ; COMMAND=\/usr\/bin\/id -u$/);
  });
  it('escapes control characters as sudo does, and cuts a long MSG at a character boundary within the bound', () => {
    const evil: StoredEvent = { ...ACCEPT, runcommand: '/bin/echo', runargv: ['/bin/echo', 'a\nb\u001b[31m', 'é'.repeat(3000)] };
    const m = syslogMessage(evil, fmt);
    expect(m.length).toBeLessThanOrEqual(2048);
    const text = m.toString('utf8');
    expect(text).not.toMatch(/[\x00-\x1f\x7f]/);
    expect(text).toContain('COMMAND=/bin/echo a#012b#033[31m éé');
    expect(text.endsWith('é...')).toBe(true);
    expect(Buffer.from(text, 'utf8').equals(m)).toBe(true); // no split UTF-8 sequence
    expect(summaryLine({ recnum: 1, uniqueid: 'x', etype: 'A', time: 0 })).toBe('- : RECNUM=1 ; UNIQUEID=x');
    expect(parse5424(syslogMessage({ recnum: 1, uniqueid: 'x', etype: 'A', time: 8.64e12 }, fmt).toString()).timestamp).toBe('-');
    expect(parse5424(syslogMessage({ recnum: 1, uniqueid: 'x', etype: 'A', time: 0 }, { facility: 10 }).toString()).hostname).toBe(hostname().replace(/[^\x21-\x7e]/g, '') || '-');
  });
  it('targets: loopback only, authpriv unless a facility is named', () => {
    expect(parseSyslogTarget('tcp://127.0.0.1:601')).toEqual({ transport: 'tcp', host: '127.0.0.1', port: 601, facility: 10 });
    expect(parseSyslogTarget('udp://[::1]:514?facility=local3')).toEqual({ transport: 'udp', host: '::1', port: 514, facility: 19 });
    expect(parseSyslogTarget('tcp://localhost:6514/')).toMatchObject({ host: 'localhost', port: 6514 });
  });
});

describe('syslog delivery over loopback', () => {
  let t: ReturnType<typeof tempDir>;
  let spool: Spool;
  let server: Server | null = null;
  const log: string[] = [];
  beforeEach(() => {
    t = tempDir();
    log.length = 0;
  });
  afterEach(async () => {
    await spool?.close();
    if (server) await new Promise<void>((r) => server!.close(() => r()));
    server = null;
    t.cleanup();
  });

  const forwarder = (sink: SyslogSink, batch = { records: 1000, bytes: 1 << 20 }) =>
    new Forwarder({ name: 'syslog', target: 'x', sink, spool, cursor: cursorFile(join(t.dir, 'spool', 'syslog.cursor'), 'x'), log: (l) => log.push(l), backoff: FAST, batch }).start();

  it('TCP: nothing listens at first; once a daemon listens, every record arrives in order, as RFC 5424 with octet counting', async () => {
    const recs = records(1200);
    const path = join(t.dir, 'events.ndjson');
    await flatFileWith(path, recs);
    spool = spoolOf(path);
    const port = await freePort();
    const sink = new SyslogSink({ target: parseSyslogTarget(`tcp://127.0.0.1:${port}`), log: (l) => log.push(l), format: { hostname: 'evio-host' } });
    const f = forwarder(sink);
    await until(() => f.status().failures >= 3, 'three refused connections');
    expect(f.status()).toMatchObject({ deliveredRecnum: 0, lastError: expect.stringMatching(/^1263 syslog tcp:\/\/127\.0\.0\.1:\d+: cannot connect: .*ECONNREFUSED/) });
    const got: Parsed[] = [];
    server = createServer((sock) => sock.on('data', octetFrames((m) => got.push(parse5424(m)))));
    await new Promise<void>((r) => server!.listen(port, '127.0.0.1', () => r()));
    await until(() => got.length === 1200, 'every record at the daemon');
    await f.close();
    expect(got.map(recnumOf)).toEqual(recs.map((r) => r.recnum));
    for (const [i, p] of got.entries()) {
      const r = recs[i]!;
      expect(p.pri).toBe(10 * 8 + (r.etype === 'R' ? 5 : 6));
      expect(p.timestamp).toBe(new Date(r.time * 1000).toISOString());
      expect([p.hostname, p.app, p.procid, p.sd]).toEqual(['evio-host', 'evio', String(process.pid), '-']);
      expect(p.msgid).toBe({ A: 'sudo-accept', K: 'sudo-accept-iolog', R: 'sudo-reject', F: 'sudo-finish' }[r.etype]);
      expect(p.msg.startsWith(`${r.submituser ?? '-'} : `)).toBe(true);
      if (r.runuser !== undefined) expect(p.msg).toContain(` ; USER=${r.runuser} ; `);
    }
  });

  it('TCP: a daemon that dies with records unread gets them again on the next connection (a repeat, never a gap)', async () => {
    const recs = records(3010);
    const path = join(t.dir, 'events.ndjson');
    const ff = await flatFileWith(path, recs.slice(0, 3000));
    spool = spoolOf(path);
    const connections: number[][] = [];
    let stuck: Socket | null = null;
    server = createServer((sock: Socket) => {
      const mine: number[] = [];
      connections.push(mine);
      const first = connections.length === 1;
      sock.on('data', octetFrames((m) => {
        mine.push(recnumOf(parse5424(m)));
        // The first daemon stops reading after 100 messages: the rest waits in the socket buffers.
        if (first && mine.length === 100) {
          sock.pause();
          stuck = sock;
        }
      }));
      sock.on('error', () => {});
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as { port: number }).port;
    const sink = new SyslogSink({ target: parseSyslogTarget(`tcp://127.0.0.1:${port}`), log: (l) => log.push(l) });
    const f = forwarder(sink, { records: 100, bytes: 1 << 20 });
    // Written into the connection, so delivered as far as evio can tell, but not read.
    await until(() => stuck !== null && (f.status().deliveredRecnum ?? 0) >= 1000, '1000 records written while the daemon reads none');
    stuck!.destroy(); // the daemon dies
    const res = await ff.append(recs.slice(3000));
    f.wake(res.last!);
    await until(() => connections.length >= 2 && connections.at(-1)!.at(-1) === 3010, 'record 3010 on a later connection');
    await f.close();
    expect(connections[0]!.slice(0, 100)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    const last = connections.at(-1)!;
    expect(last[0]).toBeLessThanOrEqual(connections[0]!.length + 1);
    expect(last).toEqual(Array.from({ length: 3010 - last[0]! + 1 }, (_, i) => last[0]! + i));
    expect(log.some((l) => /delivering again after recnum \d+/.test(l))).toBe(true);
  });

  it('UDP: nothing listens at first (the datagrams are refused); once a daemon listens, every record arrives', async () => {
    const recs = records(80);
    const path = join(t.dir, 'events.ndjson');
    await flatFileWith(path, recs);
    spool = spoolOf(path);
    const probe = createSocket('udp4');
    await new Promise<void>((r) => probe.bind(0, '127.0.0.1', () => r()));
    const port = probe.address().port;
    await new Promise<void>((r) => probe.close(() => r()));
    const sink = new SyslogSink({ target: parseSyslogTarget(`udp://127.0.0.1:${port}`), log: (l) => log.push(l) });
    // One record per batch: a lone datagram's refusal comes back only as an 'error' event.
    const f = forwarder(sink, { records: 1, bytes: 1 << 20 });
    await until(() => f.status().failures >= 3 || f.status().deliveredRecnum === 80, 'three refused batches');
    expect(f.status()).toMatchObject({ deliveredRecnum: 0, lastError: expect.stringMatching(/^1263 syslog udp:\/\/127\.0\.0\.1:\d+: (datagrams refused|send failed: .*ECONNREFUSED)/) });
    const got: number[] = [];
    const udp = createSocket('udp4');
    udp.on('message', (m) => got.push(recnumOf(parse5424(m.toString('utf8')))));
    await new Promise<void>((r) => udp.bind(port, '127.0.0.1', () => r()));
    try {
      await until(() => got.includes(80), 'the last datagram');
      await f.close();
      expect(got).toEqual(recs.map((r) => r.recnum));
    } finally {
      udp.close();
    }
  });

  it('UDP: one datagram per record, in order', async () => {
    const recs = records(200);
    const path = join(t.dir, 'events.ndjson');
    await flatFileWith(path, recs);
    spool = spoolOf(path);
    const got: Parsed[] = [];
    const udp = createSocket('udp4');
    udp.on('message', (m) => got.push(parse5424(m.toString('utf8'))));
    await new Promise<void>((r) => udp.bind(0, '127.0.0.1', () => r()));
    try {
      const sink = new SyslogSink({ target: parseSyslogTarget(`udp://127.0.0.1:${udp.address().port}?facility=local0`), log: (l) => log.push(l) });
      const f = forwarder(sink, { records: 50, bytes: 1 << 20 });
      await until(() => got.length === 200, 'every datagram');
      await f.close();
      expect(got.map(recnumOf)).toEqual(recs.map((r) => r.recnum));
      expect(got.every((p) => p.pri >> 3 === 16)).toBe(true);
    } finally {
      udp.close();
    }
  });
});
