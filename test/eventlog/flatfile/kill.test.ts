// Crash safety, shown by killing real writer processes (SIGKILL) at random moments:
// - an appender killed mid-append: the file still parses (at most a torn line per kill), every
//   append it acknowledged is there, the next writer takes the dead holder's lock over;
// - a deleter killed mid-rewrite: the file is byte for byte the old one or the new one, never a
//   mix, and the temp file it left is removed by the next writer;
// - an appender racing deletes that are killed at random: no acknowledged append is lost.
// The children run the store compiled by tsc into a temp dir (not dist/, which may be stale).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FlatFileStore } from '../../../src/eventlog/flatfile/flatfile-store.js';
import { filter, patterns, tempDir } from './helpers.js';
import { rng } from '../../helpers/rng.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const CHILDREN = join(import.meta.dirname, 'children');
const tmp = tempDir('evio-kill-');
const BUILD = join(tmp.dir, 'build');
const children = new Set<ChildProcess>();

beforeAll(() => {
  const tsc = join(ROOT, 'node_modules/.bin/tsc');
  const r = spawnSync(tsc, ['--ignoreConfig', '--outDir', BUILD, '--rootDir', join(ROOT, 'src'), '--module', 'NodeNext', '--moduleResolution', 'NodeNext', '--target', 'ES2022', '--skipLibCheck', '--types', 'node', join(ROOT, 'src/eventlog/flatfile/index.ts')], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`tsc failed: ${r.stdout}${r.stderr}`);
}, 120_000);

afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  tmp.cleanup();
});

/** A child whose stdout lines are collected; `waitFor` resolves when a line matches. */
function child(script: string, args: string[]) {
  const proc = spawn(process.execPath, [join(CHILDREN, script), BUILD, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(proc);
  const lines: string[] = [];
  let partial = '';
  let stderr = '';
  const waiters: Array<{ re: RegExp; resolve: () => void }> = [];
  proc.stdout!.on('data', (d: Buffer) => {
    partial += d.toString();
    const parts = partial.split('\n');
    partial = parts.pop()!;
    for (const l of parts) {
      lines.push(l);
      for (const w of [...waiters]) if (w.re.test(l)) w.resolve();
    }
  });
  proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
  return {
    proc,
    lines,
    stderr: () => stderr,
    exited,
    waitFor: (re: RegExp) =>
      new Promise<void>((res) => {
        if (lines.some((l) => re.test(l))) res();
        else waiters.push({ re, resolve: res });
      }),
    kill: async () => {
      proc.kill('SIGKILL');
      await exited;
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface FileCheck {
  recs: Map<number, { submituser?: string }>;
  malformed: number;
}

/** Parses the file the way a scan does; recnums must strictly increase. */
function checkFile(path: string): FileCheck {
  const text = readFileSync(path, 'utf8');
  const recs = new Map<number, { submituser?: string }>();
  let malformed = 0;
  let last = 0;
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  for (const l of lines) {
    let v: { recnum?: number; submituser?: string; etype?: string } | null = null;
    try {
      v = JSON.parse(l);
    } catch {
      malformed++;
      continue;
    }
    if (!v || typeof v.recnum !== 'number' || !v.etype) {
      malformed++;
      continue;
    }
    expect(v.recnum, 'recnums strictly increase').toBeGreaterThan(last);
    last = v.recnum;
    recs.set(v.recnum, v);
  }
  return { recs, malformed };
}

function acked(lines: string[]): number[] {
  return lines.filter((l) => l.startsWith('ack')).flatMap((l) => l.split(' ').slice(1).filter(Boolean).map(Number));
}

/** Files crashed writers leave: rewrite temp files, lock scratch and steal files. */
function leftovers(dir: string, onlyTemp = false): string[] {
  return readdirSync(dir).filter((f) => f.includes('.tmp-') || (!onlyTemp && (f.endsWith('.new') || f.endsWith('.steal'))));
}

describe('kill test', () => {
  it('an appender killed at random moments loses no acknowledged append', async () => {
    const dir = join(tmp.dir, 'append');
    spawnSync('mkdir', ['-p', dir]);
    const file = join(dir, 'events.ndjson');
    const rand = rng(11);
    const ack: number[] = [];
    let kills = 0;
    for (let round = 0; round < 10; round++) {
      const c = child('appender.mjs', [file, String(round + 1), '200']);
      await c.waitFor(/^ack/);
      await sleep(rand() * 300);
      await c.kill();
      kills++;
      ack.push(...acked(c.lines));
    }
    const { recs, malformed } = checkFile(file);
    console.log(`appender kill test: ${kills} kills, ${ack.length} acknowledged records, ${malformed} torn lines`);
    expect(ack.length).toBeGreaterThan(100);
    for (const r of ack) expect(recs.get(r)?.submituser, `acknowledged recnum ${r}`).toBe('keep');
    // At most one torn line per kill, sealed by the next appender.
    expect(malformed).toBeLessThanOrEqual(kills);
    // The next writer takes over whatever lock the last victim left.
    const s = new FlatFileStore({ path: file, lockTimeoutMs: 5000 });
    await s.append([{ uniqueid: 'after', etype: 'A', time: 1 }]);
    expect(existsSync(`${file}.lock`)).toBe(false);
    // A process killed while taking the lock may leave its scratch file; a delete (or a writer
    // that takes a dead holder's lock over) removes it.
    await s.delete(filter({ patterns: patterns({ uniqueid: 'nothing-matches' }) }));
    expect(leftovers(dir)).toEqual([]);
  }, 120_000);

  it('a deleter killed at random moments leaves the old file or the new one, never a mix', async () => {
    const dir = join(tmp.dir, 'delete');
    spawnSync('mkdir', ['-p', dir]);
    const original = join(dir, 'original.ndjson');
    const gen = spawnSync(process.execPath, [join(import.meta.dirname, 'scripts/gen-events.mjs'), '120000', '5', original]);
    expect(gen.status).toBe(0);
    const oldBytes = readFileSync(original);
    const hash = (b: Buffer) => createHash('sha256').update(b).digest('hex');
    // The expected result, computed in this process on a copy.
    const expectedPath = join(dir, 'expected.ndjson');
    copyFileSync(original, expectedPath);
    const { deleted } = await new FlatFileStore({ path: expectedPath }).delete(filter({ patterns: patterns({ submituser: 'user07' }) }));
    expect(deleted).toBeGreaterThan(1000);
    const oldHash = hash(oldBytes);
    const newHash = hash(readFileSync(expectedPath));
    // How long a whole delete takes in a child, to spread the kills over it.
    const file = join(dir, 'events.ndjson');
    copyFileSync(original, file);
    const t0 = Date.now();
    const full = child('deleter.mjs', [file, 'user07', 'once']);
    await full.exited;
    const duration = Date.now() - t0;
    expect(hash(readFileSync(file))).toBe(newHash);

    const rand = rng(5);
    const seen = { old: 0, new: 0, midRewrite: 0 };
    for (let round = 0; round < 12; round++) {
      copyFileSync(original, file);
      const c = child('deleter.mjs', [file, 'user07', 'once']);
      await c.waitFor(/^ready/);
      await sleep(rand() * duration);
      await c.kill();
      const h = hash(readFileSync(file));
      expect([oldHash, newHash], `round ${round}`).toContain(h);
      if (h === oldHash) seen.old++;
      else seen.new++;
      if (leftovers(dir, true).length > 0) seen.midRewrite++;
      // The next writer removes the dead deleter's lock and temp file.
      await new FlatFileStore({ path: file, lockTimeoutMs: 5000 }).append([{ uniqueid: 'next', etype: 'R', time: 1 }]);
      expect(leftovers(dir, true), `round ${round}`).toEqual([]);
      expect(existsSync(`${file}.lock`)).toBe(false);
    }
    await new FlatFileStore({ path: file }).delete(filter({ patterns: patterns({ uniqueid: 'nothing-matches' }) }));
    expect(leftovers(dir)).toEqual([]);
    // The kills landed before and after the rename (the test is meaningful).
    expect(seen.old).toBeGreaterThan(0);
    expect(seen.midRewrite).toBeGreaterThan(0);
    console.log(`deleter kill test: ${duration} ms per delete; of 12 kills ${seen.midRewrite} hit mid-rewrite, ${seen.old} left the old file, ${seen.new} the new one`);
  }, 180_000);

  it('an appender racing deletes that are killed at random loses nothing', async () => {
    const dir = join(tmp.dir, 'race');
    spawnSync('mkdir', ['-p', dir]);
    const file = join(dir, 'events.ndjson');
    const gen = spawnSync(process.execPath, [join(import.meta.dirname, 'scripts/gen-events.mjs'), '40000', '9', file]);
    expect(gen.status).toBe(0);
    const appender = child('appender.mjs', [file, '77', '30']);
    await appender.waitFor(/^ack/);
    const rand = rng(3);
    let deletesDone = 0;
    for (let round = 0; round < 8; round++) {
      const d = child('deleter.mjs', [file, 'victim', 'loop']);
      await d.waitFor(/^ready/);
      // Until a delete has completed, each window is longer: a loaded machine deletes slower,
      // and the race is only meaningful once deletes land between the kills.
      await sleep((100 + rand() * 600) * (deletesDone === 0 ? 1 + round : 1));
      await d.kill();
      deletesDone += d.lines.filter((l) => l.startsWith('deleted')).length;
    }
    await sleep(200);
    await appender.kill();
    const ack = acked(appender.lines);
    expect(ack.length).toBeGreaterThan(50);
    expect(deletesDone).toBeGreaterThan(0);
    console.log(`race kill test: ${ack.length} acknowledged records, ${deletesDone} deletes completed between kills`);
    const { recs } = checkFile(file);
    for (const r of ack) expect(recs.get(r)?.submituser, `acknowledged recnum ${r}`).toBe('keep');
    // A last delete, in process, after the dead processes' locks: every victim goes, keepers stay.
    const s = new FlatFileStore({ path: file, lockTimeoutMs: 5000 });
    await s.delete(filter({ patterns: patterns({ submituser: 'victim' }) }));
    const after = checkFile(file).recs;
    for (const r of ack) expect(after.has(r)).toBe(true);
    expect([...after.values()].some((v) => v.submituser === 'victim')).toBe(false);
    expect(leftovers(dir)).toEqual([]);
    writeFileSync(join(dir, 'done'), '');
  }, 180_000);
});
