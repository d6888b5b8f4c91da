// Debian's sudo itself sends a real session to evio's log server: a sudoers drop-in scoped to a
// run-as user of the test's own (`Defaults>USER log_servers=...`), so that no other sudo call on
// the machine is sent anywhere. sudoreplay plays what evio stored, evio's API lists it.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sendSigned } from '../../src/app/rest-client.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { iologList } from '../../src/app/iolog.js';
import { events, replay, run, settled, startTestServer, sudoToolsAvailable, type TestServer } from './helpers.js';

const RUNAS = 'evio-lsd';
const DROPIN = `/etc/sudoers.d/zz-evio-logsrvd-test-${process.pid}`;

function canRunSudo(): boolean {
  if (!sudoToolsAvailable()) return false;
  const root = process.getuid?.() === 0;
  const script = spawnSync('script', ['-V']).status === 0;
  if (!root || !script) {
    if (process.env.CI) throw new Error('the real-sudo log-server test needs root and script(1) in CI');
    console.warn('skipping the real-sudo log-server test: it needs root (a sudoers drop-in) and script(1)');
    return false;
  }
  return true;
}

const enabled = canRunSudo();

describe.skipIf(!enabled)('Debian sudo -> evio logsrvd', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ commitIntervalMs: 200 });
    if (spawnSync('id', [RUNAS]).status !== 0) execFileSync('useradd', ['-M', '-s', '/bin/sh', RUNAS]);
    writeFileSync(DROPIN, `Defaults>${RUNAS} log_servers=127.0.0.1:${t.port}, log_input, log_output, log_exit_status\n`, { mode: 0o440 });
    chmodSync(DROPIN, 0o440);
    expect(spawnSync('visudo', ['-c', '-f', DROPIN]).status).toBe(0);
  });
  afterAll(async () => {
    rmSync(DROPIN, { force: true });
    await t?.close();
  });

  it('receives the session and its events; sudoreplay plays it, the session list shows it', async () => {
    const res = await run('script', ['-qec', `sudo -u ${RUNAS} sh -c 'echo hello-from-real-sudo; id -un; exit 3'`, '/dev/null']);
    expect(res.stdout).toContain('hello-from-real-sudo');
    expect(res.code).toBe(3);
    await settled(t);
    const recs = events(t.settings);
    const k = recs.find((r) => r.etype === 'K' && r.runuser === RUNAS);
    expect(k).toBeDefined();
    expect(k!.submituser).toBe('root');
    expect(k!.runcommand).toBe('/usr/bin/sh');
    const f = recs.find((r) => r.etype === 'F' && r.uniqueid === k!.uniqueid);
    expect(f?.exitstatus).toBe('Command finished with exit status 3');
    const dir = k!.iolog as string;
    expect(existsSync(`${dir}/timing`)).toBe(true);
    const played = await replay(t.root, relative(t.root, dir));
    expect(played.code).toBe(0);
    expect(played.stdout).toContain('hello-from-real-sudo');
    expect(played.stdout).toContain(RUNAS);
    const listed = await run('sudoreplay', ['-d', t.root, '-l', 'user', 'root']);
    expect(listed.stdout).toMatch(new RegExp(`USER=${RUNAS} ; TSID=\\S+ ; COMMAND=/usr/bin/sh -c`));
    // The session list the console shows.
    const list = await iologList(t.engine, {});
    expect(JSON.stringify(list)).toContain(relative(t.root, dir));
  });

  it('records a rejected command as a reject event', async () => {
    // sudo -l -U asks nothing of the log server; a command the policy refuses is rejected.
    writeFileSync(`${DROPIN}-deny`, `root ALL=(${RUNAS}) !/usr/bin/false\n`, { mode: 0o440 });
    try {
      const res = await run('script', ['-qec', `sudo -u ${RUNAS} /usr/bin/false`, '/dev/null']);
      expect(res.code).not.toBe(0);
    } finally {
      rmSync(`${DROPIN}-deny`, { force: true });
    }
    await settled(t);
    const r = events(t.settings).find((x) => x.etype === 'R' && x.runuser === RUNAS);
    expect(r).toBeDefined();
    expect(String(r!.exitstatus)).toMatch(/^Request rejected: /);
  });
});

/** `evio serve` as a service runs it: one process, the REST service and the log server. */
describe.skipIf(!enabled)('Debian sudo -> evio serve (log server started by the settings) -> REST session list', () => {
  const RUNAS2 = 'evio-lsd2';
  const DROPIN2 = `${DROPIN}-serve`;
  const home = mkdtempSync(join(tmpdir(), 'evio-serve-lsd-'));
  let child: ChildProcess | null = null;
  afterAll(() => {
    rmSync(DROPIN2, { force: true });
    child?.kill('SIGTERM');
    rmSync(home, { recursive: true, force: true });
  });

  it('lists the session sudo sent over REST, signed as the console signs', async () => {
    const config = join(home, 'evio.json');
    writeFileSync(config, JSON.stringify({ home, port: 0, requestLog: 'off', logsrvd: { listen: ['127.0.0.1:0'], commitIntervalMs: 200 } }));
    const bin = fileURLToPath(new URL('../../bin/evio.js', import.meta.url));
    child = spawn(process.execPath, [bin, '--config', config, 'serve'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stderr!.resume();
    let out = '';
    const lines = await new Promise<{ url: string; port: number }>((resolve, reject) => {
      child!.stdout!.on('data', (b: Buffer) => {
        out += b.toString();
        const url = /evio serving (\S+)/.exec(out)?.[1];
        const port = /Log server \(sudo log_servers\): 127\.0\.0\.1:(\d+)/.exec(out)?.[1];
        if (url && port) resolve({ url, port: Number(port) });
      });
      child!.once('exit', (code) => reject(new Error(`evio serve exited ${code}: ${out}`)));
    });
    if (spawnSync('id', [RUNAS2]).status !== 0) execFileSync('useradd', ['-M', '-s', '/bin/sh', RUNAS2]);
    writeFileSync(DROPIN2, `Defaults>${RUNAS2} log_servers=127.0.0.1:${lines.port}, log_input, log_output\n`, { mode: 0o440 });
    const res = await run('script', ['-qec', `sudo -u ${RUNAS2} sh -c 'echo served-by-evio-serve'`, '/dev/null']);
    expect(res.stdout).toContain('served-by-evio-serve');
    expect(res.code).toBe(0);
    const key = readFileSync(join(home, 'admin.key'), 'utf8').trim();
    const answer = await sendSigned({ url: lines.url, appid: 'admin', key, method: 'GET', path: `/REST/iolog/list?runuser=${RUNAS2}` });
    let body = '';
    for await (const chunk of answer) body += chunk;
    expect(answer.statusCode).toBe(200);
    const list = JSON.parse(body) as { status: number; [k: string]: unknown };
    expect(list.status).toBe(0);
    expect(body).toContain(RUNAS2);
    expect(body).toContain('/usr/bin/sh');
    // The log server's figures in /metrics (loopback may read them).
    const metrics = await (await fetch(`${lines.url}/metrics`)).text();
    expect(metrics).toMatch(/^evio_logsrvd_sessions_total 1$/m);
    expect(metrics).toMatch(/^evio_logsrvd_events_total [2-9]$/m);
    expect(metrics).toMatch(/^evio_logsrvd_sessions_open 0$/m);
  });
});
