// kill -9 of `evio logsrvd` while 20 sudo_sendlog clients stream: every commit point a client
// received before the kill is on disk after the restart (the stored records up to it equal the
// original's), and `sudo_sendlog -r POINT -i ID` completes each session byte for byte.
// Event-driven: the kill comes once every session has synced data on disk; no time windows.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { makeSession, replay, sendlog, sudoToolsAvailable, type Run } from './helpers.js';

const enabled = sudoToolsAvailable();
const BIN = fileURLToPath(new URL('../../bin/evio.js', import.meta.url));
const CLIENTS = 20;

/** log id -> session directory, from the server's log lines ("logsrvd session"). */
const sessionDirs = new Map<string, string>();

function startServer(config: string, home: string): Promise<{ child: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, '--config', config, 'logsrvd', '--listen', '127.0.0.1:0'], { env: { ...process.env, EVIO_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stderr!.on('data', (b: Buffer) => {
      err += b.toString();
      let nl: number;
      while ((nl = err.indexOf('\n')) >= 0) {
        const line = err.slice(0, nl);
        err = err.slice(nl + 1);
        if (!line.includes('"logsrvd session"')) continue;
        const e = JSON.parse(line) as { logId: string; dir: string };
        sessionDirs.set(e.logId, e.dir);
      }
    });
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /listening on 127\.0\.0\.1:(\d+)/.exec(out);
      if (m) resolve({ child, port: Number(m[1]) });
    });
    child.once('exit', (code) => reject(new Error(`evio logsrvd exited ${code}: ${out}`)));
  });
}

/** Timing lines of a session as [line, delay ns]. */
function timingLines(dir: string): string[] {
  if (!existsSync(join(dir, 'timing'))) return [];
  return readFileSync(join(dir, 'timing'), 'latin1').split('\n').filter((l) => l !== '');
}

function delayNs(line: string): number {
  const d = line.split(' ')[1]!;
  const [s, f = ''] = d.split('.');
  return Number(s) * 1e9 + Number(f.padEnd(9, '0').slice(0, 9));
}

async function until(pred: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(!enabled)('kill -9 while 20 clients stream', () => {
  const work = mkdtempSync(join(tmpdir(), 'evio-kill-'));
  let child: ChildProcess | null = null;
  afterAll(() => {
    child?.kill('SIGKILL');
    rmSync(work, { recursive: true, force: true });
  });

  it('keeps every acknowledged commit point and resumes every session', async () => {
    const home = join(work, 'home');
    const config = join(work, 'evio.json');
    // Each connection is held to 200 kB/s, so the 20 transfers of ~0.6 MB are in flight when the kill comes.
    writeFileSync(config, JSON.stringify({ home, logsrvd: { commitIntervalMs: 50, maxBytesPerSecond: 200_000 } }));
    const sources = Array.from({ length: CLIENTS }, (_, i) => {
      const dir = join(work, `src-${i}`);
      makeSession(dir, { records: 300, bytes: 2000, delayNs: 3_000_000, runTime: i % 2 === 0, seed: i + 1 });
      return dir;
    });
    const first = await startServer(config, home);
    child = first.child;
    const root = join(home, 'iolog');
    const runs: Promise<Run>[] = sources.map((s) => sendlog(first.port, [], s));
    // The kill comes once every session has a timing file with synced records in it.
    await until(() => {
      // Session directories are XX/XX/XX under the root.
      let n = 0;
      for (const a of existsSync(root) ? readdirSync(root) : []) {
        if (!/^[0-9A-Z]{2}$/.test(a)) continue;
        for (const b of readdirSync(join(root, a))) {
          for (const c of readdirSync(join(root, a, b))) {
            const t = join(root, a, b, c, 'timing');
            if (existsSync(t) && statSync(t).size > 0) n++;
          }
        }
      }
      return n === CLIENTS;
    }, 60_000, 'every session to have synced data');
    child.kill('SIGKILL');
    const results = await Promise.all(runs);
    child = null;

    const second = await startServer(config, home);
    child = second.child;
    let resumedCount = 0;
    for (const [i, res] of results.entries()) {
      const logId = /Remote log ID: (\S+)/.exec(res.stdout)?.[1];
      expect(logId, `client ${i}: ${res.stdout} ${res.stderr}`).toBeDefined();
      const src = sources[i]!;
      let dir: string;
      if (res.code === 0) {
        // Finished before the kill: its commit point was the whole session.
        const k = readFileSync(join(home, 'events.ndjson'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>).find((r) => r.etype === 'K' && String(r.iolog).length > 0 && existsSync(join(String(r.iolog), 'log.json')) && readFileSync(join(String(r.iolog), 'log.json'), 'utf8').includes(`"seconds": 1795315409`));
        expect(k).toBeDefined();
        continue;
      }
      const m = /commit point received from server \[(\d+), (\d+)\]/.exec(res.stderr);
      expect(m, res.stderr).not.toBeNull();
      const point = Number(m![1]) * 1e9 + Number(m![2]);
      dir = sessionDirs.get(logId!)!;
      expect(dir, `client ${i}: the server logged no session for its log id`).toBeDefined();
      // Everything up to the acknowledged point is on disk, exactly as sent.
      const stored = timingLines(dir);
      const original = timingLines(src);
      let sum = 0;
      let n = 0;
      let bytes = 0;
      while (sum < point) {
        expect(stored[n], `client ${i}: record ${n} below the commit point ${point} is missing`).toBe(original[n]);
        sum += delayNs(original[n]!);
        if (original[n]!.startsWith('4 ')) bytes += Number(original[n]!.split(' ')[2]);
        n++;
      }
      expect(sum).toBe(point);
      expect(readFileSync(join(dir, 'ttyout')).subarray(0, bytes).equals(readFileSync(join(src, 'ttyout')).subarray(0, bytes))).toBe(true);
      if (point === 0) {
        // Nothing was acknowledged (sudo_sendlog cannot resume from 0,0): the client sends the
        // session again from its start, as a new one.
        const again = await sendlog(second.port, [], src);
        expect(again.code, again.stderr).toBe(0);
        continue;
      }
      const resumed = await sendlog(second.port, ['-r', `${m![1]},${m![2]}`, '-i', logId!], src);
      expect(resumed.code, resumed.stderr).toBe(0);
      resumedCount++;
      const mine = await replay(join(home, 'iolog'), relative(join(home, 'iolog'), dir));
      const theirs = await replay(work, relative(work, src));
      expect(mine.stdout === theirs.stdout, `client ${i}: replay differs`).toBe(true);
    }
    expect(resumedCount).toBeGreaterThan(0);
  });
});
