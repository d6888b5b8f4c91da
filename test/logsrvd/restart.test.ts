// sudo_sendlog -s stops a transfer part-way (as a dropped connection would); sudo_sendlog -r
// with the log id evio gave resumes it from the commit point, and the completed session is the
// original, byte for byte as sudoreplay plays it. A resume with a wrong point or id is refused.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawClient } from './client.js';
import { events, makeSession, replay, sendlog, settled, startTestServer, sudoToolsAvailable, type TestServer } from './helpers.js';

const enabled = sudoToolsAvailable();

function lastLogId(t: TestServer): string {
  const entry = t.logs.filter((e) => e.msg === 'logsrvd session').at(-1);
  return String(entry?.logId);
}

describe.skipIf(!enabled)('restart: sudo_sendlog -s, then -r -i', () => {
  let t: TestServer;
  let work: string;
  beforeAll(async () => {
    t = await startTestServer({ commitIntervalMs: 50 });
    work = mkdtempSync(join(tmpdir(), 'evio-restart-'));
  });
  afterAll(async () => {
    await t?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it.each([
    ['with a run time in log.json', true],
    ['without one (as sudoers writes locally)', false],
  ])('resumes a stopped transfer %s and completes it byte for byte', async (_name, runTime) => {
    const src = join(work, `session-${runTime}`);
    makeSession(src, { records: 200, bytes: 700, delayNs: 10_000_000, runTime });
    const stop = await sendlog(t.port, ['-s', '1,0'], src);
    // sudo_sendlog -s hangs up at the stop point without waiting for the log id: the operator
    // finds it in the server's log, beside the session's directory.
    expect(stop.stderr).toMatch(/elapsed time sent to server \[1, 0\]/);
    await settled(t);
    const logId = lastLogId(t);
    expect(logId).toMatch(/^[A-Za-z0-9_-]{60,}$/);
    const k = events(t.settings).filter((r) => r.etype === 'K').at(-1)!;
    const dir = k.iolog as string;
    // Not complete: timing still writable, no finish record.
    expect(statSync(join(dir, 'timing')).mode & 0o200).not.toBe(0);
    expect(events(t.settings).some((r) => r.etype === 'F' && r.uniqueid === k.uniqueid)).toBe(false);

    // A client that hangs up abruptly may lose what the server had not read yet (the reset drops
    // it): it resumes from a point the server stored. Resume from all of it, or from half of it
    // (the records after the point are cut off first).
    const stored = readFileSync(join(dir, 'timing'), 'latin1').split('\n').filter(Boolean).length;
    expect(stored).toBeGreaterThan(10);
    const keep = runTime ? stored : Math.floor(stored / 2);
    const point = `${Math.floor((keep * 10) / 1000)},${((keep * 10) % 1000) * 1_000_000}`;
    const resumed = await sendlog(t.port, ['-r', point, '-i', logId!], src);
    await settled(t);
    expect(resumed.stderr, JSON.stringify(t.logs.slice(-4))).toBe('');
    expect(resumed.code).toBe(0);
    expect(statSync(join(dir, 'timing')).mode & 0o222).toBe(0);
    const f = events(t.settings).filter((r) => r.etype === 'F' && r.uniqueid === k.uniqueid);
    expect(f.length).toBe(1);
    expect(f[0]!.submituser).toBe('alice');
    const mine = await replay(t.root, relative(t.root, dir));
    const theirs = await replay(work, relative(work, src));
    expect(theirs.code).toBe(0);
    expect(mine.stdout.length).toBe(theirs.stdout.length);
    expect(mine.stdout === theirs.stdout).toBe(true);
  });

  it('refuses a resume point that is not the end of a stored record, and an unknown log id', async () => {
    const src = join(work, 'session-bad');
    makeSession(src, { records: 200, bytes: 700, delayNs: 10_000_000 });
    await sendlog(t.port, ['-s', '1,0'], src);
    await settled(t);
    const logId = lastLogId(t);
    const dir = String(t.logs.filter((e) => e.msg === 'logsrvd session').at(-1)!.dir);
    const stored = readFileSync(join(dir, 'timing'), 'latin1').split('\n').filter(Boolean).length;
    expect(stored).toBeGreaterThan(10);
    const endNs = stored * 10_000_000;
    // Records are 10 ms apart: 5 ms before the end falls inside the last one (sudo_sendlog itself
    // refuses to send such a point, so a raw client does).
    const bad = await RawClient.open(t.port);
    bad.send({ type: 'hello', clientId: 'test' });
    bad.send({ type: 'restart', logId, resumePoint: { sec: Math.floor((endNs - 5_000_000) / 1e9), nsec: (endNs - 5_000_000) % 1e9 } });
    expect(await bad.closedWithError()).toMatch(/^1805 /);
    const unknown = await RawClient.open(t.port);
    unknown.send({ type: 'hello', clientId: 'test' });
    unknown.send({ type: 'restart', logId: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', resumePoint: { sec: 0, nsec: 10_000_000 } });
    expect(await unknown.closedWithError()).toMatch(/^1804 /);
    // The session is still resumable after the refusals.
    const ok = await sendlog(t.port, ['-r', `${Math.floor(endNs / 1e9)},${endNs % 1e9}`, '-i', logId], src);
    expect(ok.code, ok.stderr + JSON.stringify(t.logs.slice(-3))).toBe(0);
  });
});
