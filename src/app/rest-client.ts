// The client side of a signed call (`evio rest`, tests): signs with the shared signing module
// and sends with node's http/https (so a self-signed certificate can be accepted on request).
import { randomBytes } from 'node:crypto';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { evioError } from '../errors.js';
import { signRequest, type SignatureScheme } from '../signing.js';

export interface RestCall {
  /** Base URL of the service, e.g. https://pm.example.com:24351 (a path in it is kept as a prefix). */
  url: string;
  appid: string;
  key: string;
  method: string;
  /** Path with optional query, e.g. /REST/v2.0/events?limit=5. */
  path: string;
  /** JSON text to send. */
  body?: string;
  /** Accept a certificate that does not verify (self-signed test setups). */
  insecure?: boolean;
  scheme?: SignatureScheme;
  timestamp?: number;
  /** Default: a random one, so identical calls in one second differ; null = none. */
  nonce?: string | null;
  signal?: AbortSignal;
}

/** The full URL of a signed call (what is sent). */
export function signedUrl(call: RestCall): URL {
  const base = new URL(call.url);
  const prefix = base.pathname.replace(/\/+$/, '');
  const { target } = signRequest({
    method: call.method,
    target: `${prefix}${call.path.startsWith('/') ? '' : '/'}${call.path}`,
    appid: call.appid,
    key: call.key,
    body: call.body,
    ...(call.scheme ? { scheme: call.scheme } : {}),
    ...(call.timestamp !== undefined ? { timestamp: call.timestamp } : {}),
    ...(call.nonce === null ? {} : { nonce: call.nonce ?? randomBytes(8).toString('hex') }),
  });
  return new URL(target, base);
}

/** Sends a signed call; resolves with the response, whose body the caller reads as a stream. */
export function sendSigned(call: RestCall): Promise<IncomingMessage> {
  let url: URL;
  try {
    url = signedUrl(call);
  } catch (err) {
    return Promise.reject(evioError('CLI_USAGE', `--url ${call.url} is not a valid URL: ${(err as Error).message}`));
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return Promise.reject(evioError('CLI_USAGE', `--url must be http:// or https://, not ${url.protocol}`));
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (call.body !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(Buffer.byteLength(call.body));
  }
  return new Promise((resolve, reject) => {
    const req = send(
      url,
      {
        method: call.method.toUpperCase(),
        headers,
        ...(url.protocol === 'https:' && call.insecure ? { rejectUnauthorized: false } : {}),
        ...(call.signal ? { signal: call.signal } : {}),
      },
      resolve,
    );
    req.on('error', (err: NodeJS.ErrnoException) => {
      reject(evioError('REST_CLIENT', `${call.method.toUpperCase()} ${url.origin}${url.pathname}: ${err.code ?? ''} ${err.message}`.replace(/\s+/g, ' ').trim()));
    });
    req.end(call.body);
  });
}
