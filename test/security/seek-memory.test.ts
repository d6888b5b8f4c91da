// Issue 28 point 7: the seek index build and the screen answer hold under a session made to
// blow them up — 16 MiB of random text on a 2000 × 1000 screen (the largest the model takes).
// Before, every keyframe snapshotted the huge screen every 256 KiB and 32 of them waited in
// memory for their write: the build's peak grew by 312 MB and the index held 301 MB of
// keyframes for 16 MiB of data; `cells=1` answered 2 million cells (some 35 MB of JSON). The
// work runs in a child process (the worker tasks in-process, no pool) whose peak RSS is
// measured around it.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/common/package-root.js';
import { SCREEN_CELLS_MAX } from '../../src/iolog/limits.js';

const CHILD = resolve(import.meta.dirname, 'heavy-memory-child.mjs');
const DIST = join(packageRoot(), 'dist');
const DATA_BYTES = 16 * 1024 * 1024;

/** A sudo session of `bytes` random printable text (a seeded generator) on a cols × rows tty. */
export function randomTextSession(dir: string, bytes: number, cols: number, rows: number): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'log'), `1795315409:root:nobody::/dev/pts/0:${rows}:${cols}\n/tmp\n/bin/x\n`);
  const rec = 4096;
  const out = Buffer.alloc(bytes);
  let x = 0x9e3779b9;
  for (let i = 0; i < bytes; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = 0x20 + ((x >>> 0) % 95);
  }
  writeFileSync(join(dir, 'ttyout'), out);
  writeFileSync(join(dir, 'timing'), Array.from({ length: Math.ceil(bytes / rec) }, () => `4 0.001 ${rec}`).join('\n') + '\n');
}

interface ChildReport {
  baselineKB: number;
  peakKB: number;
  answers: Array<{ ok: boolean; value?: Record<string, unknown>; name?: string; detail?: string }>;
}

function runChild(root: string, seekFile: string, ops: unknown[]): ChildReport {
  const r = spawnSync(process.execPath, ['--expose-gc', CHILD, DIST, root, seekFile, 'small', 'big', JSON.stringify(ops)], { encoding: 'utf8', timeout: 300_000, maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`child failed (${r.status} ${r.signal}): ${r.stderr.slice(0, 2000)}`);
  return JSON.parse(r.stdout) as ChildReport;
}

let dir: string;
beforeAll(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'evio-seekmem-')));
  randomTextSession(join(dir, 'big'), DATA_BYTES, 2000, 1000);
  randomTextSession(join(dir, 'small'), 64 * 1024, 80, 24);
}, 120_000);
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('seek index build and screen answer on a 2000 × 1000 screen', () => {
  it('builds the index with bounded memory and keyframe bytes', () => {
    const seekFile = join(dir, 'a-seek.sqlite');
    const r = runChild(dir, seekFile, [{ seekIndex: true }]);
    const growthMB = (r.peakKB - r.baselineKB) / 1024;
    expect(r.answers[0]).toMatchObject({ ok: true, value: { action: 'built', bytes: DATA_BYTES } });
    // Observed (2-core VM): 104 MB after (the 2000 × 1000 screen with its scrollback, one
    // snapshot being made, one batch of keyframes); 312 MB before.
    expect(growthMB, `peak RSS growth ${growthMB.toFixed(1)} MB`).toBeLessThan(200);
    const db = new Database(seekFile, { readonly: true });
    try {
      const { n, total } = db.prepare('SELECT count(*) AS n, sum(length(snap)) AS total FROM keyframes').get() as { n: number; total: number };
      // Keyframes are spaced by at least their own size in data: observed 6 keyframes, 19 MB
      // after; 63 keyframes, 301 MB before.
      expect(n).toBeGreaterThan(0);
      expect(total, `${n} keyframes`).toBeLessThan(2 * DATA_BYTES);
    } finally {
      db.close();
    }
    expect(statSync(seekFile).size).toBeLessThan(3 * DATA_BYTES);
  }, 600_000);

  it('answers cells=1 by windows of rows: the whole screen is refused with 1468', () => {
    const seekFile = join(dir, 'b-seek.sqlite');
    const rows = Math.floor(SCREEN_CELLS_MAX / 2000);
    const r = runChild(dir, seekFile, [{ screen: { cells: true } }, { screen: { cells: true, cellRows: { first: 800, last: 800 + rows - 1 } } }, { screen: {} }]);
    expect(r.answers[0]).toMatchObject({ ok: false, name: 'IOLOG_SCREEN_CELLS_TOO_MANY' });
    expect(r.answers[0]!.detail).toMatch(/ask for at most 125 rows at a time with cellrows=FIRST-LAST/);
    expect(r.answers[1]).toMatchObject({ ok: true, value: { cols: 2000, rows: 1000, cells: rows, cellRows: { first: 800, last: 800 + rows - 1 } } });
    // Without cells the answer is as before (text rows and repaint only).
    expect(r.answers[2]).toMatchObject({ ok: true, value: { cols: 2000, rows: 1000 } });
    expect(r.answers[2]!.value!.cells).toBeUndefined();
  }, 600_000);
});
