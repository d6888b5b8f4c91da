// The service side of a benchmark: a keystore with one app, `evio serve` started on a free
// loopback port in its own process, signed GETs over keep-alive, and the server process's CPU
// time and peak RSS from /proc. Used by workload 8, bench/pg-page.mjs and bench/flatsweep.mjs.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './common.js';
import { evioArgv } from './evio.js';

/**
 * Writes a keystore holding one app (`appid`, HMAC-SHA256, rate limit off) to `path` (mode 600).
 * @param {string} path
 * @param {string} [appid]
 * @returns {{ keystore: string, appid: string, key: string }}
 */
export function writeKeystore(path, appid = 'bench') {
  const key = randomBytes(32).toString('hex');
  writeFileSync(path, JSON.stringify({ apps: { [appid]: { key, scheme: 'hmac-sha256', rateLimit: 0, created: new Date().toISOString() } } }), { mode: 0o600 });
  chmodSync(path, 0o600);
  return { keystore: path, appid, key };
}

/**
 * Starts `evio --config CONFIG serve` on a free loopback port; resolves when it prints its URL.
 * @param {string} config
 * @param {{ timeoutMs?: number }} [opts]
 * @returns {Promise<{ child: import('node:child_process').ChildProcess, url: string }>}
 */
export function startServe(config, opts = {}) {
  const argv = evioArgv(['--config', config, 'serve', '--host', '127.0.0.1', '--port', '0']);
  const child = spawn(argv[0], argv.slice(1), { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const timeoutMs = opts.timeoutMs ?? 20_000;
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`evio serve did not start in ${timeoutMs / 1000} s: ${out} ${err}`));
    }, timeoutMs);
    child.stdout.on('data', (b) => {
      out += b;
      const m = /evio serving (https?:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1] });
      }
    });
    child.stderr.on('data', (b) => {
      if (err.length < 65536) err += b;
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`evio serve exited ${code}: ${err.slice(0, 2000)}`));
    });
  });
}

/** Stops a server started by startServe and waits for it to exit. @param {import('node:child_process').ChildProcess} child */
export async function stopServe(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/**
 * A signer of GET targets for one app: each call signs with a fresh nonce (no two signatures
 * repeat). `signRequest` is dist/signing.js's.
 * @param {{ appid: string, key: string }} app
 * @returns {Promise<(target: string) => string>}
 */
export async function signer(app) {
  const { signRequest } = await import(join(ROOT, 'dist/signing.js'));
  let nonce = 0;
  return (target) => signRequest({ method: 'GET', target, appid: app.appid, key: app.key, nonce: `${process.pid}-${++nonce}` }).target;
}

/** CPU time a process has used so far, ms (utime + stime from /proc/PID/stat). @param {number} pid */
export function procCpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start at the last ')'.
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // USER_HZ is 100 on Linux
}

/** Peak RSS of a running process, kB (VmHWM from /proc), null when unknown. @param {number} pid */
export function procPeakRssKB(pid) {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}
