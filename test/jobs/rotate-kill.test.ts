// Faults: a real `evio events rotate` SIGKILLed at chosen moments, some with a concurrent
// appender whose acknowledged appends are recorded. After every kill, the next `evio events
// rotate` reconciles what the dead one left (docs/jobs.md, Rotation); then:
// - the rotated files and the live file, in order, are the old log byte for byte followed by
//   what the appenders wrote: every record that existed before is there exactly once, in order;
// - every acknowledged append is there exactly once, recnums strictly increase across the files;
// - each rotated file ends at a line end, at most one torn line per killed appender;
// - nothing is left next to the log but the log and its rotated files (no lock, journal, temp or
//   scratch file), the next append continues the numbering and a query of every file answers
//   exactly the records the files hold.
// Rotation itself is short (it reads only the log's last line: ~30 ms of a ~300 ms CLI run,
// whatever the size), so besides timed kills the rotate is killed at the n-th entry created,
// renamed or removed in the log's folder (fs.watch): right after a chosen step, plus however far
// the process got before the signal arrived.
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listRotated, rotateFlatFile } from '../../src/eventlog/flatfile/rotate.js';
import { buildCli, runAndKill, runCli, startCli, type CliBuild, type RunResult } from './cli-build.js';
import { makeHome, type JobHome } from './helpers.js';
import { pidAlive } from '../../src/common/file-lock.js';

const APPENDER = join(import.meta.dirname, '../eventlog/flatfile/children/appender.mjs');
const COUNT = 20_000;
const BASE = 'events.ndjson';
const STAMP = /^\d{8}T\d{6}Z(?:-\d+)?$/;

let build: CliBuild;
let h: JobHome;
let original: Buffer;
const children = new Set<ChildProcess>();

beforeAll(async () => {
  build = buildCli('rotate-kill');
  h = makeHome('evio-rotate-kill-');
  writeFileSync(join(h.dir, 'evio.json'), JSON.stringify({ home: join(h.dir, 'home'), eventlogdirs: [h.dir] }));
  const g = await runCli(build, ['--config', join(h.dir, 'evio.json'), 'generate', 'events', '--count', String(COUNT), '--seed', '9', '--out', join(h.dir, 'big.ndjson')], { cwd: h.dir });
  expect(g.code, g.stderr).toBe(0);
  original = readFileSync(join(h.dir, 'big.ndjson'));
}, 120_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  build?.cleanup();
  await h?.cleanup();
});

const cfg = () => ['--config', join(h.dir, 'evio.json')];
const isRotated = (name: string) => name.startsWith(`${BASE}.`) && STAMP.test(name.slice(BASE.length + 1));

/**
 * Starts `evio ARGS` and SIGKILLs it at the `nth` entry created, renamed or removed in `dir`
 * whose name `counts` (or when it exits first).
 */
function runUntilDirEvent(args: string[], cwd: string, dir: string, counts: (name: string) => boolean, nth: number): Promise<RunResult & { fired: boolean }> {
  let n = 0;
  let fired = false;
  let proc: ChildProcess | null = null;
  const w = watch(dir, (type, name) => {
    if (type !== 'rename' || !name || !counts(String(name)) || fired) return;
    if (++n >= nth) {
      fired = true;
      proc?.kill('SIGKILL');
    }
  });
  const started = startCli(build, args, cwd);
  proc = started.proc;
  return started.done.then((r) => ({ ...r, fired })).finally(() => w.close());
}

/** The flat-file kill test's appender child, run on the compiled store; `acked` = recnums it acknowledged. */
function startAppender(file: string, seed: number) {
  const proc = spawn(process.execPath, [APPENDER, build.dir, file, String(seed), '20'], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(proc);
  const acked: number[] = [];
  let acks = 0;
  let partial = '';
  let stderr = '';
  const waiters: Array<{ at: number; resolve: () => void }> = [];
  proc.stdout!.on('data', (d: Buffer) => {
    partial += d.toString();
    const lines = partial.split('\n');
    partial = lines.pop()!;
    for (const l of lines) {
      if (!l.startsWith('ack')) continue;
      acks++;
      acked.push(...l.split(' ').slice(1).filter(Boolean).map(Number));
    }
    for (const w of [...waiters]) if (acks >= w.at) w.resolve();
  });
  proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((r) => proc.on('exit', () => r()));
  return {
    acked,
    /** Resolves after `more` further acknowledged batches; fails after `ms`. */
    async acks(more: number, ms = 20_000): Promise<void> {
      const at = acks + more;
      if (acks >= at) return;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => waiters.push({ at, resolve })),
        new Promise<void>((_, rej) => (timer = setTimeout(() => rej(new Error(`appender acknowledged nothing for ${ms} ms: ${stderr}`)), ms))),
        exited.then(() => {
          throw new Error(`appender exited: ${stderr}`);
        }),
      ]).finally(() => clearTimeout(timer));
    },
    async kill(): Promise<void> {
      proc.kill('SIGKILL');
      await exited;
    },
  };
}


interface Journal {
  rotated: string;
  cut: number;
  carriedRecnum: number;
}

/** What a killed rotate left, read from the journal, the inodes and the leftovers. */
function stateAfterKill(dir: string, rotatedBefore: number): { state: string; journal: boolean; midway: boolean } {
  const log = join(dir, BASE);
  const jpath = `${log}.rotating`;
  const names = readdirSync(dir);
  if (existsSync(jpath)) {
    const j = JSON.parse(readFileSync(jpath, 'utf8')) as Journal;
    let state: string;
    if (!existsSync(j.rotated)) state = 'after step 2 (journal written, nothing renamed)';
    else if (statSync(j.rotated).ino === statSync(log).ino) state = 'after step 3 (log hard-linked to its rotated name)';
    else if (statSync(j.rotated).size > j.cut) state = 'after step 4 (new log in place, moved record not cut yet)';
    else state = 'after step 5 (cut, journal not removed)';
    return { state, journal: true, midway: true };
  }
  if (names.some((n) => n.startsWith(`${BASE}.rotating.`) && n.endsWith('.new'))) return { state: 'writing the journal (step 2)', journal: false, midway: true };
  if (names.some((n) => n.startsWith(`${BASE}.tmp-rotate-`))) return { state: 'after step 1 (temp file)', journal: false, midway: true };
  const rotatedNow = names.filter(isRotated).length > rotatedBefore;
  let deadLock = false;
  try {
    deadLock = !pidAlive((JSON.parse(readFileSync(`${log}.lock`, 'utf8')) as { pid: number }).pid);
  } catch {
    deadLock = false;
  }
  if (deadLock) return { state: rotatedNow ? 'done, lock not released' : 'holding the lock, before step 1', journal: false, midway: true };
  return { state: rotatedNow ? 'done' : 'not started', journal: false, midway: false };
}

/**
 * The store after recovery: the rotated files (oldest first) and the live file, concatenated,
 * are the original log followed by the appended bytes. Returns the recnums of every file.
 */
function checkStore(dir: string, rotated: string[], acked: number[], tornAllowed: number): { perFile: number[][]; max: number } {
  const names = readdirSync(dir);
  // A process killed while creating its lock scratch file (before it held the lock) leaves it;
  // docs/flatfile.md: the next delete, or a takeover of a dead lock, removes it.
  const deadScratch = (n: string) => {
    const m = /^events\.ndjson\.lock\.(\d+)\.[0-9a-f]{8}\.[0-9a-f]{24}\.new$/.exec(n);
    return m !== null && !pidAlive(Number(m[1]));
  };
  expect(names.filter((n) => n !== BASE && !isRotated(n) && !deadScratch(n)), 'leftovers next to the log').toEqual([]);
  expect(names.filter(isRotated).sort()).toEqual(rotated.map((p) => p.slice(dir.length + 1)).sort());
  const files = [...rotated, join(dir, BASE)];
  const contents = files.map((f) => readFileSync(f));
  for (const [i, c] of contents.slice(0, -1).entries()) {
    expect(c.length, `${rotated[i]} is empty`).toBeGreaterThan(0);
    expect(c[c.length - 1], `${rotated[i]} ends inside a line`).toBe(10);
  }
  const all = Buffer.concat(contents);
  expect(all.length).toBeGreaterThanOrEqual(original.length);
  // Every record of the old log exactly once, in order, byte for byte.
  expect(all.subarray(0, original.length).equals(original), 'the files start with the old log, byte for byte').toBe(true);
  // Then the appended records: whole lines with strictly increasing recnums after COUNT.
  const perFile: number[][] = [];
  let torn = 0;
  let last = COUNT;
  let offset = 0;
  const seen = new Set<number>();
  for (const c of contents) {
    const recs: number[] = [];
    for (const line of c.toString('utf8').split('\n')) {
      const start = offset;
      offset += Buffer.byteLength(line) + 1;
      if (line === '') continue;
      let v: { recnum?: unknown; etype?: unknown };
      try {
        v = JSON.parse(line) as typeof v;
      } catch {
        expect(start, 'a torn line inside the old log').toBeGreaterThanOrEqual(original.length);
        torn++;
        continue;
      }
      expect(typeof v.recnum === 'number' && typeof v.etype === 'string', line.slice(0, 200)).toBe(true);
      const r = v.recnum as number;
      if (start >= original.length) {
        expect(r, 'recnums strictly increase across the files').toBeGreaterThan(last);
        last = r;
      }
      expect(seen.has(r), `recnum ${r} twice`).toBe(false);
      seen.add(r);
      recs.push(r);
    }
    offset -= 1; // no newline between files: split() counted one after the last piece
    perFile.push(recs);
  }
  expect(seen.size).toBeGreaterThanOrEqual(COUNT);
  expect(torn, 'torn lines (at most one per killed appender)').toBeLessThanOrEqual(tornAllowed);
  for (const a of acked) expect(seen.has(a), `acknowledged recnum ${a}`).toBe(true);
  return { perFile, max: Math.max(...seen) };
}

type Trigger = { step: number } | { lock: true } | { ms: number };
interface Plan {
  kill: Trigger;
  appender?: boolean;
  /** Kill the next rotate too (it recovers first, then rotates) before the one that finishes. */
  again?: Trigger;
}

// The kill moments (fixed, so a failure replays the same way). `step: n` = at the n-th entry
// created, renamed or removed in the folder other than lock files; in an uninterrupted rotation
// these are 1 temp file, 2 journal scratch, 3-4 journal renamed into place, 5 hard link to the
// rotated name, 6-7 temp file renamed over the log, 8 journal removed. `lock` = when the
// rotate's lock file appears. `ms` = a fraction of an uninterrupted run's duration.
const PLAN: Plan[] = [
  { kill: { step: 1 } },
  { kill: { step: 2 } },
  { kill: { step: 4 } },
  { kill: { step: 5 } },
  { kill: { step: 8 } },
  { kill: { lock: true } },
  { kill: { step: 3 }, appender: true },
  { kill: { step: 5 }, appender: true },
  { kill: { step: 6 }, appender: true },
  { kill: { step: 4 }, appender: true, again: { step: 7 } },
  { kill: { step: 2 }, again: { step: 5 } },
  { kill: { ms: 1.0 }, appender: true },
];

describe('kill -9 during `evio events rotate`', () => {
  it('after every kill the next rotate reconciles; no record is lost or doubled, appends continue', async () => {
    const started = Date.now();
    // An uninterrupted rotation: its duration scales the timed kills.
    const refDir = join(h.dir, 'ref');
    mkdirSync(refDir);
    copyFileSync(join(h.dir, 'big.ndjson'), join(refDir, BASE));
    const t0 = Date.now();
    const ref = await runCli(build, [...cfg(), 'events', 'rotate', join(refDir, BASE)], { cwd: refDir });
    const took = Date.now() - t0;
    expect(ref.code, ref.stderr).toBe(0);
    expect(JSON.parse(ref.stdout)).toMatchObject({ rotated: true, carriedRecnum: COUNT, recovered: null });
    checkStore(refDir, [(JSON.parse(ref.stdout) as { rotatedTo: string }).rotatedTo], [], 0);

    const states: string[] = [];
    const timing: string[] = [];
    let midway = 0;
    let kills = 0;
    let ackedTotal = 0;
    let scratchCleaned = 0;
    const kill = async (t: Trigger, dir: string): Promise<RunResult> => {
      const args = [...cfg(), 'events', 'rotate', join(dir, BASE)];
      if ('ms' in t) return runAndKill(build, args, Math.floor(took * t.ms), dir);
      if ('lock' in t) return runUntilDirEvent(args, dir, dir, (n) => n === `${BASE}.lock`, 1);
      return runUntilDirEvent(args, dir, dir, (n) => !n.startsWith(`${BASE}.lock`), t.step);
    };
    const observe = (r: RunResult, dir: string, rotatedBefore: number, label: string) => {
      if (r.signal === 'SIGKILL') kills++;
      else expect(r.code, r.stderr).toBe(0);
      const s = stateAfterKill(dir, rotatedBefore);
      states.push(`${label}: ${r.signal === 'SIGKILL' ? s.state : 'finished before the kill'}`);
      if (r.signal === 'SIGKILL' && s.midway) midway++;
      return s;
    };

    for (const [i, plan] of PLAN.entries()) {
      const iterStart = Date.now();
      const dir = join(h.dir, `run${i}`);
      mkdirSync(dir);
      const log = join(dir, BASE);
      copyFileSync(join(h.dir, 'big.ndjson'), log);
      const app = plan.appender ? startAppender(log, i + 1) : null;
      if (app) await app.acks(1);
      const label = `#${i} ${JSON.stringify(plan.kill)}${app ? ' +appender' : ''}`;
      let s = observe(await kill(plan.kill, dir), dir, 0, label);
      // The next writer takes the dead rotate's lock over and appends (to the old or new log).
      if (app) await app.acks(3);
      if (plan.again) {
        const before = readdirSync(dir).filter(isRotated).length;
        s = observe(await kill(plan.again, dir), dir, before, `${label} then ${JSON.stringify(plan.again)}`);
        if (app) await app.acks(3);
      }
      if (app) await app.kill();
      const acked = app ? app.acked : [];
      ackedTotal += acked.length;

      // Recovery: the next rotate reconciles (and rotates again when the log has 2+ records).
      const recStart = Date.now();
      const rec = await runCli(build, [...cfg(), 'events', 'rotate', log], { cwd: dir });
      expect(rec.code, `${label}: ${rec.stderr}`).toBe(0);
      const res = JSON.parse(rec.stdout) as { status: number; rotated: boolean; recovered: string | null; rotatedTo: string | null };
      expect(res.status).toBe(0);
      if (s.journal) expect(res.recovered, `${label}: a journal was left`).not.toBeNull();
      else expect(res.recovered, label).toBeNull();
      const rotated = (await listRotated(log)).map((r) => r.path);
      const { perFile, max } = checkStore(dir, rotated, acked, app ? 1 : 0);
      if (!app) expect(max).toBe(COUNT);

      // The next append continues the numbering.
      const one = join(h.dir, `one-${i}.ndjson`);
      writeFileSync(one, `${JSON.stringify({ uniqueid: `after-${i}`, etype: 'A', time: 2e9, submituser: 'after' })}\n`);
      const ap = await runCli(build, [...cfg(), 'events', 'append', `ff:${log}`, one], { cwd: dir });
      expect(ap.code, ap.stderr).toBe(0);
      expect(ap.stderr).toContain(`(recnum ${max + 1}-${max + 1})`);
      perFile[perFile.length - 1]!.push(max + 1);
      // A delete (of nothing) removes the scratch files killed lock takers left; then the folder
      // holds the log and its rotated files only.
      if (readdirSync(dir).some((n) => n !== BASE && !isRotated(n))) {
        const del = await runCli(build, [...cfg(), 'events', 'delete', `ff:${log}`, '--uniqueid', 'no-such-record'], { cwd: dir });
        expect(del.code, del.stderr).toBe(0);
        expect(readdirSync(dir).filter((n) => n !== BASE && !isRotated(n))).toEqual([]);
        scratchCleaned++;
      }

      // A query answers exactly the records a file holds: the live file every time, the rotated
      // ones too after the runs with an appender or two kills (else they are the old log's
      // first bytes, checked above byte for byte).
      const files = [...rotated, log];
      for (const [k, f] of files.entries()) {
        if (k < files.length - 1 && !app && !plan.again) continue;
        const q = await runCli(build, [...cfg(), 'events', 'query', `ff:${f}`, '--dump', '1', '--limit', '1000000'], { cwd: dir });
        expect(q.code, q.stderr).toBe(0);
        const got = q.stdout.split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { recnum: number }).recnum);
        expect(got.length, f).toBe(perFile[k]!.length);
        expect(new Set(got)).toEqual(new Set(perFile[k]));
      }
      timing.push(`#${i} ${Date.now() - iterStart} ms (of which ${Date.now() - recStart} after the kills)`);
    }
    const elapsed = Date.now() - started;
    console.log(`rotate kill test: ${kills} kills, ${midway} landed mid-rotation, ${ackedTotal} acknowledged appends, ${scratchCleaned} dead lock-scratch files removed by a delete, ${elapsed} ms (uninterrupted rotate: ${took} ms)\n  ${states.join('\n  ')}\n  ${timing.join('\n  ')}`);
    expect(kills).toBeGreaterThanOrEqual(PLAN.length - 2);
    expect(midway, 'kills that landed between taking the lock and releasing it').toBeGreaterThan(0);
  }, 180_000);

  it('the journal scratch file of a rotate killed while writing its journal is removed by the next rotate', async () => {
    // What a kill between creating `<log>.rotating.<pid>.new` and renaming it leaves (with the
    // temp file and the lock, which the next lock holder already cleans up).
    const dir = join(h.dir, 'scratch');
    mkdirSync(dir);
    const log = join(dir, BASE);
    const lines = original.toString('utf8').split('\n').slice(0, 50);
    writeFileSync(log, `${lines.join('\n')}\n`);
    writeFileSync(`${log}.rotating.4194303.new`, '{\n  "rotated": "/x');
    const r = await rotateFlatFile({ path: log });
    expect(r).toMatchObject({ rotated: true, carriedRecnum: 50, recovered: null });
    expect(readdirSync(dir).filter((n) => n !== BASE && !isRotated(n))).toEqual([]);
  });
});
