// A flat-file append that cannot be written (disk full, file-size limit) is all-or-nothing: the
// file is cut back to its size before the append, the error (1209) says no record was appended,
// and sending the same records again appends each exactly once.
//
// Two real write failures:
// - ENOSPC on a small tmpfs (mounting needs root; without it the test says why and is skipped);
// - EFBIG under a file-size limit (ulimit -f) in a child process: deterministic, no root needed.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isEvioError } from '../../src/errors.js';
import { FlatFileStore } from '../../src/eventlog/flatfile/index.js';
import type { NewEvent } from '../../src/eventlog/types.js';
import { collect, query, tempDir } from '../eventlog/flatfile/helpers.js';

const tmp = tempDir('evio-sec-append-');
const mounts: string[] = [];
afterAll(() => {
  for (const m of mounts) spawnSync('umount', [m]);
  tmp.cleanup();
});

const ROOT = resolve(import.meta.dirname, '../..');
const BUILD = join(ROOT, 'dist');

function events(n: number, from: number, pad: number): NewEvent[] {
  return Array.from({ length: n }, (_, i) => ({ uniqueid: `u${from + i}`, etype: 'A' as const, time: 1_700_000_000 + i, submituser: 'alice', runcommand: '/bin/true', runargv: ['true', 'x'.repeat(pad)] }));
}

async function codeOf(p: Promise<unknown>): Promise<number | string> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    return isEvioError(err) ? err.code : String(err);
  }
}

/** Mounts a tmpfs of `size` on a new folder, or returns why it cannot. */
function mountTmpfs(size: string): { dir: string } | { why: string } {
  const dir = join(tmp.dir, `mnt-${mounts.length}`);
  mkdirSync(dir);
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { encoding: 'utf8' });
  if (r.status !== 0) return { why: `mount -t tmpfs is not permitted here (${(r.stderr || r.error?.message || `exit ${r.status}`).trim()})` };
  mounts.push(dir);
  return { dir };
}

describe('a failed append is undone', () => {
  it('disk full (ENOSPC on a 1 MiB tmpfs): nothing of the batch stays, a resend appends it once', async (ctx) => {
    const m = mountTmpfs('1m');
    if ('why' in m) {
      console.log(`skipped: ${m.why}`);
      return ctx.skip();
    }
    const path = join(m.dir, 'log.ndjson');
    const store = new FlatFileStore({ path });
    expect(await store.append(events(100, 0, 100))).toMatchObject({ first: 1, last: 100, count: 100 });
    const before = readFileSync(path);

    // ~1.5 MB: several write batches go in before the disk is full.
    const big = events(3000, 100, 500);
    expect(await codeOf(store.append(big))).toBe(1209);
    expect(readFileSync(path).equals(before)).toBe(true);
    const rows = await collect(store.query(query({ dump: true })));
    expect(rows.map((r) => r.rec.recnum)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(store.stats.malformed).toBe(0);

    // The same records again, fewer so that they fit: each is appended exactly once.
    const fits = big.slice(0, 1000);
    expect(await store.append(fits)).toMatchObject({ first: 101, last: 1100, count: 1000 });
    const after = await collect(store.query(query({ dump: true })));
    expect(after.length).toBe(1100);
    expect(new Set(after.map((r) => r.rec.uniqueid)).size).toBe(1100);
    expect(after.map((r) => r.rec.recnum)).toEqual(Array.from({ length: 1100 }, (_, i) => i + 1));
    expect(store.stats.malformed).toBe(0);
  });

  it('a torn last line is left as it was when the append fails (the seal is undone too)', async (ctx) => {
    const m = mountTmpfs('256k');
    if ('why' in m) {
      console.log(`skipped: ${m.why}`);
      return ctx.skip();
    }
    const path = join(m.dir, 'log.ndjson');
    const store = new FlatFileStore({ path });
    await store.append(events(10, 0, 10));
    writeFileSync(path, '{"recnum":11,"uniqueid":"torn"', { flag: 'a' });
    const before = readFileSync(path);
    expect(await codeOf(store.append(events(2000, 10, 300)))).toBe(1209);
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  it('file-size limit (EFBIG under ulimit -f, in a child): the file keeps its size, a resend appends once', () => {
    if (!existsSync(join(BUILD, 'eventlog/flatfile/index.js'))) throw new Error('dist/ is missing: run npm run build first');
    const dir = join(tmp.dir, 'limited');
    mkdirSync(dir);
    const path = join(dir, 'log.ndjson');
    const child = join(import.meta.dirname, 'children/append-limited.mjs');
    // 256 KiB limit (ulimit -f counts 1024-byte blocks); the child appends under it.
    const run = (count: number, pad: number, first: number) => {
      const r = spawnSync('bash', ['-c', 'ulimit -f 256 && exec "$0" "$@"', process.execPath, child, BUILD, path, String(count), String(pad), String(first)], { encoding: 'utf8', timeout: 30_000 });
      expect(r.status, r.stderr).toBe(0);
      return JSON.parse(r.stdout.trim().split('\n').pop()!) as { ok?: { first: number; last: number; count: number }; code?: number; message?: string };
    };
    expect(run(100, 100, 0).ok).toMatchObject({ first: 1, last: 100, count: 100 });
    const size = statSync(path).size;
    const before = readFileSync(path);

    // ~600 KB: past the limit in the second write batch.
    const failed = run(1200, 400, 100);
    expect(failed.code).toBe(1209);
    expect(failed.message).toMatch(/^1209 .*EFBIG.*no record was appended/);
    expect(statSync(path).size).toBe(size);
    expect(readFileSync(path).equals(before)).toBe(true);

    // The first 200 of them again: they fit, and nothing is duplicated.
    expect(run(200, 400, 100).ok).toMatchObject({ first: 101, last: 300, count: 200 });
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as { recnum: number; uniqueid: string });
    expect(lines.map((l) => l.recnum)).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
    expect(lines.map((l) => l.uniqueid)).toEqual(Array.from({ length: 300 }, (_, i) => `u${i}`));
    rmSync(dir, { recursive: true, force: true });
  });
});
