// The console's signer (src/console/sign.ts, WebCrypto, runs in the browser) against the
// worked example of docs/auth.md and against the server's own implementation (src/signing.ts),
// on Node's WebCrypto, which is the same API.
import { describe, expect, it } from 'vitest';
import { canonicalQuery, hmacSha256Hex, signUrl } from '../../src/console/sign.js';
import { canonicalQuery as serverCanonical, signSha256 } from '../../src/signing.js';

const KEY = '4f1c6c2a2b9e8d7f00112233445566778899aabbccddeeff0011223344556677';

describe('the console signs as docs/auth.md says', () => {
  it('reproduces the worked example', async () => {
    const url = new URL('http://h/REST/v2.0/events?format=ff&file=events.ndjson&submithost=web*&from=2026/01/02 10:00&limit=3&appid=admin&timestamp=1767225600');
    const q = canonicalQuery(url.searchParams);
    expect(q).toBe('appid=admin&file=events.ndjson&format=ff&from=2026%2F01%2F02%2010%3A00&limit=3&submithost=web%2A&timestamp=1767225600');
    const canonical = `GET\n/REST/v2.0/events\n${q}\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855`;
    expect(await hmacSha256Hex(KEY, canonical)).toBe('c01db3b47c19b66d8490fed11352ea16b5fc18f70f633b5cd52bb690a3fce28c');
  });

  it('signs a URL the way the server checks it (repeated parameters, UTF-8, reserved characters, a body)', async () => {
    const url = new URL('http://h/pm/REST/v2.0/events');
    const params: [string, string][] = [['runuser', 'root'], ['runuser', 'ädmin'], ['runcommand', "/bin/sh -c 'a*b'!(x)~"], ['from', '-7d']];
    for (const [k, v] of params) url.searchParams.append(k, v);
    const body = '{"note":"x"}';
    await signUrl(url, 'delete', { appid: 'admin', key: KEY }, body);
    const hmac = url.searchParams.get('hmac')!;
    const rest = [...url.searchParams].filter(([k]) => k !== 'hmac');
    expect(canonicalQuery(rest)).toBe(serverCanonical(rest));
    expect(hmac).toBe(signSha256(KEY, { method: 'DELETE', path: '/pm/REST/v2.0/events', query: rest, body }));
    expect(url.searchParams.get('nonce')).toMatch(/^[0-9a-f]{16}$/);
    expect(Math.abs(Number(url.searchParams.get('timestamp')) - Date.now() / 1000)).toBeLessThan(5);
    expect(url.href).not.toContain(KEY);
  });
});
