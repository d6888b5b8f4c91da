// Request signatures (docs/auth.md): the one place that builds the canonical string and the
// HMAC, used by the server's check, by `evio rest` and by the tests, so they cannot drift apart.
//
// Default scheme, hex HMAC-SHA256 with the app's key (the key string's UTF-8 bytes) over
//   METHOD "\n" PATH "\n" CANONICAL-QUERY "\n" hex(sha256(BODY))
// where PATH is the path exactly as sent (with any prefix, without "?"), and CANONICAL-QUERY is
// every query parameter except hmac, decoded, re-encoded per RFC 3986 as k=v, sorted by key
// then value, joined by "&". Legacy scheme: hex HMAC-MD5 of appid + timestamp (weaker: it does
// not cover the request).
import { createHash, createHmac } from 'node:crypto';

export type SignatureScheme = 'hmac-sha256' | 'hmac-md5-legacy';
export const SIGNATURE_SCHEMES: readonly SignatureScheme[] = ['hmac-sha256', 'hmac-md5-legacy'];

/**
 * The query parameters that carry the signature, stripped before the handlers see the query.
 * `nonce` is optional: any text that makes two otherwise identical calls in the same second
 * differ (their signatures would be equal, and the second one refused as a replay).
 */
export const AUTH_PARAMS = ['appid', 'timestamp', 'hmac', 'nonce'] as const;

/** RFC 3986 percent-encoding: everything but unreserved characters (A-Z a-z 0-9 - . _ ~). */
export function rfc3986(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Plain code-unit order: the encoded text is ASCII, so this is byte order in every language. */
function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Sorted `k=v` pairs of every parameter but hmac, RFC 3986-encoded, joined by `&`. */
export function canonicalQuery(pairs: Iterable<readonly [string, string]>): string {
  const list: [string, string][] = [];
  for (const [k, v] of pairs) if (k !== 'hmac') list.push([rfc3986(k), rfc3986(v)]);
  list.sort((a, b) => cmp(a[0], b[0]) || cmp(a[1], b[1]));
  return list.map(([k, v]) => `${k}=${v}`).join('&');
}

export function sha256Hex(body: Uint8Array | string): string {
  return createHash('sha256').update(body).digest('hex');
}

export interface SignedParts {
  method: string;
  /** The path as sent, prefix included, without the query string. */
  path: string;
  /** Query pairs as decoded from the URL (appid and timestamp included; hmac is ignored). */
  query: Iterable<readonly [string, string]>;
  /** Raw body bytes; empty or absent = no body. */
  body?: Uint8Array | string | undefined;
}

export function canonicalString(p: SignedParts): string {
  return `${p.method.toUpperCase()}\n${p.path}\n${canonicalQuery(p.query)}\n${sha256Hex(p.body ?? '')}`;
}

export function hmacSha256(key: string, canonical: string): Buffer {
  return createHmac('sha256', key).update(canonical).digest();
}

export function hmacSha256Hex(key: string, canonical: string): string {
  return hmacSha256(key, canonical).toString('hex');
}

export function signSha256(key: string, p: SignedParts): string {
  return hmacSha256Hex(key, canonicalString(p));
}

export function hmacMd5Legacy(key: string, appid: string, timestamp: string): Buffer {
  return createHmac('md5', key).update(appid + timestamp).digest();
}

export function signMd5Legacy(key: string, appid: string, timestamp: string): string {
  return hmacMd5Legacy(key, appid, timestamp).toString('hex');
}

export interface SignRequestInput {
  method: string;
  /** Path (prefix included) with or without a query string, e.g. /REST/v2.0/events?limit=5. */
  target: string;
  appid: string;
  key: string;
  body?: string | Uint8Array | undefined;
  /** Unix seconds; default now. */
  timestamp?: number;
  scheme?: SignatureScheme;
  /** Added as the nonce parameter when given. */
  nonce?: string;
}

/**
 * Adds appid, timestamp and hmac to a request target: the client side of the scheme. Returns
 * the target to send (path + query); the path is normalised the way a URL parser sends it.
 */
export function signRequest(input: SignRequestInput): { target: string; hmac: string; timestamp: string } {
  const url = new URL(input.target, 'http://signing.invalid');
  url.searchParams.delete('appid');
  url.searchParams.delete('timestamp');
  url.searchParams.delete('hmac');
  url.searchParams.delete('nonce');
  const timestamp = String(input.timestamp ?? Math.floor(Date.now() / 1000));
  url.searchParams.append('appid', input.appid);
  url.searchParams.append('timestamp', timestamp);
  if (input.nonce !== undefined) url.searchParams.append('nonce', input.nonce);
  const hmac =
    (input.scheme ?? 'hmac-sha256') === 'hmac-md5-legacy'
      ? signMd5Legacy(input.key, input.appid, timestamp)
      : signSha256(input.key, { method: input.method, path: url.pathname, query: url.searchParams, body: input.body });
  // Send the query in canonical form too: what is signed is then visibly what is sent.
  const query = canonicalQuery(url.searchParams);
  return { target: `${url.pathname}?${query}${query ? '&' : ''}hmac=${hmac}`, hmac, timestamp };
}
