#!/usr/bin/env node
// Watching live sessions (issue 24): a raw log-server client sends a session to `evio serve`
// (one process: the REST service and the log server), while clients follow it through
// GET /REST/iolog/follow (server-sent events, signed like the console signs):
//   (a) latency: from the moment the client writes an I/O record to the log server's socket to
//       the moment a follower has it (its marker decoded from a chunk event), p50 / p99 over
//       100 sends, one at a time, 0-100 ms apart;
//   (b) watcher cost: the server process's CPU seconds (/proc/PID/stat utime+stime) over a
//       window while the session streams output (20 records of ~100 bytes a second), with 0, 1
//       and 50 followers connected; rounds interleaved, medians reported;
//   (c) the floor beside it: a bare node:http server (bench/children/sse-floor.mjs) writing one
//       shared frame of the same size, at the same rate evio sent events, to 1 and 50 clients —
//       the CPU an extra client costs when a server does nothing but deliver.
// The followers run in this process; the servers are separate processes, so their figures are their own.
//
//   node bench/live.mjs [--smoke] [--window SECONDS] [--rounds N]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { loadavg, tmpdir, cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { encodeFrame, FrameReader } = await import(join(ROOT, 'dist/logsrvd/frames.js'));
const { decodeServerMessage, encodeClientMessage } = await import(join(ROOT, 'dist/logsrvd/messages.js'));
const { signedUrl } = await import(join(ROOT, 'dist/app/rest-client.js'));

const args = process.argv.slice(2);
const smoke = args.includes('--smoke');
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const SENDS = smoke ? 10 : 100;
const WINDOW_S = opt('--window', smoke ? 2 : 10);
const ROUNDS = opt('--rounds', smoke ? 1 : 3);
const WATCHERS = [0, 1, 50];
const log = (s) => process.stderr.write(`${s}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function cpuSeconds(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

const work = mkdtempSync(join(tmpdir(), 'evio-bench-live-'));
const config = join(work, 'evio.json');
writeFileSync(config, JSON.stringify({ home: join(work, 'data'), host: '127.0.0.1', port: 0, requestLog: 'off', logsrvd: { listen: ['127.0.0.1:0'], commitIntervalMs: 1000 } }));
const server = spawn(process.execPath, [join(ROOT, 'bin/evio.js'), '--config', config, 'serve'], { stdio: ['ignore', 'pipe', 'ignore'] });
let out = '';
server.stdout.on('data', (b) => (out += b.toString()));
const started = Date.now();
while (!/Log server \(sudo log_servers\): 127\.0\.0\.1:\d+/.test(out)) {
  if (Date.now() - started > 30_000 || server.exitCode !== null) throw new Error(`evio serve did not start: ${out}`);
  await sleep(50);
}
const url = /evio serving (\S+)/.exec(out)[1];
const lsPort = Number(/Log server \(sudo log_servers\): 127\.0\.0\.1:(\d+)/.exec(out)[1]);
const key = readFileSync(join(work, 'data', 'admin.key'), 'utf8').trim();
const signed = (path) => signedUrl({ url, appid: 'admin', key, method: 'GET', path });

/** A log-server client that has an accepted session open; `io(text)` writes one ttyout record. */
async function openSession(user) {
  const s = connect({ host: '127.0.0.1', port: lsPort });
  s.setNoDelay(true);
  const reader = new FrameReader();
  const send = (m) => s.write(encodeFrame(encodeClientMessage(m)));
  const info = new Map([
    ['command', '/bin/bash'], ['runargv', ['bash']], ['runuser', 'root'], ['submithost', 'web01'], ['submituser', user],
    ['submitcwd', '/root'], ['ttyname', '/dev/pts/1'], ['lines', 24], ['columns', 80],
  ]);
  await new Promise((resolve, reject) => {
    s.on('error', reject);
    s.on('connect', () => send({ type: 'hello', clientId: 'evio live bench' }));
    s.on('data', (chunk) => reader.push(chunk, (f) => {
      const m = decodeServerMessage(f);
      if (m.type === 'error') reject(new Error(m.text));
      if (m.type === 'hello') send({ type: 'accept', submitTime: { sec: Math.floor(Date.now() / 1000), nsec: 0 }, info, expectIobufs: true });
      if (m.type === 'log_id') resolve();
    }));
  });
  return {
    io: (text) => send({ type: 'io', stream: 4, delay: { sec: 0, nsec: 1000 }, data: Buffer.from(text) }),
    end: () => {
      send({ type: 'exit', runTime: { sec: 1, nsec: 0 }, exitValue: 0, dumpedCore: false, signal: '', error: '' });
      setTimeout(() => s.destroy(), 2000);
    },
  };
}

async function sessionFile(user) {
  for (let i = 0; i < 200; i++) {
    const res = await fetch(signed(`/REST/iolog/list?submituser=${user}`));
    const row = (await res.json()).result.find((r) => r.live);
    if (row) return row.logpath;
    await sleep(50);
  }
  throw new Error(`the session of ${user} is not listed live`);
}

async function bytesOf(file) {
  const res = await fetch(signed(`/REST/iolog?file=${encodeURIComponent(file)}&start=0&len=1`));
  return (await res.json()).bytes;
}

/** The bare delivery server of (c), started with the frame size and rate evio had. */
async function floorServer(frameBytes, perSecond) {
  const child = spawn(process.execPath, [join(ROOT, 'bench/children/sse-floor.mjs'), String(frameBytes), String(perSecond)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let text = '';
  child.stdout.on('data', (b) => (text += b.toString()));
  while (!/\d+\n/.test(text)) {
    if (child.exitCode !== null) throw new Error('the floor server did not start');
    await sleep(20);
  }
  return { child, url: `http://127.0.0.1:${text.trim()}/` };
}

/** A plain reader of an event stream (the floor's clients): reads and drops. */
function drain(url) {
  const ac = new AbortController();
  const ready = fetch(url, { signal: ac.signal }).then((res) => {
    const reader = res.body.getReader();
    const loop = (async () => {
      try {
        for (;;) if ((await reader.read()).done) return;
      } catch (err) {
        if (err.name !== 'AbortError') throw err;
      }
    })();
    return { loop };
  });
  return { stop: () => ac.abort(), ready };
}

/** A follower: calls `onText` with the output of each chunk event (decoded only when asked). */
function follow(file, start, onText) {
  const ac = new AbortController();
  const ready = (async () => {
    const res = await fetch(signed(`/REST/iolog/follow?file=${encodeURIComponent(file)}&start=${start}`), { signal: ac.signal });
    if (!res.ok) throw new Error(`follow: HTTP ${res.status} ${await res.text()}`);
    const dec = new TextDecoder();
    let buf = '';
    const reader = res.body.getReader();
    // Wrapped: returning the loop's promise itself would make `ready` wait for its end.
    return { loop: (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          if (!onText) continue;
          if (onText.bytes) onText.bytes(value.length);
          buf += dec.decode(value, { stream: true });
          let i;
          while ((i = buf.indexOf('\n\n')) >= 0) {
            const block = buf.slice(0, i);
            buf = buf.slice(i + 2);
            if (!block.startsWith('event: chunk')) continue;
            const c = JSON.parse(block.slice(block.indexOf('data: ') + 6));
            onText(c.log.filter((x) => x.blob).map((x) => Buffer.from(x.blob, 'base64').toString('latin1')).join(''));
          }
        }
      } catch (err) {
        if (err.name !== 'AbortError') throw err;
      }
    })() };
  })();
  return { stop: () => ac.abort(), ready };
}

function pct(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

try {
  // (a) latency
  const a = await openSession('lat');
  a.io('$ ');
  const fileA = await sessionFile('lat');
  let seen = '';
  let waiting = null;
  const fa = follow(fileA, 0, (t) => {
    seen += t;
    if (waiting && seen.includes(waiting.marker)) waiting.done(performance.now());
  });
  await fa.ready;
  const lat = [];
  for (let i = 0; i < SENDS; i++) {
    await sleep(Math.random() * 100);
    const marker = `<m${i}>`;
    const got = new Promise((done) => (waiting = { marker, done }));
    const t0 = performance.now();
    a.io(`echo ${marker}\r\n`);
    lat.push((await got) - t0);
    seen = '';
  }
  fa.stop();
  a.end();
  lat.sort((x, y) => x - y);

  // (b) CPU with 0, 1, 50 followers
  const b = await openSession('cpu');
  b.io('$ ');
  const fileB = await sessionFile('cpu');
  let n = 0;
  const line = `${'x'.repeat(90)}\r\n`;
  const streaming = setInterval(() => b.io(`${n++} ${line}`), 50);
  const cpu = Object.fromEntries(WATCHERS.map((w) => [w, []]));
  // The first follower of each row counts the events and bytes it gets (the floor's rate and size).
  const counted = { events: 0, bytes: 0 };
  const counter = Object.assign(() => counted.events++, { bytes: (n) => (counted.bytes += n) });
  const windowed = { events: 0, bytes: 0, seconds: 0 };
  for (let r = 0; r < ROUNDS; r++) {
    for (const w of WATCHERS) {
      const start = await bytesOf(fileB);
      const fs = Array.from({ length: w }, (_, i) => follow(fileB, start, i === 0 ? counter : null));
      await Promise.all(fs.map((f) => f.ready));
      await sleep(1000); // settle: connections made, caught up
      const c0 = cpuSeconds(server.pid);
      const e0 = { ...counted };
      await sleep(WINDOW_S * 1000);
      cpu[w].push(cpuSeconds(server.pid) - c0);
      if (w > 0) {
        windowed.events += counted.events - e0.events;
        windowed.bytes += counted.bytes - e0.bytes;
        windowed.seconds += WINDOW_S;
      }
      for (const f of fs) f.stop();
      await sleep(500);
    }
  }
  clearInterval(streaming);
  b.end();
  const med = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
  const m = Object.fromEntries(WATCHERS.map((w) => [w, med(cpu[w])]));

  // (c) the floor, at the rate and frame size the counting follower saw.
  const perSecond = windowed.events ? windowed.events / windowed.seconds : 4;
  const frameBytes = windowed.events ? Math.round(windowed.bytes / windowed.events) : 1024;
  const floor = await floorServer(frameBytes, perSecond);
  const floorCpu = { 1: [], 50: [] };
  try {
    for (let r = 0; r < ROUNDS; r++) {
      for (const w of [1, 50]) {
        const cs = Array.from({ length: w }, () => drain(floor.url));
        await Promise.all(cs.map((c) => c.ready));
        await sleep(1000);
        const c0 = cpuSeconds(floor.child.pid);
        await sleep(WINDOW_S * 1000);
        floorCpu[w].push(cpuSeconds(floor.child.pid) - c0);
        for (const c of cs) c.stop();
        await sleep(500);
      }
    }
  } finally {
    floor.child.kill();
  }
  const f = { 1: med(floorCpu[1]), 50: med(floorCpu[50]) };
  const deliveries = 49 * perSecond * WINDOW_S;
  const perExtra = (x) => ((x[50] - x[1]) / deliveries) * 1e6;

  const rows = [
    `| Live latency, client write -> follower has it (${SENDS} sends) | p50 ${pct(lat, 50).toFixed(0)} ms · p99 ${pct(lat, 99).toFixed(0)} ms · max ${lat[lat.length - 1].toFixed(0)} ms | goal p99 < 1000 ms |`,
    ...WATCHERS.map((w) => `| Server CPU, ${w} follower${w === 1 ? '' : 's'}, ${WINDOW_S} s of output at 20 records/s | ${m[w].toFixed(2)} s (rounds: ${cpu[w].map((x) => x.toFixed(2)).join(', ')}) | |`),
    `| 50 followers / 1 follower | ${(m[50] / m[1]).toFixed(3)}× (${(((m[50] - m[1]) / m[1]) * 100).toFixed(1)} % more) | goal < 1.10× |`,
    `| Events a follower got | ${perSecond.toFixed(1)}/s, ${frameBytes} bytes each | |`,
    `| Floor: bare node:http server, the same events to 1 / 50 clients, ${WINDOW_S} s | ${f[1].toFixed(2)} s / ${f[50].toFixed(2)} s | |`,
    `| CPU per extra follower and event: evio / floor | ${perExtra(m).toFixed(0)} µs / ${perExtra(f).toFixed(0)} µs (${(perExtra(m) / Math.max(1e-9, perExtra(f))).toFixed(2)}×) | |`,
  ];
  console.log('| Measure | Result | Goal |\n|---|---|---|');
  console.log(rows.join('\n'));
  console.log(`\n${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), load ${loadavg().map((x) => x.toFixed(2)).join(' ')} at the end; ${ROUNDS} round(s) per row, window ${WINDOW_S} s.`);
} finally {
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
  rmSync(work, { recursive: true, force: true });
}
