#!/usr/bin/env node
// A stand-in event generator for the flat-file benchmark and the kill test (the project's
// `evio generate events` replaces it): deterministic, realistic enough for byte-level work —
// 100 users (~1 % of the events each), accepts/keystrokes finished 1-300 records later,
// ~5 % rejects, ~0.5 % sessions that never finish.
// usage: node gen-events.mjs COUNT SEED OUT
import { createWriteStream } from 'node:fs';

const count = Number(process.argv[2] ?? 1_000_000);
let seed = Number(process.argv[3] ?? 1) >>> 0 || 1;
const out = process.argv[4] ?? '/dev/stdout';

function rnd() {
  // xorshift32
  seed ^= seed << 13; seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5; seed >>>= 0;
  return seed / 0x100000000;
}
const pick = (a) => a[Math.floor(rnd() * a.length)];
const users = Array.from({ length: 100 }, (_, i) => `user${String(i).padStart(2, '0')}`);
const hosts = Array.from({ length: 40 }, (_, i) => `host${String(i).padStart(2, '0')}.corp.example.com`);
const cmds = [
  ['/usr/bin/systemctl', 'restart', 'nginx'], ['/bin/ls', '-la', '/root'], ['/usr/bin/vim', '/etc/hosts'],
  ['/usr/bin/apt-get', 'install', '-y', 'curl'], ['/bin/cat', '/var/log/syslog'], ['/usr/bin/journalctl', '-u', 'sshd'],
  ['/bin/bash'], ['/usr/bin/docker', 'ps', '-a'], ['/usr/sbin/reboot'], ['/usr/bin/tail', '-f', '/var/log/auth.log'],
];
const hex = (n) => { let s = ''; for (let i = 0; i < n; i++) s += '0123456789abcdef'[Math.floor(rnd() * 16)]; return s; };

const ws = createWriteStream(out, { highWaterMark: 1 << 20 });
let recnum = 0;
let t = 1_700_000_000;
const due = new Map(); // recnum at which to write the finish -> accept
const parts = [];
function write(obj) {
  parts.push(JSON.stringify(obj) + '\n');
  if (parts.length >= 4096) flush();
}
let pendingDrain = null;
function flush() {
  const ok = ws.write(parts.join(''));
  parts.length = 0;
  return ok;
}
async function main() {
  while (recnum < count) {
    recnum++;
    t += rnd() * 2;
    const fin = due.get(recnum);
    if (fin) {
      due.delete(recnum);
      const code = rnd() < 0.9 ? 0 : 1 + Math.floor(rnd() * 3);
      write({ recnum, uniqueid: fin.uniqueid, etype: 'F', time: Math.round(t * 1000) / 1000, submituser: fin.submituser, submithost: fin.submithost, runuser: fin.runuser, runhost: fin.runhost, runcommand: fin.runcommand, runargv: fin.runargv, exitstatus: `Command finished with exit status ${code}`, exitcode: code });
    } else {
      const user = pick(users);
      const host = pick(hosts);
      const argv = pick(cmds);
      const r = rnd();
      const etype = r < 0.05 ? 'R' : r < 0.25 ? 'K' : 'A';
      const ev = { recnum, uniqueid: `${hex(8)}-${hex(4)}-${hex(4)}-${hex(12)}`, etype, time: Math.round(t * 1000) / 1000, submituser: user, submithost: host, runuser: rnd() < 0.8 ? 'root' : 'www-data', runhost: host, runcommand: argv[0], runargv: argv.map((a, i) => (i === 0 ? a.split('/').pop() : a)), cwd: `/home/${user}`, ttyname: `/dev/pts/${Math.floor(rnd() * 20)}`, masterhost: 'pm1.corp.example.com' };
      if (etype === 'R') { ev.reason = 'command not allowed'; ev.exitstatus = 'Rejected: command not allowed'; }
      if (etype === 'K') ev.iolog = `/var/log/pmi/${user}/${host}/${recnum}.io`;
      write(ev);
      if (etype !== 'R' && rnd() >= 0.005) {
        let at = recnum + 1 + Math.floor(rnd() * 300);
        while (due.has(at)) at++;
        due.set(at, ev);
      }
    }
    if (parts.length === 0 && ws.writableNeedDrain) await new Promise((r) => ws.once('drain', r));
  }
  flush();
  ws.end();
}
main();
