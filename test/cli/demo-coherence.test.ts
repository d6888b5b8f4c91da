// The demo's data hangs together (issue "An auditor's day", point 9): every keystroke event
// names a recorded session whose users, hosts and uuid are the event's, every recorded session
// is some keystroke event's, and a session links back to its accept and finish events.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const BIN = new URL('../../bin/evio.js', import.meta.url).pathname;

describe('evio demo', () => {
  it('writes events and sessions that describe each other', () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'evio-demo-')));
    try {
      const env = { ...process.env, EVIO_HOME: home };
      const demo = spawnSync(process.execPath, [BIN, 'demo', '--count', '3000'], { encoding: 'utf8', env });
      expect(demo.status, demo.stderr).toBe(0);
      const events = readFileSync(join(home, 'events.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      const ks = events.filter((e) => e.etype === 'K');
      expect(ks.length).toBeGreaterThan(10);
      for (const k of ks) {
        const logJson = join(String(k.iolog), 'log.json');
        expect(existsSync(logJson), String(k.iolog)).toBe(true);
        const v = JSON.parse(readFileSync(logJson, 'utf8')) as Record<string, unknown>;
        expect([v.submituser, v.submithost, v.runuser, v.uuid]).toEqual([k.submituser, k.submithost, k.runuser, k.uniqueid]);
        // Its end is its finish event's, as sudo_logsrvd records it (exit_value).
        const fin = events.find((e) => e.etype === 'F' && e.uniqueid === k.uniqueid);
        expect(v.exit_value).toBe(fin ? fin.exitcode : undefined);
      }
      // The session list holds exactly the keystroke events' sessions: no session without its event.
      const list = spawnSync(process.execPath, [BIN, 'iolog', 'list', '--len', '10000', '--json'], { encoding: 'utf8', env });
      const listed = (JSON.parse(list.stdout) as { result: { logpath: string }[] }).result.map((r) => resolve(home, 'iolog', r.logpath)).sort();
      expect(listed).toEqual(ks.map((k) => String(k.iolog)).sort());
      // A session leads back to its accept and finish records.
      const first = ks.find((k) => events.some((e) => e.etype === 'F' && e.uniqueid === k.uniqueid))!;
      const back = spawnSync(process.execPath, [BIN, 'iolog', 'events', String(first.iolog)], { encoding: 'utf8', env });
      const linked = JSON.parse(back.stdout) as { match: string; events: { etype: string; uniqueid: string }[] };
      expect(linked.match).toBe('uniqueid');
      expect(linked.events.map((e) => [e.etype, e.uniqueid])).toEqual([['K', first.uniqueid], ['F', first.uniqueid]]);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }, 300_000);
});
