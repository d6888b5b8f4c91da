// Request signatures in the browser, by the scheme of docs/auth.md (the server's src/signing.ts
// is the reference; the console may not import it, so this is the same algorithm on WebCrypto):
//   hex(HMAC-SHA256(key, METHOD "\n" PATH "\n" CANONICAL-QUERY "\n" hex(SHA-256(BODY))))
// CANONICAL-QUERY: every parameter but hmac, RFC 3986-encoded, `k=v`, sorted by name then value.

const encoder = new TextEncoder();

/** RFC 3986: everything but A-Z a-z 0-9 - . _ ~ becomes %XX. */
export function rfc3986(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function canonicalQuery(pairs: Iterable<readonly [string, string]>): string {
  const list: [string, string][] = [];
  for (const [k, v] of pairs) if (k !== 'hmac') list.push([rfc3986(k), rfc3986(v)]);
  list.sort((a, b) => cmp(a[0], b[0]) || cmp(a[1], b[1]));
  return list.map(([k, v]) => `${k}=${v}`).join('&');
}

function hex(buf: ArrayBuffer): string {
  return [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

async function sha256Hex(body: Uint8Array<ArrayBuffer> | string): Promise<string> {
  return hex(await crypto.subtle.digest('SHA-256', typeof body === 'string' ? encoder.encode(body) : body));
}

/** Written without DOM-only type names: Node's tests run this file on Node's WebCrypto. */
type HmacKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;

/** Imported HMAC keys, one per key text: importKey costs more than a signature. */
const keys = new Map<string, Promise<HmacKey>>();

function hmacKey(key: string): Promise<HmacKey> {
  let k = keys.get(key);
  if (!k) {
    k = crypto.subtle.importKey('raw', encoder.encode(key), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    keys.clear(); // one signed-in app at a time
    keys.set(key, k);
  }
  return k;
}

export async function hmacSha256Hex(key: string, text: string): Promise<string> {
  return hex(await crypto.subtle.sign('HMAC', await hmacKey(key), encoder.encode(text)));
}

export interface Credentials {
  appid: string;
  key: string;
}

function nonce(): string {
  const b = new Uint8Array(8);
  crypto.getRandomValues(b);
  return [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
}

/**
 * Signs a URL in place: replaces any appid/timestamp/nonce/hmac with fresh ones (a random nonce,
 * so two equal calls in one second are not refused as a replay) and returns it. The path is
 * signed as the URL object will send it (already percent-encoded, not decoded).
 */
export async function signUrl(url: URL, method: string, creds: Credentials, body: Uint8Array<ArrayBuffer> | string = ''): Promise<URL> {
  for (const p of ['appid', 'timestamp', 'hmac', 'nonce']) url.searchParams.delete(p);
  url.searchParams.append('appid', creds.appid);
  url.searchParams.append('timestamp', String(Math.floor(Date.now() / 1000)));
  url.searchParams.append('nonce', nonce());
  const canonical = `${method.toUpperCase()}\n${url.pathname}\n${canonicalQuery(url.searchParams)}\n${await sha256Hex(body)}`;
  const sig = await hmacSha256Hex(creds.key, canonical);
  // Sent in canonical order: what was signed is visibly what is sent.
  url.search = `?${canonicalQuery(url.searchParams)}&hmac=${sig}`;
  return url;
}
