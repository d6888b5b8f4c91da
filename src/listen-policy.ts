// Transport policy of both listeners (the REST service and the log server): TLS when a certificate
// and key are configured, and plain text only on a loopback address unless the operator allows it.
import { lookup } from 'node:dns/promises';
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { createSecureContext } from 'node:tls';
import { evioError } from './errors.js';
import type { TlsSettings } from './settings.js';

export function isLoopbackAddress(addr: string): boolean {
  const a = addr.replace(/^\[|\]$/g, '').toLowerCase();
  if (a === '::1' || a === '0:0:0:0:0:0:0:1') return true;
  const v4 = a.startsWith('::ffff:') ? a.slice(7) : a;
  return isIP(v4) === 4 && v4.startsWith('127.');
}

/** Loopback when the host is a loopback literal, or a name that resolves only to loopback addresses. */
export async function isLoopbackHost(host: string): Promise<boolean> {
  if (isIP(host.replace(/^\[|\]$/g, ''))) return isLoopbackAddress(host);
  try {
    const addrs = await lookup(host, { all: true });
    return addrs.length > 0 && addrs.every((a) => isLoopbackAddress(a.address));
  } catch {
    return false;
  }
}

/** Throws LISTEN_INSECURE for plain HTTP on a non-loopback host without allowInsecure. */
export async function checkListenPolicy(host: string, tls: TlsSettings | null, allowInsecure: boolean): Promise<void> {
  if (tls || allowInsecure) return;
  if (!(await isLoopbackHost(host))) {
    throw evioError('LISTEN_INSECURE', `refusing plain HTTP on ${host}, which is not a loopback address: configure "tls" (cert and key), listen on 127.0.0.1, or set "allowInsecure": true / --allow-insecure`);
  }
}

/**
 * Reads the private key through one descriptor and checks that descriptor: a regular file that
 * others cannot access and the group cannot write. Group read is allowed, as Debian's ssl-cert
 * group convention needs (/etc/ssl/private, mode 0640); the keystore, which only evio reads, is
 * stricter (0600).
 */
function readPrivateKey(path: string): Buffer {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    throw evioError('TLS_UNREADABLE', `cannot read the TLS key ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw evioError('TLS_KEY_INSECURE', `TLS key ${path} is not a regular file`);
    if ((st.mode & 0o027) !== 0) {
      throw evioError('TLS_KEY_INSECURE', `TLS key ${path} has mode ${(st.mode & 0o777).toString(8).padStart(4, '0')}: others may access it or the group may write it; run chmod 600 ${path} (or 640 with a trusted group)`);
    }
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Reads and checks the PEM certificate and key; throws TLS_UNREADABLE or TLS_KEY_INSECURE. */
export function loadTls(tls: TlsSettings): { cert: Buffer; key: Buffer } {
  let cert: Buffer;
  try {
    cert = readFileSync(tls.cert);
  } catch (err) {
    throw evioError('TLS_UNREADABLE', `cannot read the TLS certificate: ${(err as Error).message}`);
  }
  const key = readPrivateKey(tls.key);
  try {
    createSecureContext({ cert, key }); // fails on bad PEM or a key that does not match
  } catch (err) {
    throw evioError('TLS_UNREADABLE', `TLS certificate ${tls.cert} and key ${tls.key} cannot be used: ${(err as Error).message}`);
  }
  return { cert, key };
}
