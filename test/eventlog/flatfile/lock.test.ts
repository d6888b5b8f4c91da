// The writer lock: exclusion, timeout naming the holder, takeover of dead holders' locks.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isEvioError } from '../../../src/errors.js';
import { FileLock, holderIsDead, processStartTime } from '../../../src/common/file-lock.js';
import { tempDir } from './helpers.js';

const tmp = tempDir('evio-lock-');
afterAll(() => tmp.cleanup());
let n = 0;
const fresh = () => join(tmp.dir, `f-${n++}.ndjson`);

/** The pid of a process that has exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(r.stdout.toString());
}

describe('FileLock', () => {
  it('creates <file>.lock naming its holder and removes it on release', async () => {
    const file = fresh();
    const lock = new FileLock(file, { timeoutMs: 1000 });
    const held = await lock.acquire();
    const info = JSON.parse(readFileSync(`${file}.lock`, 'utf8'));
    expect(info).toMatchObject({ pid: process.pid, host: hostname(), token: held.info.token });
    expect(info.procStart).toBe(processStartTime(process.pid));
    expect(held.tookOver).toBe(false);
    await held.release();
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it('waits for a live holder, then STORE_LOCK_TIMEOUT naming it', async () => {
    const file = fresh();
    writeFileSync(`${file}.lock`, JSON.stringify({ pid: process.pid, host: hostname(), since: Date.now(), procStart: processStartTime(process.pid), token: 'other' }));
    const t0 = Date.now();
    const err = await new FileLock(file, { timeoutMs: 300 }).acquire().catch((e: unknown) => e);
    expect(isEvioError(err, 'STORE_LOCK_TIMEOUT')).toBe(true);
    expect((err as Error).message).toContain(`pid ${process.pid} on ${hostname()}`);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
  });

  it('a holder that releases lets the waiter in', async () => {
    const file = fresh();
    const a = new FileLock(file, { timeoutMs: 2000 });
    const b = new FileLock(file, { timeoutMs: 2000 });
    const held = await a.acquire();
    const order: string[] = [];
    const waiting = b.acquire().then((h) => {
      order.push('b');
      return h;
    });
    await new Promise((r) => setTimeout(r, 50));
    order.push('a releases');
    await held.release();
    await (await waiting).release();
    expect(order).toEqual(['a releases', 'b']);
  });

  it('takes over the lock of a dead process, and of a reused pid', async () => {
    const file = fresh();
    const dead = { pid: deadPid(), host: hostname(), since: 0, procStart: null, token: 'dead' };
    expect(holderIsDead(dead)).toBe(true);
    writeFileSync(`${file}.lock`, JSON.stringify(dead));
    const held = await new FileLock(file, { timeoutMs: 1000 }).acquire();
    expect(held.tookOver).toBe(true);
    await held.release();

    const reused = { pid: process.pid, host: hostname(), since: 0, procStart: 'not-my-start-time', token: 'reused' };
    expect(holderIsDead(reused)).toBe(processStartTime(process.pid) !== null);
    if (processStartTime(process.pid) !== null) {
      writeFileSync(`${file}.lock`, JSON.stringify(reused));
      const h2 = await new FileLock(file, { timeoutMs: 1000 }).acquire();
      expect(h2.tookOver).toBe(true);
      await h2.release();
    }
  });

  it('never takes over a lock of another host (it cannot tell), nor a fresh unreadable one', async () => {
    expect(holderIsDead({ pid: deadPid(), host: 'elsewhere.invalid', since: 0, procStart: null, token: 't' })).toBe(false);
    const file = fresh();
    writeFileSync(`${file}.lock`, '');
    await expect(new FileLock(file, { timeoutMs: 100 }).acquire()).rejects.toSatisfy((e) => isEvioError(e, 'STORE_LOCK_TIMEOUT'));
    // Unreadable and old: not written by evio (it writes locks whole), taken over.
    const old = (Date.now() - 60_000) / 1000;
    utimesSync(`${file}.lock`, old, old);
    const held = await new FileLock(file, { timeoutMs: 1000 }).acquire();
    expect(held.tookOver).toBe(true);
    await held.release();
  });

  it('a stealer that died holding its steal file is taken over too', async () => {
    const file = fresh();
    const lockPath = `${file}.lock`;
    writeFileSync(lockPath, JSON.stringify({ pid: deadPid(), host: hostname(), since: 0, procStart: null, token: 'gen1' }));
    writeFileSync(`${lockPath}.gen1.steal`, JSON.stringify({ pid: deadPid(), host: hostname(), since: 0, procStart: null, token: 'st1' }));
    const held = await new FileLock(file, { timeoutMs: 2000 }).acquire();
    expect(held.tookOver).toBe(true);
    await held.release();
    expect(existsSync(`${lockPath}.gen1.steal`)).toBe(false);
  });
});
