// evio's own audit trail: a signed DELETE is logged (request log, one JSON line) and recorded in
// the audit event log, which the engine itself queries; refused writing calls are recorded as
// rejects; the audit log cannot be deleted from through the API; hmac values and keys reach
// neither log; a CLI delete is recorded with the OS user.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { queryEvents, type ReturnedEvent } from '../../src/app/events.js';
import { Engine } from '../../src/engine.js';
import { generateEvents } from '../../src/eventlog/generate.js';
import type { RunningServer } from '../../src/http/server.js';
import { KEYS, makeHome, serverPerTest, serve, signed, signedHref, raw, type TestHome } from '../http/server/helpers.js';

const bin = join(import.meta.dirname, '../../bin/evio.js');

function writeLog(path: string, count: number): void {
  const lines: string[] = [];
  for (const rec of generateEvents({ count, seed: 7 })) lines.push(JSON.stringify(rec));
  writeFileSync(path, `${lines.join('\n')}\n`);
}

/** The audit log's records through the engine, as `evio events query ff:…audit.ndjson` reads them. */
async function auditRecords(home: TestHome, params: Record<string, string> = {}): Promise<ReturnedEvent[]> {
  const engine = new Engine(home.settings);
  try {
    const { events } = await queryEvents(engine, { verbose: '1', ...params }, { store: `ff:${home.settings.auditlog}` });
    const out: ReturnedEvent[] = [];
    for await (const e of events) out.push(e);
    return out;
  } finally {
    await engine.close();
  }
}

function logLines(path: string): Array<Record<string, unknown>> {
  return readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
}

/**
 * The request lines of the log once `count` of them are there: a line is written when its
 * response has finished on the server's side, which can come after the client has read the
 * answer (bounded wait, then whatever is there, for the assertion to judge).
 */
async function requestLines(path: string, count: number): Promise<Array<Record<string, unknown>>> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const lines = logLines(path).filter((l) => l.msg === 'request');
    if (lines.length >= count || Date.now() > deadline) return lines;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('audit trail', () => {
  const held = serverPerTest();

  async function start(): Promise<{ home: TestHome; server: RunningServer; requestLog: string }> {
    const h = makeHome();
    const requestLog = join(h.dir, 'requests.log');
    h.settings.requestLog = requestLog;
    writeLog(join(h.dir, 'events.ndjson'), 50);
    held.home = h;
    held.server = await serve(h);
    return { home: h, server: held.server, requestLog };
  }

  it('a signed DELETE is logged and recorded in the audit log, which the engine queries', async () => {
    const { home: h, server: s, requestLog } = await start();
    const del = await signed(s, 'admin', 'DELETE', '/REST/v2.0/events?format=ff&file=events.ndjson&all=1');
    expect(del.http).toBe(200);
    expect(del.body.deleted).toBe(50);

    const found = await auditRecords(h, { runcommand: 'DELETE*' });
    expect(found).toHaveLength(1);
    const a = found[0]!;
    expect(a.etype).toBe('A');
    expect(a.submituser).toBe('admin');
    expect(a.submithost).toBe('127.0.0.1');
    expect(a.runuser).toBe('evio');
    expect(a.runcommand).toBe('DELETE /REST/v2.0/events');
    expect(a.exitstatus).toBe('deleted 50 records');
    expect(a.deleted).toBe(50);
    expect(a.runargv).toEqual(expect.arrayContaining(['format=ff', 'file=events.ndjson', 'all=1', 'appid=admin']));
    expect(typeof a.requestid).toBe('string');

    // The request log: one JSON line for the call, with the same request id.
    await s.close();
    held.server = undefined;
    const lines = await requestLines(requestLog, 1);
    expect(lines).toHaveLength(1);
    const line = lines[0]!;
    expect(line).toMatchObject({ method: 'DELETE', path: '/REST/v2.0/events', appid: 'admin', ip: '127.0.0.1', http: 200, code: 0, reqId: a.requestid });
    expect(line.params).toMatchObject({ format: 'ff', file: 'events.ndjson', all: '1' });
    expect(typeof line.ms).toBe('number');
    expect(line.bytes).toBeGreaterThan(0);
    expect(typeof line.time).toBe('number');
  });

  it('the request log counts the records streamed by an event list', async () => {
    const { server: s, requestLog } = await start();
    const q = await signed(s, 'admin', 'GET', '/REST/v2.0/events?format=ff&file=events.ndjson&limit=7');
    expect(q.http).toBe(200);
    await s.close();
    held.server = undefined;
    const line = (await requestLines(requestLog, 1))[0]!;
    expect(line).toMatchObject({ method: 'GET', http: 200, code: 0, rows: 7 });
    expect(line.bytes).toBeGreaterThan(q.text.length);
  });

  it('refused writing calls are recorded as rejects (etype R)', async () => {
    const { home: h, server: s } = await start();
    const count = async () => ((await signed(s, 'admin', 'GET', '/REST/v2.0/events?format=ff&file=events.ndjson&dump=1&limit=100')).body.events as unknown[]).length;
    expect(await count()).toBe(50);
    const ro = await signed(s, 'reader', 'DELETE', '/REST/v2.0/events?format=ff&file=events.ndjson&all=1');
    expect(ro.http).toBe(403);
    const bad = await raw(`${s.url}/REST/v2.0/events?format=ff&file=events.ndjson&all=1&appid=admin&timestamp=${Math.floor(Date.now() / 1000)}&hmac=${'0'.repeat(64)}`, { method: 'DELETE' });
    expect(bad.http).toBe(401);
    const rejects = await auditRecords(h, { etype: 'R' });
    // A verified signature names its app; a call whose signature failed is unauthenticated, and
    // the appid it claimed is kept as a claim.
    expect(rejects.map((r) => [r.submituser, r.claimed_appid, String(r.exitstatus).slice(0, 4)])).toEqual([
      ['reader', undefined, '1605'],
      ['(unauthenticated)', 'admin', '8119'],
    ]);
    // Nothing was deleted.
    expect(await count()).toBe(50);
  });

  it('unsigned refusals are recorded one by one up to auditRefusedPerMinute, the rest as one summary; signed refusals always', async () => {
    const h = makeHome();
    h.settings.auditRefusedPerMinute = 3;
    writeLog(join(h.dir, 'events.ndjson'), 5);
    held.home = h;
    const s = await serve(h);
    held.server = s;
    const unsigned = () => raw(`${s.url}/REST/v2.0/events?format=ff&file=events.ndjson&all=1&appid=admin&timestamp=${Math.floor(Date.now() / 1000)}&hmac=${'0'.repeat(64)}`, { method: 'DELETE' });
    for (let i = 0; i < 10; i++) expect((await unsigned()).http).toBe(401);
    // A valid signature refused by the route rules is recorded past the budget.
    expect((await signed(s, 'reader', 'DELETE', '/REST/v2.0/events?format=ff&file=events.ndjson&all=1')).http).toBe(403);
    expect((await auditRecords(h, { etype: 'R' })).map((r) => [r.submituser, r.claimed_appid])).toEqual([
      ['(unauthenticated)', 'admin'],
      ['(unauthenticated)', 'admin'],
      ['(unauthenticated)', 'admin'],
      ['reader', undefined],
    ]);
    // The 7 not recorded one by one are written as one record when the server's engine closes.
    await s.close();
    held.server = undefined;
    await h.engine.close();
    const all = await auditRecords(h, { etype: 'R' });
    expect(all).toHaveLength(5);
    expect(all[4]).toMatchObject({ runcommand: 'refused unsigned calls', submituser: '(unauthenticated)', submithost: '127.0.0.1', runargv: ['127.0.0.1=7'], suppressed: 7 });
  });

  it('the audit log is readable over REST but a DELETE or purge of it is refused (1622)', async () => {
    const { server: s } = await start();
    await signed(s, 'admin', 'DELETE', '/REST/v2.0/events?format=ff&file=events.ndjson&submituser=nobody-matches');
    const read = await signed(s, 'admin', 'GET', '/REST/v2.0/events?format=ff&file=audit.ndjson');
    expect(read.http).toBe(200);
    expect((read.body.events as Array<{ runcommand: string }>).map((e) => e.runcommand)).toEqual(['DELETE /REST/v2.0/events']);

    const del = await signed(s, 'admin', 'DELETE', '/REST/v2.0/events?format=ff&file=audit.ndjson&all=1');
    expect(del.http).toBe(403);
    expect(del.body.status).toBe(1622);
    const purge = await signed(s, 'admin', 'DELETE', '/REST/v2.0/events/iologs?format=ff&file=audit.ndjson&all=1');
    expect(purge.http).toBe(403);
    expect(purge.body.status).toBe(1622);

    // The records are all still there, and the refusals were recorded too.
    const after = await signed(s, 'admin', 'GET', '/REST/v2.0/events?format=ff&file=audit.ndjson');
    const outcomes = (after.body.events as Array<{ runcommand: string; exitstatus: string }>).map((e) => [e.runcommand, e.exitstatus.slice(0, 4)]);
    expect(outcomes).toEqual([
      ['DELETE /REST/v2.0/events', 'dele'],
      ['DELETE /REST/v2.0/events', '1622'],
      ['DELETE /REST/v2.0/events/iologs', '1622'],
    ]);
  });

  it('hmac values and keys reach neither the request log nor the audit log', async () => {
    const { home: h, server: s, requestLog } = await start();
    const href = new URL(signedHref(s, 'admin', 'DELETE', '/REST/v2.0/events?format=ff&file=events.ndjson&submituser=root'));
    const hmac = href.searchParams.get('hmac')!;
    expect(hmac).toMatch(/^[0-9a-f]{64}$/);
    const ok = await raw(href.href, { method: 'DELETE' });
    expect(ok.http).toBe(200);
    // A caller that puts a key in the query: refused (unknown parameter or bad signature), never logged.
    const leaked = await raw(`${s.url}/REST/v2.0/events?format=ff&file=events.ndjson&all=1&appid=admin&timestamp=1&hmac=${'f'.repeat(64)}&key=${KEYS.admin}`, { method: 'DELETE' });
    expect(leaked.http).toBeGreaterThanOrEqual(400);
    await s.close();
    held.server = undefined;

    const logText = readFileSync(requestLog, 'utf8');
    const auditText = readFileSync(h.settings.auditlog, 'utf8');
    expect(await requestLines(requestLog, 2)).toHaveLength(2);
    expect(auditText.split('\n').filter(Boolean).length).toBe(3); // A + F, then R
    for (const text of [logText, auditText]) {
      expect(text).not.toContain(hmac);
      expect(text).not.toContain('f'.repeat(64));
      expect(text).not.toContain(KEYS.admin);
      expect(text).not.toContain('hmac');
    }
  });

  it('a CLI delete writes an audit record with the OS user', async () => {
    const h = makeHome();
    held.home = h;
    writeLog(join(h.dir, 'events.ndjson'), 20);
    const r = spawnSync(process.execPath, [bin, 'events', 'delete', `ff:${join(h.dir, 'events.ndjson')}`, '--submituser', '*', '--all'], {
      encoding: 'utf8',
      env: { ...process.env, EVIO_HOME: h.dir, EVIO_CONFIG: '' },
      timeout: 60_000,
    });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ status: 0, deleted: 20 });
    const found = await auditRecords(h, { runcommand: 'evio events delete' });
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ etype: 'A', runuser: 'evio', exitstatus: `deleted 20 records from ff:${join(h.dir, 'events.ndjson')}`, deleted: 20 });
    expect(found[0]!.submituser).toBeTruthy();
    expect(found[0]!.runargv).toEqual([`ff:${join(h.dir, 'events.ndjson')}`, '--submituser', '*', '--all']);

    // The CLI refuses to delete from the audit log too; the refusal is itself recorded.
    const refused = spawnSync(process.execPath, [bin, 'events', 'delete', `ff:${h.settings.auditlog}`, '--all'], {
      encoding: 'utf8',
      env: { ...process.env, EVIO_HOME: h.dir, EVIO_CONFIG: '' },
      timeout: 60_000,
    });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('1622');
    expect((await auditRecords(h)).map((e) => String(e.exitstatus).slice(0, 4))).toEqual(['dele', '1622']);
  });
});
