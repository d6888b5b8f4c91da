// Debian's sudo_sendlog sends real recorded sessions to evio's log server; sudoreplay reads back
// what evio stored and must print exactly what it prints for the original recording.
import { readdirSync, statSync, existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLES } from '../helpers/samples.js';
import { events, replay, run, sendlog, settled, startTestServer, sudoToolsAvailable, SUDOREPLAY, type TestServer } from './helpers.js';

const enabled = sudoToolsAvailable();

/** Every session directory (a directory holding timing) under a sample root. */
function sessionsUnder(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (existsSync(join(p, 'timing'))) out.push(p);
        else walk(p);
      }
    }
  };
  walk(root);
  return out.sort();
}

describe.skipIf(!enabled)('sudo_sendlog -> evio logsrvd -> sudoreplay', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ commitIntervalMs: 200 });
  });
  afterAll(async () => {
    await t?.close();
  });

  let samplesSent = 0;
  const samples = [...sessionsUnder(join(SAMPLES, 'sudo-io')).map((p) => ({ root: join(SAMPLES, 'sudo-io'), p })), ...sessionsUnder(join(SAMPLES, 'logsrvd-io')).map((p) => ({ root: join(SAMPLES, 'logsrvd-io'), p }))];

  it('finds the sample sessions', () => {
    expect(samples.length).toBeGreaterThanOrEqual(10);
  });

  it.each(samples.map((s) => [relative(SAMPLES, s.p), s] as const))('%s arrives whole: sudoreplay plays it byte for byte', async (_name, s) => {
    const before = events(t.settings).length;
    const res = await sendlog(t.port, [], s.p);
    samplesSent++;
    // The completion marker follows the final commit point (docs/logserver.md).
    await settled(t);
    expect(res.stderr).toBe('');
    expect(res.stdout).toMatch(/1 I\/O log transmitted successfully/);
    expect(res.code).toBe(0);
    const recs = events(t.settings).slice(before);
    expect(recs.map((r) => r.etype)).toEqual(['K', 'F']);
    const [k, f] = recs as [Record<string, unknown>, Record<string, unknown>];
    expect(f.uniqueid).toBe(k.uniqueid);
    const stored = k.iolog as string;
    expect(stored.startsWith(`${t.root}/`)).toBe(true);
    // Complete: the timing file has lost its write bits.
    expect(statSync(join(stored, 'timing')).mode & 0o222).toBe(0);
    const mine = await replay(t.root, relative(t.root, stored));
    const theirs = await replay(s.root, relative(s.root, s.p));
    expect(mine.stderr).toBe(theirs.stderr);
    expect(Buffer.from(mine.stdout, 'latin1').equals(Buffer.from(theirs.stdout, 'latin1'))).toBe(true);
    // sudoreplay exits 1 on a session without records (00/00/07: `true` printed nothing), on both.
    expect(mine.code).toBe(theirs.code);
    const json = JSON.parse(readFileSync(join(stored, 'log.json'), 'utf8')) as Record<string, unknown>;
    expect(json.uuid).toBe(k.uniqueid);
    expect(json).toHaveProperty('exit_value');
  });

  it('sudoreplay -l lists every session received, with its user, host and command', async () => {
    const res = await run(SUDOREPLAY, ['-d', t.root, '-l']);
    expect(res.code).toBe(0);
    const lines = res.stdout.trim().split('\n');
    expect(lines.length).toBe(samplesSent);
    expect(lines.every((l) => / : root : HOST=\S+ ; .*TSID=\S+ ; COMMAND=\//.test(l) || / : \w+ : .*COMMAND=\//.test(l))).toBe(true);
  });

  it('takes sudo_sendlog -t 16: sixteen connections at once, every session whole and complete', async () => {
    const before = events(t.settings).length;
    const src = join(SAMPLES, 'logsrvd-io/00/00/01');
    const res = await sendlog(t.port, ['-t', '16'], src);
    await settled(t);
    expect(res.stdout).toMatch(/16 I\/O logs transmitted successfully/);
    expect(res.code).toBe(0);
    const recs = events(t.settings).slice(before);
    const ks = recs.filter((r) => r.etype === 'K');
    expect(ks.length).toBe(16);
    expect(recs.filter((r) => r.etype === 'F').length).toBe(16);
    expect(new Set(ks.map((r) => r.iolog)).size).toBe(16);
    const theirs = await replay(join(SAMPLES, 'logsrvd-io'), '00/00/01');
    for (const k of ks) {
      const dir = k.iolog as string;
      expect(statSync(join(dir, 'timing')).mode & 0o222).toBe(0);
      const mine = await replay(t.root, relative(t.root, dir));
      expect(mine.stdout === theirs.stdout).toBe(true);
    }
    // Not counted in the per-sample rows below.
    samplesSent += 16;
  });

  it('records the exit of a session whose log.json has no run time (sudo_logsrvd refuses it)', () => {
    const recs = events(t.settings);
    const finishes = recs.filter((r) => r.etype === 'F');
    expect(finishes.length).toBe(samplesSent);
    expect(finishes.some((r) => r.run_time_unknown === true)).toBe(true);
    expect(finishes.every((r) => typeof r.exitstatus === 'string' && /^Command (finished|killed)/.test(r.exitstatus))).toBe(true);
  });
});
