// What callers without a key can add to the audit log. Before, the per-minute budget counted
// calls but not bytes: each recorded refusal carried every parameter sent (a 13 KB URL made a
// 13 KB record), so one caller added ~721 KiB a minute; and the record's submituser was the appid
// the caller chose. Now a recorded unsigned refusal is at most MAX_REFUSAL_BYTES, the summary of
// the rest at most MAX_SUMMARY_BYTES, and submituser is the fixed marker (unauthenticated), the
// claimed appid kept as claimed_appid.
import { request as httpRequest } from 'node:http';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { auditRecords } from '../../src/app/audit.js';
import { boundedRefusal, MAX_REFUSAL_BYTES, MAX_SUMMARY_BYTES, UNAUTHENTICATED } from '../../src/app/audit-refusals.js';
import { makeHome, serverPerTest, nowSeconds, readAnswer, serve, signed, type Answer, type TestHome } from '../http/server/helpers.js';

/** A DELETE sent from a chosen loopback address (127.0.0.0/8 is all loopback on Linux). */
function deleteFrom(url: string, localAddress: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'DELETE', localAddress, agent: false }, (res) => readAnswer(res).then(resolve, reject));
    req.on('error', reject);
    req.end();
  });
}

describe('unsigned writing calls and the audit log', () => {
  const held = serverPerTest();

  it('a loop of unsigned DELETEs with ~13 KB of parameters from 40 loopback addresses adds at most the documented bound per window, never naming the caller as submituser', async () => {
    const perMinute = 20;
    const h = makeHome({ auditRefusedPerMinute: perMinute });
    held.home = h;
    const s = await serve(h);
    held.server = s;
    // One signed call first, so the file's starting size is known and not empty.
    expect((await signed(s, 'admin', 'DELETE', '/REST/v2.0/events?format=ff&file=events.ndjson&submituser=none')).http).toBeGreaterThanOrEqual(200);
    const before = statSync(h.settings.auditlog).size;

    const big = Array.from({ length: 48 }, (_, i) => `p${i}=${encodeURIComponent('"\u00e9'.repeat(30))}`).join('&');
    const claimed = ['admin', 'root', 'auditor', 'unauthenticated'];
    const calls = 120;
    for (let i = 0; i < calls; i++) {
      const appid = claimed[i % claimed.length]!;
      const url = `${s.url}/REST/v2.0/events?format=ff&file=events.ndjson&all=1&submituser=${appid}&appid=${appid}&timestamp=${nowSeconds()}&hmac=${'0'.repeat(64)}&${big}`;
      const a = await deleteFrom(url, `127.0.0.${1 + (i % 40)}`);
      expect(a.http).toBe(401);
    }
    await s.close();
    held.server = undefined;
    await h.engine.close(); // writes the summary of the calls not recorded one by one

    const text = readFileSync(h.settings.auditlog, 'utf8');
    const lines = text.split('\n').filter(Boolean);
    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const refusals = records.filter((r) => r.etype === 'R');
    const summaries = refusals.filter((r) => r.runcommand === 'refused unsigned calls');
    const single = refusals.filter((r) => r.runcommand !== 'refused unsigned calls');
    // One window unless the loop crossed a minute; each window records perMinute and one summary.
    const windows = Math.max(1, summaries.length);
    expect(single.length).toBeLessThanOrEqual(perMinute * windows);
    expect(single.length + summaries.reduce((n, r) => n + (r.suppressed as number), 0)).toBe(calls);
    for (const l of lines.slice(2)) {
      const isSummary = l.includes('"refused unsigned calls"');
      expect(Buffer.byteLength(l) + 1).toBeLessThanOrEqual(isSummary ? MAX_SUMMARY_BYTES : MAX_REFUSAL_BYTES);
    }
    const grown = statSync(h.settings.auditlog).size - before;
    expect(grown).toBeLessThanOrEqual(windows * (perMinute * MAX_REFUSAL_BYTES + MAX_SUMMARY_BYTES));

    // Never the caller's chosen identity as submituser; the claim is kept, named as one.
    for (const r of refusals) expect(r.submituser).toBe(UNAUTHENTICATED);
    expect(single.map((r) => r.claimed_appid)).toEqual(Array.from({ length: single.length }, (_, i) => claimed[i % claimed.length]));
    // What the call asked is still there, its first parameters, and how many more it had.
    expect(single[0]!.runargv).toEqual(expect.arrayContaining(['format=ff', 'file=events.ndjson', 'all=1']));
    expect(String((single[0]!.runargv as string[]).at(-1))).toMatch(/^\(\+\d+ more parameters\)$/);
  }, 120_000);

  it('the request log names an appid only once its signature was verified; otherwise the appid claimed', async () => {
    const h = makeHome();
    held.home = h;
    const requestLog = join(h.dir, 'requests.log');
    h.settings.requestLog = requestLog;
    const s = await serve(h);
    held.server = s;
    expect((await deleteFrom(`${s.url}/REST/v2.0/events?format=ff&file=events.ndjson&all=1&appid=admin&timestamp=${nowSeconds()}&hmac=${'0'.repeat(64)}`, '127.0.0.1')).http).toBe(401);
    expect((await signed(s, 'reader', 'DELETE', '/REST/v2.0/events?format=ff&file=events.ndjson&all=1')).http).toBe(403);
    await s.close();
    held.server = undefined;
    // A line is written once its answer has finished on the server's side: wait for both (bounded).
    const read = () => readFileSync(requestLog, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'request');
    for (let i = 0; i < 250 && read().length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    const lines = read();
    expect(lines.map((l) => [l.appid, l.claimed_appid, l.code])).toEqual([
      [undefined, 'admin', 8119],
      ['reader', undefined, 1605],
    ]);
  });

  it('boundedRefusal keeps every record within MAX_REFUSAL_BYTES, whatever the parameters and the address', () => {
    const e = boundedRefusal({
      accepted: false,
      user: UNAUTHENTICATED,
      from: 'ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255',
      command: 'DELETE /REST/v2.0/events',
      argv: Array.from({ length: 64 }, (_, i) => `p${i}=${'\u0001'.repeat(8192)}`),
      outcome: `8119 ${'x'.repeat(5000)}`,
      status: 8119,
      started: 1,
      extra: { requestid: 'r'.repeat(5000), http: 401, claimed_appid: '(invalid)' },
    });
    const line = `${JSON.stringify({ recnum: 9007199254740991, ...auditRecords(e)[0] })}\n`;
    expect(Buffer.byteLength(line)).toBeLessThanOrEqual(MAX_REFUSAL_BYTES);
    expect(e.argv.at(-1)).toMatch(/more parameters\)$/);
  });
});
