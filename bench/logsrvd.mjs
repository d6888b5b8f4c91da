#!/usr/bin/env node
// The log server side by side with sudo_logsrvd (Debian's sudo 1.9.13), in one run on this
// machine, both fed by Debian's sudo_sendlog with the same recordings:
//   - throughput: `sudo_sendlog -t N` for N = 1, 8, 32 (N connections at once, each sending the
//     recording), repeated; sessions per second, MB/s of I/O received, CPU seconds per MB of the
//     server process (from /proc/PID/stat), peak RSS;
//   - commit latency: a raw protocol client sends an Accept, a few I/O buffers and the Exit, and
//     times the Exit -> final commit point round trip (the moment a sudo client may finish),
//     p50 / p99 over many sessions;
//   - RSS per idle connection: 500 connections that said hello and then wait.
// Durability is not equal by default and the report says so: evio fsyncs each session's files
// before a commit point; sudo_logsrvd flushes its stdio buffers (no fsync). The evio rows are
// measured with fsync on (its default and only mode).
//
//   node bench/logsrvd.mjs [--smoke] [--runs N] [--out FILE]
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { encodeFrame, FrameReader } = await import(join(ROOT, 'dist/logsrvd/frames.js'));
const { decodeServerMessage, encodeClientMessage } = await import(join(ROOT, 'dist/logsrvd/messages.js'));

const args = process.argv.slice(2);
const smoke = args.includes('--smoke');
const runsArg = args.indexOf('--runs');
const RUNS = runsArg >= 0 ? Number(args[runsArg + 1]) : smoke ? 1 : 5;
const outArg = args.indexOf('--out');
const OUT = outArg >= 0 ? args[outArg + 1] : null;
const SENDLOG = '/usr/sbin/sudo_sendlog';
const LOGSRVD = '/usr/sbin/sudo_logsrvd';

for (const tool of [SENDLOG, LOGSRVD]) {
  if (spawnSync(tool, ['-V']).status !== 0) {
    console.log(`logsrvd bench: ${tool} is not installed (apt-get install sudo); nothing measured`);
    process.exit(0);
  }
}

const work = mkdtempSync(join(tmpdir(), 'evio-bench-logsrvd-'));
const log = (s) => process.stderr.write(`${s}\n`);

/** A recording like an interactive session: many small tty records, a window change, a run time. */
function makeRecording(dir, records, bytes) {
  mkdirSync(dir, { recursive: true });
  const out = [];
  const timing = [];
  let x = 7;
  for (let i = 0; i < records; i++) {
    const n = 1 + ((x = (x * 1103515245 + 12345) & 0x7fffffff) % bytes);
    const b = Buffer.alloc(n);
    for (let j = 0; j < n; j++) b[j] = j % 80 === 79 ? 0x0a : 0x20 + ((x = (x * 1103515245 + 12345) & 0x7fffffff) % 95);
    out.push(b);
    timing.push(i % 2 ? `4 0.000200000 ${n}` : `3 0.100000000 ${n}`);
    if (i === records >> 1) timing.push('5 0.500000000 40 120');
  }
  // ttyin and ttyout alternate, as typing and echo do.
  const ttyin = out.filter((_, i) => i % 2 === 0);
  const ttyout = out.filter((_, i) => i % 2 === 1);
  writeFileSync(join(dir, 'ttyin'), Buffer.concat(ttyin));
  writeFileSync(join(dir, 'ttyout'), Buffer.concat(ttyout));
  writeFileSync(join(dir, 'timing'), `${timing.join('\n')}\n`);
  writeFileSync(join(dir, 'log'), '1795315409:alice:root::/dev/pts/0:24:80\n/home/alice\n/bin/bash\n');
  writeFileSync(
    join(dir, 'log.json'),
    JSON.stringify({ timestamp: { seconds: 1795315409, nanoseconds: 1 }, submituser: 'alice', command: '/bin/bash', runuser: 'root', ttyname: '/dev/pts/0', submithost: 'web01', submitcwd: '/home/alice', columns: 80, lines: 24, runargv: ['bash'], run_time: { seconds: 100, nanoseconds: 0 }, exit_value: 0 }, null, 4) + '\n',
  );
  return out.reduce((a, b) => a + b.length, 0);
}

function procStat(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const hz = 100;
  return (Number(f[11]) + Number(f[12])) / hz;
}

function rssKiB(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : 0;
}

function hwmKiB(pid) {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : 0;
}

function waitPort(port) {
  return new Promise((resolve, reject) => {
    const deadline = Date.now() + 15_000;
    const tryOnce = () => {
      const s = connect({ host: '127.0.0.1', port }, () => {
        s.destroy();
        resolve();
      });
      s.on('error', () => {
        if (Date.now() > deadline) reject(new Error(`port ${port} never opened`));
        else setTimeout(tryOnce, 50);
      });
    };
    tryOnce();
  });
}

async function startEvio(port) {
  const home = join(work, `evio-${port}`);
  const child = spawn(process.execPath, [join(ROOT, 'bin/evio.js'), 'logsrvd', '--listen', `127.0.0.1:${port}`], { env: { ...process.env, EVIO_HOME: home }, stdio: ['ignore', 'ignore', 'ignore'] });
  await waitPort(port);
  return { name: 'evio logsrvd', child, pid: child.pid, root: join(home, 'iolog') };
}

async function startSudo(port) {
  const dir = join(work, `sudo-${port}`);
  mkdirSync(join(dir, 'io'), { recursive: true });
  const conf = join(dir, 'conf');
  writeFileSync(conf, `[server]\nlisten_address = 127.0.0.1:${port}\npid_file = ${dir}/pid\n[iolog]\niolog_dir = ${dir}/io\niolog_compress = false\n[eventlog]\nlog_type = logfile\nlog_format = json\nlog_exit = true\n[logfile]\npath = ${dir}/events.json\n`);
  const child = spawn(LOGSRVD, ['-f', conf, '-n'], { stdio: ['ignore', 'ignore', 'ignore'] });
  await waitPort(port);
  return { name: 'sudo_logsrvd 1.9.13', child, pid: child.pid, root: join(dir, 'io') };
}

function sendlog(port, threads, path) {
  return new Promise((resolve, reject) => {
    const c = spawn(SENDLOG, ['-h', '127.0.0.1', '-p', String(port), '-t', String(threads), path], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    c.stderr.on('data', (b) => (err += b));
    c.stdout.resume();
    c.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`sudo_sendlog -t ${threads} exited ${code}: ${err}`))));
  });
}

async function throughput(server, port, threads, recording, bytes) {
  const cpu0 = procStat(server.pid);
  const t0 = process.hrtime.bigint();
  for (let r = 0; r < RUNS; r++) await sendlog(port, threads, recording);
  const sec = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = procStat(server.pid) - cpu0;
  const sessions = threads * RUNS;
  const mb = (sessions * bytes) / 1e6;
  return { sessionsPerSec: sessions / sec, mbPerSec: mb / sec, cpuPerMb: cpu / mb, sec };
}

/** A raw client: hello, accept with I/O, `records` buffers, exit; resolves to the Exit -> final commit point time, ms. */
function oneSession(port, records) {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port });
    const reader = new FrameReader();
    let state = 'hello';
    let exitAt = 0n;
    let sum = 0;
    const send = (m) => s.write(encodeFrame(encodeClientMessage(m)));
    const info = new Map([
      ['command', '/bin/bash'],
      ['runargv', ['bash']],
      ['runuser', 'root'],
      ['submithost', 'web01'],
      ['submituser', 'alice'],
      ['submitcwd', '/home/alice'],
      ['ttyname', '/dev/pts/1'],
      ['lines', 24],
      ['columns', 80],
    ]);
    s.setNoDelay(true);
    s.on('connect', () => send({ type: 'hello', clientId: 'evio bench' }));
    s.on('error', reject);
    s.on('data', (chunk) =>
      reader.push(chunk, (f) => {
        const m = decodeServerMessage(f);
        if (m.type === 'error') reject(new Error(m.text));
        if (state === 'hello' && m.type === 'hello') {
          state = 'accept';
          send({ type: 'accept', submitTime: { sec: 1795315409, nsec: 0 }, info, expectIobufs: true });
        } else if (state === 'accept' && m.type === 'log_id') {
          state = 'exit';
          for (let i = 0; i < records; i++) {
            send({ type: 'io', stream: 4, delay: { sec: 0, nsec: 1000 }, data: Buffer.from(`line ${i} of output\r\n`) });
            sum += 1000;
          }
          exitAt = process.hrtime.bigint();
          send({ type: 'exit', runTime: { sec: 1, nsec: 0 }, exitValue: 0, dumpedCore: false, signal: '', error: '' });
        } else if (state === 'exit' && m.type === 'commit_point' && m.point.sec * 1e9 + m.point.nsec === sum) {
          const ms = Number(process.hrtime.bigint() - exitAt) / 1e6;
          s.destroy();
          resolve(ms);
        }
      }),
    );
  });
}

async function commitLatency(port, n) {
  const times = [];
  // Eight sessions at a time, as a fleet's hosts finish commands concurrently.
  for (let i = 0; i < n; i += 8) times.push(...(await Promise.all(Array.from({ length: Math.min(8, n - i) }, () => oneSession(port, 20)))));
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(times.length * 0.5)], p99: times[Math.min(times.length - 1, Math.floor(times.length * 0.99))] };
}

async function idleRss(server, port, n) {
  const before = rssKiB(server.pid);
  const sockets = [];
  for (let i = 0; i < n; i++) {
    const s = connect({ host: '127.0.0.1', port });
    s.on('error', () => {});
    s.on('connect', () => s.write(encodeFrame(encodeClientMessage({ type: 'hello', clientId: 'idle' }))));
    sockets.push(s);
  }
  await new Promise((r) => setTimeout(r, 1500));
  const after = rssKiB(server.pid);
  for (const s of sockets) s.destroy();
  return ((after - before) * 1024) / n;
}

const rec = join(work, 'recording');
const recBytes = makeRecording(rec, smoke ? 200 : 4000, 400);
const sample = join(ROOT, '../shared/samples/logsrvd-io/00/00/01');
log(`recording: ${(recBytes / 1e6).toFixed(2)} MB of I/O in ${smoke ? 200 : 4000} records (+ a window change), runs ${RUNS}`);

const rows = [];
let port = 31000 + Math.floor(Math.random() * 2000);
for (const start of [startEvio, startSudo]) {
  const p = port++;
  const server = await start(p);
  try {
    const row = { name: server.name, t: {} };
    // Unmeasured warm-up (JIT, first files and directories), as every row of the harness has.
    await sendlog(p, 4, rec);
    for (const threads of smoke ? [1, 8] : [1, 8, 32]) {
      row.t[threads] = await throughput(server, p, threads, rec, recBytes);
      log(`${server.name} -t ${threads}: ${row.t[threads].sessionsPerSec.toFixed(1)} sessions/s, ${row.t[threads].mbPerSec.toFixed(1)} MB/s, ${row.t[threads].cpuPerMb.toFixed(3)} CPU s/MB`);
    }
    row.commit = await commitLatency(p, smoke ? 16 : 400);
    log(`${server.name} commit latency p50 ${row.commit.p50.toFixed(2)} ms p99 ${row.commit.p99.toFixed(2)} ms`);
    row.idle = await idleRss(server, p, smoke ? 50 : 500);
    log(`${server.name} RSS per idle connection ${(row.idle / 1024).toFixed(1)} KiB`);
    row.hwm = hwmKiB(server.pid);
    rows.push(row);
  } finally {
    server.child.kill('SIGTERM');
  }
}
void sample;

const threadsList = smoke ? [1, 8] : [1, 8, 32];
const lines = [
  `| server | ${threadsList.map((t) => `-t ${t}: sessions/s · MB/s · CPU s/MB`).join(' | ')} | Exit→commit p50 / p99 | RSS per idle connection | peak RSS |`,
  `|---|${threadsList.map(() => '---:').join('|')}|---:|---:|---:|`,
  ...rows.map(
    (r) =>
      `| ${r.name} | ${threadsList.map((t) => `${r.t[t].sessionsPerSec.toFixed(1)} · ${r.t[t].mbPerSec.toFixed(1)} · ${r.t[t].cpuPerMb.toFixed(3)}`).join(' | ')} | ${r.commit.p50.toFixed(2)} / ${r.commit.p99.toFixed(2)} ms | ${(r.idle / 1024).toFixed(1)} KiB | ${(r.hwm / 1024).toFixed(0)} MiB |`,
  ),
];
const evio = rows[0];
const sudo = rows[1];
const ratios = threadsList.map((t) => `-t ${t}: ${(evio.t[t].sessionsPerSec / sudo.t[t].sessionsPerSec).toFixed(2)}×`).join(', ');
const report = `${lines.join('\n')}\n\nevio / sudo_logsrvd sessions per second: ${ratios}. Recording ${(recBytes / 1e6).toFixed(2)} MB, ${RUNS} run(s) per row, load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}.\n`;
process.stdout.write(report);
if (OUT) writeFileSync(OUT, report);
rmSync(work, { recursive: true, force: true });
