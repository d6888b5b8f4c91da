// Faults not covered elsewhere (issue 9, part 3):
// - a full disk during a flat-file rewrite (delete): on a 2 MiB tmpfs when this process may mount
//   one (root), else ENOSPC injected into the rewrite's writes through a mocked node:fs/promises
//   (the same error the kernel gives, raised where the rewrite writes its temp file). After it the
//   original file is intact byte for byte, no temp file is left, and the next operations succeed.
// - a truncated, a garbage and a header-only SQLite event log answer 1206 over HTTP (not a crash),
//   and a corrupt I/O log index answers 1409 until it is removed; the service keeps serving.
// Torn flat-file lines, kill -9 during writes and truncated gzip streams are tested in
// test/eventlog/flatfile, test/jobs/kill.test.ts and test/iolog/reader-edge.test.ts.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { isEvioError } from '../../src/errors.js';
import { FlatFileStore } from '../../src/eventlog/flatfile/index.js';
import { generateEvents } from '../../src/eventlog/generate.js';
import { parseEventDelete, parseEventQuery } from '../../src/eventlog/query.js';
import { openStoreByName } from '../../src/eventlog/stores.js';
import type { RunningServer } from '../../src/http/server.js';
import { generateSessions } from '../../src/iolog/generate-sessions.js';
import { makeHome, serve, signed, type Answer, type TestHome } from '../http/server/helpers.js';

// Fallback fault injection: only active when the test sets the flag (no tmpfs could be mounted).
const inject = vi.hoisted(() => ({ enospc: false, hits: 0 }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  const open: typeof real.open = async (path, flags, mode) => {
    const fh = await real.open(path, flags, mode);
    if (!inject.enospc || !String(path).includes('.tmp-')) return fh;
    const fail = async () => {
      inject.hits++;
      throw Object.assign(new Error(`ENOSPC: no space left on device, write`), { code: 'ENOSPC', errno: -28, syscall: 'write' });
    };
    return new Proxy(fh, {
      get(target, prop, receiver) {
        if (prop === 'write' || prop === 'writev' || prop === 'writeFile' || prop === 'appendFile') return fail;
        const v = Reflect.get(target, prop, receiver) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
  };
  return { ...real, default: { ...real, open }, open };
});

function ndjson(count: number, seed: number): string {
  const lines: string[] = [];
  for (const rec of generateEvents({ count, seed })) lines.push(JSON.stringify(rec));
  return `${lines.join('\n')}\n`;
}

function tryMountTmpfs(dir: string, size: string): boolean {
  // EVIO_TEST_NO_TMPFS=1 forces the injected ENOSPC path (to test it on a machine that can mount).
  if (process.env.EVIO_TEST_NO_TMPFS === '1' || process.platform !== 'linux' || process.getuid?.() !== 0) return false;
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('a full disk during a flat-file delete (rewrite)', () => {
  let dir: string;
  let mounted = false;
  beforeAll(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'evio-enospc-')));
    mounted = tryMountTmpfs(dir, '2m');
    if (!mounted) inject.enospc = true;
  });
  afterAll(() => {
    inject.enospc = false;
    if (mounted) execFileSync('umount', [dir]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('fails with 1202, leaves the file byte for byte and no temp file, and the next operations succeed', async () => {
    const log = join(dir, 'events.ndjson');
    // About 0.9 MiB of log plus a 0.6 MiB filler: the rewrite's copy cannot fit in the 2 MiB.
    let text = '';
    for (let n = 500; n < 20_000 && Buffer.byteLength(text) < 900 * 1024; n += 500) text = ndjson(n, 21);
    writeFileSync(log, text);
    const filler = join(dir, 'filler');
    writeFileSync(filler, Buffer.alloc(600 * 1024, 1));
    const before = readFileSync(log);
    const store = new FlatFileStore({ path: log, lockTimeoutMs: 5000 });
    const victim = JSON.parse(text.split('\n')[0]!) as { uniqueid: string };
    const { filter } = parseEventDelete({ format: 'ff', file: log, uniqueid: victim.uniqueid });

    let failure: unknown = null;
    try {
      await store.delete(filter);
    } catch (err) {
      failure = err;
    }
    console.log(`full disk: ${mounted ? 'tmpfs size=2m' : 'injected ENOSPC (no tmpfs mount)'}, log ${before.length} bytes, delete failed with: ${(failure as Error | null)?.message}`);
    expect(isEvioError(failure, 'STORE_IO')).toBe(true);
    expect(String((failure as Error).message)).toMatch(/ENOSPC|no space/i);
    expect(readFileSync(log).equals(before)).toBe(true);
    expect(readdirSync(dir).filter((n) => n.includes('.tmp-'))).toEqual([]);
    expect(readdirSync(dir).sort()).toEqual(['events.ndjson', 'filler']);

    // The next operations succeed: a query, an append, and (with space again) the same delete.
    const q = parseEventQuery({ format: 'ff', file: log, dump: '1', limit: '100000' });
    let rows = 0;
    for await (const _row of store.query(q.query)) rows++;
    expect(rows).toBe(text.split('\n').length - 1);
    const appended = await store.append([{ etype: 'R', time: 1_900_000_000, uniqueid: 'after-enospc', submituser: 'u', submithost: 'h', runuser: 'root', runhost: 'h', runcommand: '/bin/true', runargv: ['true'], reason: 'test' }]);
    expect(appended.count).toBe(1);
    inject.enospc = false;
    rmSync(filler);
    const res = await store.delete(filter);
    expect(res.deleted).toBeGreaterThanOrEqual(1);
    const after = readFileSync(log, 'utf8');
    expect(after.includes(`"uniqueid":"${victim.uniqueid}"`)).toBe(false);
    expect(after.includes('"uniqueid":"after-enospc"')).toBe(true);
    expect(readdirSync(dir).filter((n) => n.includes('.tmp-'))).toEqual([]);
    if (!mounted) expect(inject.hits).toBeGreaterThan(0);
    await store.close();
  }, 60_000);
});

describe('corrupt and truncated database files over HTTP', () => {
  let home: TestHome;
  let server: RunningServer;
  function expectCode(a: Answer, code: number, http: number): void {
    expect({ http: a.http, status: a.body.status }).toEqual({ http, status: code });
    expect(String(a.body.error)).toMatch(new RegExp(`^${code} `));
  }
  beforeAll(async () => {
    home = makeHome();
    const good = join(home.dir, 'good.sqlite');
    const db = await openStoreByName(home.engine, `db:${good}`);
    await db.append(generateEvents({ count: 20_000, seed: 31 }));
    await db.close();
    await home.engine.close();
    const bytes = readFileSync(good);
    writeFileSync(join(home.dir, 'truncated.sqlite'), bytes);
    truncateSync(join(home.dir, 'truncated.sqlite'), Math.floor(statSync(good).size / 2));
    writeFileSync(join(home.dir, 'header-only.sqlite'), bytes.subarray(0, 4096));
    writeFileSync(join(home.dir, 'garbage.sqlite'), 'this is not a database\n'.repeat(300));
    mkdirSync(join(home.dir, 'iolog'), { recursive: true });
    generateSessions({ count: 3, seed: 32, out: join(home.dir, 'iolog') });
    writeFileSync(home.settings.iologcache, 'not an sqlite index\n'.repeat(100));
    const { Engine } = await import('../../src/engine.js');
    home.engine = new Engine(home.settings);
    server = await serve(home);
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await home?.cleanup();
  });

  it('a truncated SQLite log answers 1206 (malformed) for queries, ordered queries and deletes', async () => {
    for (const q of ['limit=5', 'limit=100000', 'order=time&orderdirection=desc&limit=5']) {
      const a = await signed(server, 'admin', 'GET', `/REST/v2.0/events?format=db&file=truncated.sqlite&${q}`);
      expectCode(a, 1206, 500);
      expect(String(a.body.error)).toMatch(/malformed|SQLITE_CORRUPT/);
    }
    expectCode(await signed(server, 'admin', 'DELETE', '/REST/v2.0/events?format=db&file=truncated.sqlite&runuser=root'), 1206, 500);
  });
  it('a header-only SQLite file answers 1206', async () => {
    expectCode(await signed(server, 'admin', 'GET', '/REST/v2.0/events?format=db&file=header-only.sqlite&limit=5'), 1206, 500);
  });
  it('a file that is not SQLite answers 1200 (not an event database) and is left as it was', async () => {
    const before = readFileSync(join(home.dir, 'garbage.sqlite'));
    const a = await signed(server, 'admin', 'GET', '/REST/v2.0/events?format=db&file=garbage.sqlite&limit=5');
    expectCode(a, 1200, 404);
    expect(String(a.body.error)).toMatch(/is not an SQLite event database/);
    expect(readFileSync(join(home.dir, 'garbage.sqlite')).equals(before)).toBe(true);
  });
  it('a corrupt I/O log index answers 1409; once removed, the list is rebuilt', async () => {
    expectCode(await signed(server, 'admin', 'GET', '/REST/iolog/list'), 1409, 500);
    rmSync(home.settings.iologcache, { force: true });
    // The same running service recovers: the next call builds a new index.
    const again = await signed(server, 'admin', 'GET', '/REST/iolog/list');
    expect(again.body.status).toBe(0);
    expect((again.body.result as unknown[]).length).toBe(3);
  });
  it('the service still answers the intact database and a chunk afterwards', async () => {
    const a = await signed(server, 'admin', 'GET', '/REST/v2.0/events?format=db&file=good.sqlite&limit=3');
    expect(a.body.status).toBe(0);
    expect((a.body.events as unknown[]).length).toBe(3);
    const c = await signed(server, 'admin', 'GET', '/REST/iolog?file=00/00/01&start=0&len=64');
    expect(c.body.status).toBe(0);
  });
});
