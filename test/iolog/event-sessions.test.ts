// Events ↔ sessions: generated keystroke (K) records point at sessions that exist, with the
// event's uniqueid, users, hosts and command; a root bash session shows a shell at work (prompt,
// commands typed and echoed, their output); GET /REST/iolog/session resolves a K record's iolog.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateEventLog } from '../../src/app/generate.js';
import { seekRoutes } from '../../src/app/routes/seek.js';
import type { ApiResponse } from '../../src/app/types.js';
import { Engine } from '../../src/engine.js';
import { resolveEventSession } from '../../src/iolog/event-session.js';
import { seekScreen } from '../../src/iolog/seek.js';
import { loadSettings } from '../../src/settings.js';
import type { StoredEvent } from '../../src/eventlog/types.js';
import { removeDir, tempDir } from './helpers.js';

let home: string;
let root: string;
let events: StoredEvent[];
let engine: Engine;

beforeAll(async () => {
  home = tempDir('evio-evsess-');
  root = join(home, 'iolog');
  const res = await generateEventLog({ count: 4000, seed: 1, out: join(home, 'events.ndjson'), iologRoot: root, maxSessions: 80 });
  expect(res.sessions).toBeGreaterThan(40);
  events = readFileSync(res.path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as StoredEvent);
  engine = new Engine(loadSettings({ env: {}, cwd: home, overrides: { home, iologdirs: [root], iologcache: join(home, 'index.sqlite'), workers: 1 } }));
});
afterAll(async () => {
  await engine.close();
  removeDir(home);
});

describe('generated keystroke events and their sessions', () => {
  it('every K record points at a session with its uniqueid, users, hosts and command', async () => {
    const ks = events.filter((e) => e.etype === 'K');
    expect(ks.length).toBeGreaterThan(40);
    for (const k of ks) {
      const s = await resolveEventSession([root], k.iolog!);
      expect(s).toMatchObject({ uniqueid: k.uniqueid, submituser: k.submituser, submithost: k.submithost, runuser: k.runuser, runhost: k.runhost, format: 'sudo' });
      expect(s.runcmd.startsWith(k.runcommand!)).toBe(true);
      expect(Math.abs(s.start - k.time)).toBeLessThan(1);
      expect(s.file).toBe(`${k.submithost}/${k.submituser}/${k.uniqueid}`);
    }
  });

  it('a root bash session shows prompts, typed commands and their output', async () => {
    const shell = events.find((e) => e.etype === 'K' && e.runuser === 'root' && e.runcommand === '/bin/bash' && !e.runargv!.includes('-c'));
    expect(shell).toBeDefined();
    const s = await seekScreen([root], join(home, 'seek.sqlite'), { file: shell!.iolog!, atMs: Infinity });
    const text = s.lines.join('\n');
    const host = shell!.runhost!.split('.')[0];
    expect(text).toContain(`root@${host}:~# `);
    expect(text).toMatch(/root@\S+:~# (whoami|id|hostname|pwd|uptime|df -h|ls -la|systemctl status nginx|tail -n 5 \/var\/log\/auth.log|cat \/etc\/hosts|ps aux \| head -4|cat \/etc\/shadow)\n/);
    expect(text).toContain('# exit\nexit');
    expect(s.duration).toBeGreaterThan(3);
  });

  it('GET /REST/iolog/session resolves a K record, and refuses a missing session with 1454', async () => {
    const k = events.find((e) => e.etype === 'K')!;
    const route = seekRoutes.find((r) => r.path === '/iolog/session')!;
    const res: ApiResponse = await route.handler({ method: 'GET', path: '/iolog/session', query: { iolog: k.iolog! }, signal: new AbortController().signal }, engine);
    expect(res.kind).toBe('json');
    const body = (res as unknown as { body: { session: { uniqueid: string; file: string } } }).body;
    expect(body.session.uniqueid).toBe(k.uniqueid);
    await expect(route.handler({ method: 'GET', path: '/iolog/session', query: { iolog: join(root, 'no/such/session') }, signal: new AbortController().signal }, engine)).rejects.toThrow(/^1454 /);
  });
});
