// The worker pool: aborting a running task terminates its thread at once, and the pool
// goes on serving.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine.js';
import { iologPool } from '../../src/worker/pool.js';
import { packageRoot, workerEntry } from '../../src/common/package-root.js';
import { makeEngine, removeDir, tempDir } from './helpers.js';

let root: string;
let engine: Engine;
beforeAll(() => {
  root = tempDir();
  const dir = join(root, 's');
  mkdirSync(dir);
  writeFileSync(join(dir, 'log'), '1795315409:root:nobody::/dev/pts/0:24:80\n/tmp\n/bin/x\n');
  const line = `${'a'.repeat(60)}!\r\n`;
  writeFileSync(join(dir, 'timing'), `4 0.1 ${line.length}\n`);
  writeFileSync(join(dir, 'ttyout'), line);
  engine = makeEngine([root], { workers: 1 });
});
afterAll(async () => {
  await engine.close();
  removeDir(root);
});

describe('worker pool', () => {
  it('loads dist/worker from the package root, sized by the workers setting', async () => {
    expect(workerEntry('iolog-tasks')).toBe(join(packageRoot(), 'dist', 'worker', 'iolog-tasks.js'));
    expect((await iologPool(engine)).size).toBe(1);
  });

  it('an abort stops a running task well before its regex budget, and the pool recovers', async () => {
    const pool = await iologPool(engine);
    const ac = new AbortController();
    const t0 = Date.now();
    const p = pool.run('searchSessions', { sessions: [{ kind: 'sudo', path: join(root, 's') }], streams: ['ttyout'], regex: '^(a+)+$', detail: false }, ac.signal);
    setTimeout(() => ac.abort(), 150);
    await expect(p).rejects.toMatchObject({ code: 1006 });
    expect(Date.now() - t0).toBeLessThan(900);
    const ok = await pool.run('searchSessions', { sessions: [{ kind: 'sudo', path: join(root, 's') }, { kind: 'sudo', path: join(root, 'missing') }, { kind: 'sudo', path: join(root, 's') }], streams: ['ttyout'], regex: 'a!$', detail: true }, undefined);
    // One result per session, in order; a session that cannot be read is a warning, not a failure.
    expect(ok.map((r) => [r.path, r.matched, r.warnings.length])).toEqual([[join(root, 's'), true, 0], [join(root, 'missing'), false, 1], [join(root, 's'), true, 0]]);
    expect(ok[0]).toMatchObject({ matched: true, matches: [{ stream: 'ttyout', time: 100, line: `${'a'.repeat(60)}!` }] });
  });

  it('a one-shot engine (the CLI) runs short reads in its own thread and starts a lane only for the rest', async () => {
    const oneShot = new Engine(engine.settings, { oneShot: true });
    try {
      const pool = await iologPool(oneShot);
      const v = await pool.run('variables', { roots: [root], file: 's' });
      expect('variables' in v && v.variables).toMatchObject({ runuser: 'nobody' });
      expect(await pool.run('ping', {})).toBe('pong');
      expect(pool.stats()).toEqual({ bulk: { threads: 0, queueSize: 0, utilization: 0 }, interactive: { threads: 0, queueSize: 0, utilization: 0 }, heavy: { threads: 0, queueSize: 0, utilization: 0 } });
      // A search is bulk work: it still runs in a worker thread.
      const found = await pool.run('searchSessions', { sessions: [{ kind: 'sudo', path: join(root, 's') }], streams: ['ttyout'], regex: 'a!', detail: false });
      expect(found.map((r) => r.matched)).toEqual([true]);
      expect(pool.stats().bulk.threads).toBeGreaterThan(0);
    } finally {
      await oneShot.close();
    }
  });
});
