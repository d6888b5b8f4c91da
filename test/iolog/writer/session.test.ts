// A session with all five streams, window changes and suspend/resume, written plain and
// compressed, read back by evio's own reader and by the real sudoreplay (-l and -n), then
// finished: timing read-only, log.json valid JSON ending with the exit. Also what the writer
// refuses on the way: bad records, writes after finish, a session directory that exists.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, constants as zc } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSudoVariables, sudoInfo as sessionInfo } from '../../../src/iolog/log-info.js';
import { SudoSession } from '../../../src/iolog/sudo-session.js';
import type { StreamName } from '../../../src/iolog/timing.js';
import { createIologSession } from '../../../src/iolog/writer/index.js';
import type { IologSession, IoStream, TimeSpec } from '../../../src/iolog/writer/types.js';
import { readBack, removeRoot, replayed, runSudoreplay, sudoInfo, sudoreplay, tempRoot, writerOptions } from './helpers.js';

const NAMES: StreamName[] = ['stdin', 'stdout', 'stderr', 'ttyin', 'ttyout'];
const SUBMIT: TimeSpec = { sec: 1_767_225_600, nsec: 123_456_789 }; // 2026-01-01T00:00:00Z

/** A deterministic byte pattern covering every byte value. */
function bytes(n: number, seed: number): Buffer {
  const b = Buffer.alloc(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    b[i] = x & 255;
  }
  return b;
}

type Rec = { kind: 'io'; stream: IoStream; delay: TimeSpec; data: Buffer } | { kind: 'win'; delay: TimeSpec; rows: number; cols: number } | { kind: 'sig'; delay: TimeSpec; signal: string };

/** The script: every stream, tiny and large records (one over the 64 KiB buffer), resizes, a suspend. */
function script(): Rec[] {
  const recs: Rec[] = [];
  let k = 1;
  const d = (ms: number): TimeSpec => ({ sec: Math.floor(ms / 1000), nsec: (ms % 1000) * 1_000_000 + k });
  recs.push({ kind: 'io', stream: 4, delay: d(5), data: Buffer.from('\x1b[01;32mroot@web01\x1b[00m:~# ') });
  for (const ch of 'ls -la\r') {
    k++;
    recs.push({ kind: 'io', stream: 3, delay: d(120), data: Buffer.from(ch) });
    recs.push({ kind: 'io', stream: 4, delay: d(1), data: Buffer.from(ch === '\r' ? '\r\n' : ch) });
  }
  recs.push({ kind: 'io', stream: 4, delay: d(30), data: bytes(100_000, 7) });
  recs.push({ kind: 'win', delay: d(900), rows: 50, cols: 132 });
  recs.push({ kind: 'io', stream: 0, delay: d(2), data: Buffer.from('stdin line\n') });
  recs.push({ kind: 'io', stream: 1, delay: d(3), data: bytes(3000, 11) });
  recs.push({ kind: 'io', stream: 2, delay: d(4), data: Buffer.from('to-stderr\n') });
  recs.push({ kind: 'io', stream: 1, delay: d(0), data: Buffer.alloc(0) });
  recs.push({ kind: 'io', stream: 3, delay: d(999), data: Buffer.from([0x1a]) });
  recs.push({ kind: 'io', stream: 4, delay: d(1), data: Buffer.from('^Z') });
  recs.push({ kind: 'sig', delay: d(1), signal: 'TSTP' });
  recs.push({ kind: 'sig', delay: { sec: 2, nsec: 999_999_999 }, signal: 'SIGCONT' });
  for (let i = 0; i < 500; i++) recs.push({ kind: 'io', stream: (i % 2 ? 1 : 4) as IoStream, delay: { sec: 0, nsec: 1000 + i }, data: bytes(1 + (i % 300), i + 3) });
  recs.push({ kind: 'win', delay: d(10), rows: 24, cols: 80 });
  recs.push({ kind: 'io', stream: 0, delay: { sec: 4_000_000_000, nsec: 1 }, data: Buffer.from('late\n') }); // seconds past 2^31
  return recs;
}

function write(s: IologSession, recs: readonly Rec[]): void {
  for (const r of recs) {
    if (r.kind === 'io') s.writeIo(r.stream, r.delay, r.data);
    else if (r.kind === 'win') s.writeWinsize(r.delay, r.rows, r.cols);
    else s.writeSuspend(r.delay, r.signal);
  }
}

function sum(recs: readonly Rec[]): TimeSpec {
  let sec = 0;
  let nsec = 0;
  for (const r of recs) {
    sec += r.delay.sec;
    nsec += r.delay.nsec;
    if (nsec >= 1e9) {
      sec++;
      nsec -= 1e9;
    }
  }
  return { sec, nsec };
}

/** Records over 64 KiB become 64 KiB pieces, the first with the delay (what sudoreplay can read). */
const PIECE = 64 * 1024;
const pieces = (n: number): number[] => (n <= PIECE ? [n] : Array.from({ length: Math.ceil(n / PIECE) }, (_, i) => Math.min(PIECE, n - i * PIECE)));

/** What evio's reader should report, in readBack's form. */
function expectedEvents(recs: readonly Rec[]): string[] {
  const out: string[] = [];
  let t: TimeSpec = { sec: 0, nsec: 0 };
  for (const r of recs) {
    t = sum([{ kind: 'sig', delay: t, signal: '' }, r]);
    const at = `${t.sec}.${String(t.nsec).padStart(9, '0')}`;
    if (r.kind === 'io') {
      for (const n of pieces(r.data.length)) if (n > 0) out.push(`${at} ${NAMES[r.stream]}:${n}`);
    } else if (r.kind === 'win') out.push(`${at} winch:${r.rows}x${r.cols}`);
    else out.push(`${at} signal:${r.signal.replace(/^SIG/, '')}`);
  }
  return out;
}

/** The timing file the records should give, line by line. */
function expectedTiming(recs: readonly Rec[]): string[] {
  const d = (t: TimeSpec) => `${t.sec}.${String(t.nsec).padStart(9, '0')}`;
  return recs.flatMap((r) =>
    r.kind === 'io'
      ? pieces(r.data.length).map((n, i) => `${r.stream} ${i === 0 ? d(r.delay) : '0.000000000'} ${n}`)
      : r.kind === 'win'
        ? [`5 ${d(r.delay)} ${r.rows} ${r.cols}`]
        : [`7 ${d(r.delay)} ${r.signal.replace(/^SIG/, '')}`],
  );
}

const RECS = script();
const ARGV = ['bash', '-c', "printf 'a b'"];

for (const compress of [false, true]) {
  describe(`a written session (${compress ? 'gzip' : 'plain'})`, () => {
    let root: string;
    let s: IologSession;
    const half = Math.floor(RECS.length / 2);
    let flushedAt: TimeSpec;

    beforeAll(async () => {
      root = tempRoot();
      s = await createIologSession(writerOptions(root, { compress }), SUBMIT, sudoInfo({ runargv: ARGV, rungroup: 'wheel', rungid: 10 }), { uuid: '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0' });
      write(s, RECS.slice(0, half));
      flushedAt = await s.flush();
    });
    afterAll(async () => {
      await s.close();
      removeRoot(root);
    });

    it('names it 00/00/01 with TSID 000001 and counts the elapsed time exactly', () => {
      expect(s.relPath).toBe('00/00/01');
      expect(s.tsid).toBe('000001');
      expect(s.dir).toBe(join(root, '00/00/01'));
      expect(flushedAt).toEqual(sum(RECS.slice(0, half)));
      expect(s.buffered).toBe(0);
    });

    it('a flushed half is readable while running (gzip: sync-flushed, no trailer yet) by evio and sudoreplay', async () => {
      const got = await readBack(s.dir);
      expect(got.warnings).toEqual([]);
      expect(got.events).toEqual(expectedEvents(RECS.slice(0, half)));
      expect(statSync(join(s.dir, 'timing')).mode & 0o777).toBe(0o600);
      if (runSudoreplay) {
        const r = sudoreplay(['-d', root, '-n', '-m', '0', '-f', 'ttyout', '000001']);
        expect(r.status).toBe(0);
        const tty = Buffer.concat(RECS.slice(0, half).flatMap((x) => (x.kind === 'io' && x.stream === 4 ? [x.data] : [])));
        expect(r.stdout.equals(replayed('/usr/bin/bash', ARGV, tty))).toBe(true);
      }
    });

    it('finished: every record read back by evio\'s reader, exactly', async () => {
      write(s, RECS.slice(half));
      expect(s.elapsed).toEqual(sum(RECS));
      await s.finish({ runTime: { sec: 4_000_000_042, nsec: 5 }, exitValue: 3 });
      const got = await readBack(s.dir);
      expect(got.warnings).toEqual([]);
      expect(got.events).toEqual(expectedEvents(RECS));
      for (let i = 0; i < 5; i++) {
        const want = Buffer.concat(RECS.flatMap((r) => (r.kind === 'io' && r.stream === i ? [r.data] : [])));
        expect(got.streams[NAMES[i]!].equals(want), NAMES[i]).toBe(true);
      }
      expect(await new SudoSession(s.dir).complete()).toBe(true);
    });

    it('files: timing read-only (0400), the rest 0600, gzip members complete', () => {
      const names = readdirSync(s.dir).sort();
      expect(names).toEqual(['log', 'log.json', 'stderr', 'stdin', 'stdout', 'timing', 'ttyin', 'ttyout']);
      for (const n of names) expect(statSync(join(s.dir, n)).mode & 0o777, n).toBe(n === 'timing' ? 0o400 : 0o600);
      for (const n of ['timing', ...NAMES]) {
        const raw = readFileSync(join(s.dir, n));
        expect(raw[0] === 0x1f && raw[1] === 0x8b, n).toBe(compress);
        if (compress) expect(() => gunzipSync(raw)).not.toThrow(); // a trailer, not only a sync flush
      }
    });

    it('timing lines are sudo\'s: "<type> <sec>.<9 digits> <n>", "5 ... rows cols", "7 ... SIG"', () => {
      const raw = readFileSync(join(s.dir, 'timing'));
      const text = (compress ? gunzipSync(raw, { finishFlush: zc.Z_SYNC_FLUSH }) : raw).toString('latin1');
      const lines = text.split('\n');
      expect(lines.pop()).toBe('');
      expect(lines).toEqual(expectedTiming(RECS));
      expect(lines.slice(0, 2)).toEqual(['4 0.005000001 27', '3 0.120000002 1']);
      expect(lines).toContain('4 0.030000008 65536'); // the 100000-byte record: 65536 + 34464
      expect(lines).toContain('4 0.000000000 34464');
      expect(lines).toContain('5 0.900000008 50 132');
      expect(lines).toContain('7 0.001000008 TSTP');
      expect(lines).toContain('7 2.999999999 CONT');
      expect(lines).toContain('1 0.000000008 0');
      expect(lines[lines.length - 1]).toBe('0 4000000000.000000001 5');
      for (const l of lines) expect(l).toMatch(/^([0-4] \d+\.\d{9} \d+|5 \d+\.\d{9} \d+ \d+|7 \d+\.\d{9} [A-Z]+)$/);
    });

    it('log.json: valid JSON, 4-space layout, timestamp first, the exit appended', async () => {
      const text = readFileSync(join(s.dir, 'log.json'), 'utf8');
      const j = JSON.parse(text) as Record<string, unknown>;
      expect(Object.keys(j)).toEqual(['timestamp', 'submituser', 'command', 'runuser', 'rungroup', 'runcwd', 'ttyname', 'submithost', 'submitcwd', 'rungid', 'runuid', 'columns', 'lines', 'runargv', 'runenv', 'uuid', 'run_time', 'exit_value']);
      expect(j.timestamp).toEqual({ seconds: SUBMIT.sec, nanoseconds: SUBMIT.nsec });
      expect(j.run_time).toEqual({ seconds: 4_000_000_042, nanoseconds: 5 });
      expect(j.exit_value).toBe(3);
      expect(text.startsWith('{\n    "timestamp": {\n        "seconds": 1767225600,\n        "nanoseconds": 123456789\n    },\n    "submituser": "alice",\n')).toBe(true);
      expect(text.endsWith('    ],\n    "uuid": "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0",\n    "run_time": {\n        "seconds": 4000000042,\n        "nanoseconds": 5\n    },\n    "exit_value": 3\n}\n')).toBe(true);
      const info = sessionInfo((await readSudoVariables(s.dir)).variables);
      expect(info).toMatchObject({ startSec: SUBMIT.sec, startNsec: SUBMIT.nsec, submituser: 'alice', submithost: 'web01', runuser: 'root', cwd: '/root', ttyname: '/dev/pts/3', term: 'xterm-256color', uuid: '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0' });
      expect(readFileSync(join(s.dir, 'log'), 'utf8')).toBe(`${SUBMIT.sec}:alice:root:wheel:/dev/pts/3:24:80\n/home/alice\n/usr/bin/bash -c printf 'a b'\n`);
    });

    it.runIf(runSudoreplay)('sudoreplay -l lists it with the right fields', () => {
      const r = sudoreplay(['-d', root, '-l']);
      expect(r.status).toBe(0);
      expect(r.stdout.toString()).toBe("Jan  1 00:00:00 2026 : alice : HOST=web01 ; TTY=pts/3 ; CWD=/root ; USER=root ; GROUP=wheel ; TSID=000001 ; COMMAND=/usr/bin/bash -c 'printf \\'a b\\''\n");
      expect(sudoreplay(['-d', root, '-l', 'user', 'alice', 'host', 'web01', 'runas', 'root']).stdout.toString()).toContain('TSID=000001');
      expect(sudoreplay(['-d', root, '-l', 'user', 'bob']).stdout.toString()).toBe('');
    });

    it.runIf(runSudoreplay)('sudoreplay -n replays exactly the bytes written (default filter and all five streams)', () => {
      for (const filter of [[1, 2, 4], [0, 1, 2, 3, 4], [3]]) {
        const r = sudoreplay(['-d', root, '-n', '-m', '0', '-f', filter.map((i) => NAMES[i]).join(','), '000001']);
        expect(r.status).toBe(0);
        const data = Buffer.concat(RECS.flatMap((x) => (x.kind === 'io' && filter.includes(x.stream) ? [x.data] : [])));
        expect(r.stdout.equals(replayed('/usr/bin/bash', ARGV, data))).toBe(true);
      }
    });

    it('refuses what comes after finish, and never reuses the directory', async () => {
      expect(() => s.writeIo(4, { sec: 0, nsec: 0 }, Buffer.from('x'))).toThrow(/^1460 /);
      await expect(s.flush()).rejects.toThrow(/^1460 /);
      await expect(s.finish({ exitValue: 0 })).rejects.toThrow(/^1460 /);
      await s.close(); // idempotent after finish
      const next = await createIologSession(writerOptions(root, { compress }), SUBMIT, sudoInfo());
      expect(next.relPath).toBe('00/00/02');
      await next.close();
    });
  });
}

describe('records the writer refuses (nothing written, the session goes on)', () => {
  let root: string;
  let s: IologSession;
  beforeAll(async () => {
    root = tempRoot();
    s = await createIologSession(writerOptions(root), SUBMIT, sudoInfo());
  });
  afterAll(async () => {
    await s.close();
    removeRoot(root);
  });

  const cases: [string, (s: IologSession) => void][] = [
    ['negative seconds', (x) => x.writeIo(4, { sec: -1, nsec: 0 }, Buffer.from('a'))],
    ['nanoseconds of a whole second', (x) => x.writeIo(4, { sec: 0, nsec: 1_000_000_000 }, Buffer.from('a'))],
    ['negative nanoseconds', (x) => x.writeWinsize({ sec: 0, nsec: -5 }, 24, 80)],
    ['fractional seconds', (x) => x.writeIo(4, { sec: 0.5, nsec: 0 }, Buffer.from('a'))],
    ['seconds past 2^53', (x) => x.writeIo(4, { sec: 2 ** 53, nsec: 0 }, Buffer.from('a'))],
    ['stream 5', (x) => x.writeIo(5 as IoStream, { sec: 0, nsec: 0 }, Buffer.from('a'))],
    ['negative rows', (x) => x.writeWinsize({ sec: 0, nsec: 0 }, -1, 80)],
    ['cols past INT_MAX', (x) => x.writeWinsize({ sec: 0, nsec: 0 }, 24, 2 ** 31)],
    ['an unknown signal', (x) => x.writeSuspend({ sec: 0, nsec: 0 }, 'FOO')],
    ['a signal with a newline', (x) => x.writeSuspend({ sec: 0, nsec: 0 }, 'TSTP\n4 0.0 9')],
  ];
  for (const [what, f] of cases) {
    it(`${what}: IOLOG_BAD_RECORD (1459)`, () => {
      expect(() => f(s)).toThrow(/^1459 /);
      expect(s.elapsed).toEqual({ sec: 0, nsec: 0 });
    });
  }

  it('the session still takes good records and its timing holds only them', async () => {
    s.writeSuspend({ sec: 0, nsec: 1 }, 'STOP');
    s.writeWinsize({ sec: 0, nsec: 2 }, 0, 0);
    expect(await s.flush()).toEqual({ sec: 0, nsec: 3 });
    expect(readFileSync(join(s.dir, 'timing'), 'latin1')).toBe('7 0.000000001 STOP\n5 0.000000002 0 0\n');
  });

  it('before any flush, a timing line reaching the file never names bytes its stream file does not hold yet (plain)', async () => {
    const t = await createIologSession(writerOptions(root), SUBMIT, sudoInfo());
    try {
      for (let i = 0; i < 6000; i++) t.writeIo(4, { sec: 0, nsec: 1 }, Buffer.from('x'));
      expect(t.buffered).toBeGreaterThan(0);
      const lines = readFileSync(join(t.dir, 'timing'), 'latin1').split('\n').slice(0, -1);
      expect(lines.length).toBeGreaterThan(1000); // the 64 KiB timing buffer went to the file
      expect(statSync(join(t.dir, 'ttyout')).size).toBeGreaterThanOrEqual(lines.length);
      await t.flush();
      expect(t.buffered).toBe(0);
      expect(statSync(join(t.dir, 'ttyout')).size).toBe(6000);
    } finally {
      await t.close();
    }
  });

  it('an Accept without submituser, submithost, runuser or command is refused', async () => {
    for (const k of ['submituser', 'submithost', 'runuser', 'command']) {
      await expect(createIologSession(writerOptions(root), SUBMIT, sudoInfo({ [k]: undefined }))).rejects.toThrow(/^1459 .*has no/);
      await expect(createIologSession(writerOptions(root), SUBMIT, sudoInfo({ [k]: 7 }))).rejects.toThrow(/^1459 /);
    }
  });
});
