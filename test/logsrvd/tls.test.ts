// TLS. Debian 12's sudo 1.9.13 is built without OpenSSL: neither sudoers nor sudo_sendlog can
// speak TLS to a log server (sudo_sendlog has no -b/-c/-k). Such a fleet reaches a TLS listener
// through stunnel on each host, and that is what is tested here with the real parts: Debian's
// sudo_sendlog -> stunnel (client mode: verifies the server against the CA, presents a client
// certificate) -> evio's TLS listener, which with logsrvd.tls.ca checks client certificates
// (sudo_logsrvd's tls_checkpeer). Certificates are made here with openssl.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { connect as tcpConnect } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLES } from '../helpers/samples.js';
import { events, run, SENDLOG, startTestServer, sudoToolsAvailable, type TestServer } from './helpers.js';
import { freePort } from '../helpers/ports.js';

function stunnelAvailable(): boolean {
  const ok = spawnSync('stunnel', ['-version']).error === undefined && spawnSync('openssl', ['version']).status === 0;
  if (!ok && process.env.CI) throw new Error('stunnel4 and openssl are required in CI (apt-get install stunnel4)');
  if (!ok) console.warn('skipping the log-server TLS tests: install stunnel4 and openssl');
  return ok;
}

const enabled = sudoToolsAvailable() && stunnelAvailable();


/** stunnel in client mode in front of a TLS port; resolves once its local port accepts. */
async function startStunnel(dir: string, name: string, target: number, cert: string): Promise<{ port: number; child: ChildProcess }> {
  const port = await freePort();
  const conf = join(dir, `${name}.conf`);
  writeFileSync(
    conf,
    `foreground = yes\npid =\n[logsrvd]\nclient = yes\naccept = 127.0.0.1:${port}\nconnect = 127.0.0.1:${target}\nCAfile = ${join(dir, 'ca.pem')}\nverifyChain = yes\ncheckIP = 127.0.0.1\ncert = ${join(dir, `${cert}.pem`)}\nkey = ${join(dir, `${cert}.key`)}\n`,
  );
  const child = spawn('stunnel', [conf], { stdio: 'ignore' });
  const deadline = Date.now() + 15_000;
  for (;;) {
    const up = await new Promise<boolean>((resolve) => {
      const s = tcpConnect({ host: '127.0.0.1', port }, () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (up) return { port, child };
    if (Date.now() > deadline) throw new Error('stunnel did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
}
const SESSION = join(SAMPLES, 'logsrvd-io/00/00/01');

function makePki(dir: string): void {
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  ssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=evio test CA');
  const leaf = (name: string, ext: string) => {
    ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`);
    writeFileSync(join(dir, `${name}.ext`), ext);
    ssl('x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.pem`, '-days', '2', '-extfile', `${name}.ext`);
  };
  leaf('server', 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  leaf('client', 'extendedKeyUsage=clientAuth\n');
  // A client certificate from another CA: refused when the server checks peers.
  ssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'rogue.key', '-out', 'rogue.pem', '-days', '2', '-subj', '/CN=rogue');
  execFileSync('chmod', ['600', join(dir, 'server.key')]);
}

describe.skipIf(!enabled)('log server over TLS', () => {
  let pki: string;
  let plain: TestServer;
  let checked: TestServer;
  const tunnels: ChildProcess[] = [];
  beforeAll(async () => {
    pki = mkdtempSync(join(tmpdir(), 'evio-pki-'));
    makePki(pki);
    const tls = { cert: join(pki, 'server.pem'), key: join(pki, 'server.key'), ca: null };
    plain = await startTestServer({ tls }, ['127.0.0.1:0(tls)']);
    checked = await startTestServer({ tls: { ...tls, ca: join(pki, 'ca.pem') } }, ['127.0.0.1:0(tls)']);
  });
  afterAll(async () => {
    for (const t of tunnels) t.kill('SIGKILL');
    await plain?.close();
    await checked?.close();
    rmSync(pki, { recursive: true, force: true });
  });

  /** sudo_sendlog through a stunnel presenting `cert`. */
  const tlsSend = async (port: number, cert: string) => {
    const tunnel = await startStunnel(pki, `${cert}-${port}`, port, cert);
    tunnels.push(tunnel.child);
    return run(SENDLOG, ['-h', '127.0.0.1', '-p', String(tunnel.port), SESSION], { timeoutMs: 30_000 });
  };

  it('receives a session over TLS, the client verifying the server', async () => {
    const res = await tlsSend(plain.port, 'client');
    expect(res.stderr).toBe('');
    expect(res.stdout).toMatch(/1 I\/O log transmitted successfully/);
    expect(events(plain.settings).map((r) => r.etype)).toEqual(['K', 'F']);
  });

  it('with a CA, takes clients whose certificate chains to it and refuses the others', async () => {
    const ok = await tlsSend(checked.port, 'client');
    expect(ok.code).toBe(0);
    const rogue = await tlsSend(checked.port, 'rogue');
    expect(rogue.code).not.toBe(0);
    expect(events(checked.settings).map((r) => r.etype)).toEqual(['K', 'F']);
    expect(checked.logs.some((e) => e.msg === 'logsrvd TLS handshake failed')).toBe(true);
  });

  it('a plain-text client on the TLS port gets nowhere', async () => {
    const res = await run(SENDLOG, ['-h', '127.0.0.1', '-p', String(plain.port), SESSION], { timeoutMs: 30_000 });
    expect(res.code).not.toBe(0);
    expect(events(plain.settings).length).toBe(2);
  });
});
