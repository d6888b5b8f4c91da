// Deterministic synthetic sudo I/O log sessions for tests and benchmarks: seq-named session
// directories (00/00/01 ...) with log, log.json, timing and the five stream files, half of
// them gzip-compressed (as compress_io writes), all marked complete (timing without write
// bits). Scenarios: an interactive shell with typed commands and coloured listings, a
// full-screen program redrawing with cursor moves on the alternate screen, window changes,
// long outputs, and a tty-less pipe (stdin/stdout/stderr). The same seed gives the same bytes.
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { prng } from '../prng.js';


const USERS = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank'];
const HOSTS = ['web01', 'web02', 'db01', 'build7', 'gw'];
const RUNUSERS = ['root', 'root', 'root', 'postgres', 'www-data'];
const FILES = ['config.yml', 'deploy.sh', 'README', 'data.csv', 'notes.txt', 'backup.tar.gz', 'id_rsa.pub', 'server.log'];
const STREAM_INDEX = { stdin: 0, stdout: 1, stderr: 2, ttyin: 3, ttyout: 4 } as const;
type Stream = keyof typeof STREAM_INDEX;

interface Rec {
  type: number;
  delayNs: number;
  stream?: Stream;
  bytes?: Buffer;
  rows?: number;
  cols?: number;
}

class Recorder {
  recs: Rec[] = [];
  constructor(private readonly rnd: () => number) {}
  delay(maxMs: number): number {
    return Math.floor(this.rnd() * maxMs * 1e6) + 1000;
  }
  out(text: string, maxMs = 30): void {
    this.recs.push({ type: 4, delayNs: this.delay(maxMs), stream: 'ttyout', bytes: Buffer.from(text, 'utf8') });
  }
  io(stream: Stream, text: string, maxMs = 30): void {
    this.recs.push({ type: STREAM_INDEX[stream], delayNs: this.delay(maxMs), stream, bytes: Buffer.from(text, 'utf8') });
  }
  /** Keystrokes one by one, each echoed by the tty. */
  type(text: string): void {
    for (const ch of text) {
      this.io('ttyin', ch, 250);
      this.out(ch, 2);
    }
    this.io('ttyin', '\r', 200);
    this.out('\r\n', 2);
  }
  winch(rows: number, cols: number): void {
    this.recs.push({ type: 5, delayNs: this.delay(900), rows, cols });
  }
}

function pick<T>(rnd: () => number, xs: readonly T[]): T {
  return xs[Math.floor(rnd() * xs.length)]!;
}

function colouredListing(rnd: () => number): string {
  const n = 3 + Math.floor(rnd() * 12);
  let s = `total ${n * 4}\r\n`;
  for (let i = 0; i < n; i++) {
    const dir = rnd() < 0.3;
    const name = dir ? `dir${i}` : pick(rnd, FILES).replace('.', `${i}.`);
    const size = Math.floor(rnd() * 100000);
    const colour = dir ? '\x1b[01;34m' : name.endsWith('.sh') ? '\x1b[01;32m' : '';
    s += `${dir ? 'd' : '-'}rw-r--r-- 1 root root ${String(size).padStart(6)} Jan  1 12:00 ${colour}${name}${colour ? '\x1b[0m' : ''}\r\n`;
  }
  return s;
}

function fullScreen(r: Recorder, rnd: () => number, rows: number, cols: number): void {
  r.out('\x1b[?1049h\x1b[H\x1b[2J');
  const frames = 3 + Math.floor(rnd() * 6);
  for (let f = 0; f < frames; f++) {
    let s = `\x1b[H\x1b[7m top - 12:00:${String(f).padStart(2, '0')} up 3 days, load average: ${(rnd() * 4).toFixed(2)}\x1b[K\x1b[0m`;
    for (let row = 3; row <= Math.min(rows, 12); row++) {
      s += `\x1b[${row};1H${String(1000 + row * 7).padStart(6)} root  ${(rnd() * 100).toFixed(1).padStart(5)} ${pick(rnd, ['nginx', 'postgres', 'sshd', 'cron', 'java'])}\x1b[K`;
    }
    s += `\x1b[${rows};${Math.min(cols, 40)}H`;
    r.out(s, 900);
  }
  r.out('\x1b[?1049l', 400);
}

export interface GenerateOptions {
  count: number;
  seed: number;
  out: string;
  /** Called every 100 sessions. */
  onProgress?: (done: number) => void;
}

function seqPath(n: number): string {
  const id = n.toString(36).toUpperCase().padStart(6, '0');
  return `${id.slice(0, 2)}/${id.slice(2, 4)}/${id.slice(4, 6)}`;
}

export function generateSessions(opts: GenerateOptions): { sessions: number; bytes: number } {
  if (!Number.isInteger(opts.count) || opts.count < 0 || opts.count >= 36 ** 6) throw new RangeError('count must be 0 .. 36^6-1');
  let total = 0;
  const base = 1767225600; // 2026-01-01T00:00:00Z
  let clock = base;
  for (let i = 1; i <= opts.count; i++) {
    const rnd = prng((opts.seed * 1_000_003 + i) >>> 0);
    clock += 30 + Math.floor(rnd() * 3600);
    const user = pick(rnd, USERS);
    const host = pick(rnd, HOSTS);
    const runuser = pick(rnd, RUNUSERS);
    let rows = 24;
    let cols = 80;
    const r = new Recorder(rnd);
    const scenario = rnd();
    let tty = true;
    let argv: string[];
    const prompt = () => `\x1b[01;32m${runuser}@${host}\x1b[00m:\x1b[01;34m~\x1b[00m# `;
    if (scenario < 0.12) {
      tty = false;
      argv = ['sh', '-c', 'cat; echo done >&2'];
      const input = `line ${Math.floor(rnd() * 1000)} from ${user}\n`;
      r.io('stdin', input);
      r.io('stdout', input);
      r.io('stderr', 'done\n');
    } else {
      argv = ['bash'];
      r.out(prompt());
      const steps = 1 + Math.floor(rnd() * 4);
      for (let s = 0; s < steps; s++) {
        const what = rnd();
        if (what < 0.45) {
          r.type('ls --color=auto -la');
          r.out(colouredListing(rnd));
        } else if (what < 0.65) {
          r.type('top');
          fullScreen(r, rnd, rows, cols);
        } else if (what < 0.8) {
          rows = 20 + Math.floor(rnd() * 40);
          cols = 60 + Math.floor(rnd() * 140);
          r.winch(rows, cols);
          r.type('stty size');
          r.out(`${rows} ${cols}\r\n`);
        } else if (what < 0.9) {
          const n = 200 + Math.floor(rnd() * 2000);
          r.type(`cat /var/log/${pick(rnd, FILES)}`);
          let chunk = '';
          for (let k = 0; k < n; k++) {
            chunk += `2026-01-01T12:${String(k % 60).padStart(2, '0')}:00Z ${pick(rnd, ['INFO', 'WARN', 'ERROR'])} request ${k} served in ${Math.floor(rnd() * 900)} ms\r\n`;
            if (chunk.length > 4000) {
              r.out(chunk, 3);
              chunk = '';
            }
          }
          if (chunk) r.out(chunk, 3);
        } else {
          r.type(`echo secret-${Math.floor(rnd() * 100000)}`);
          r.out(`secret-${Math.floor(rnd() * 100000)}\r\n`);
        }
        r.out(prompt(), 500);
      }
      r.type('exit');
      r.out('exit\r\n');
    }
    const dir = join(opts.out, seqPath(i));
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const streams: Record<Stream, Buffer[]> = { stdin: [], stdout: [], stderr: [], ttyin: [], ttyout: [] };
    let timing = '';
    for (const rec of r.recs) {
      const d = `${Math.floor(rec.delayNs / 1e9)}.${String(rec.delayNs % 1e9).padStart(9, '0')}`;
      if (rec.type === 5) timing += `5 ${d} ${rec.rows} ${rec.cols}\n`;
      else {
        timing += `${rec.type} ${d} ${rec.bytes!.length}\n`;
        streams[rec.stream!].push(rec.bytes!);
        total += rec.bytes!.length;
      }
    }
    const command = argv[0] === 'bash' ? '/usr/bin/bash' : '/usr/bin/sh';
    const info = {
      timestamp: { seconds: clock, nanoseconds: Math.floor(rnd() * 1e9) },
      submituser: user,
      command,
      runuser,
      ...(tty ? { ttyname: `/dev/pts/${Math.floor(rnd() * 8)}` } : {}),
      submithost: host,
      submitcwd: `/home/${user}`,
      runuid: runuser === 'root' ? 0 : 1000 + RUNUSERS.indexOf(runuser),
      columns: 80,
      lines: 24,
      runargv: argv,
      runenv: ['LANG=C.UTF-8', 'TERM=xterm-256color', 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', `SUDO_USER=${user}`],
    };
    const gz = i % 2 === 1;
    const enc = (b: Buffer) => (gz ? gzipSync(b, { level: 1 }) : b);
    writeFileSync(join(dir, 'log'), `${clock}:${user}:${runuser}::${tty ? info.ttyname : 'unknown'}:24:80\n/home/${user}\n${[command, ...argv.slice(1)].join(' ')}\n`, { mode: 0o600 });
    writeFileSync(join(dir, 'log.json'), `${JSON.stringify(info, null, 4)}\n`, { mode: 0o600 });
    for (const s of Object.keys(streams) as Stream[]) writeFileSync(join(dir, s), enc(Buffer.concat(streams[s])), { mode: 0o600 });
    writeFileSync(join(dir, 'timing'), enc(Buffer.from(timing, 'latin1')), { mode: 0o600 });
    chmodSync(join(dir, 'timing'), 0o400); // finished: no write bits, as sudo leaves it
    if (opts.onProgress && i % 100 === 0) opts.onProgress(i);
  }
  mkdirSync(opts.out, { recursive: true });
  writeFileSync(join(opts.out, 'seq'), `${opts.count.toString(36).toUpperCase().padStart(6, '0')}\n`);
  return { sessions: opts.count, bytes: total };
}
