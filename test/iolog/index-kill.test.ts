// Faults: `evio iolog index --rebuild` and an incremental `evio iolog index` (after sessions were
// added and removed) SIGKILLed at chosen moments: when the index's WAL has grown to given sizes
// (the index commits a batch of 500 sessions per transaction) and at fractions of an
// uninterrupted run. After every kill:
// - the index is absent or a valid SQLite database (integrity_check on a copy with its WAL,
//   so the test itself never recovers the real file), holding no phantom row: every row is a
//   session on disk, or (incremental) one the previous index held and that was removed since;
//   an incremental update never drops the row of a session that is still there;
// - the next `evio iolog index` succeeds and its counts are exactly what the kill left: added =
//   sessions on disk without a row, removed = rows without a session, unchanged = the rest;
// - `evio iolog list` answers exactly the sessions on disk (compared with a walk of the root and
//   the generator's counts): none missing, none twice, no phantom.
// The index work runs in the I/O-log worker pool, which loads dist/worker/ (npm run build).
import { copyFileSync, existsSync, mkdirSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openIndex } from '../../src/iolog/index-db.js';
import { indexAge } from '../../src/iolog/index-update.js';
import { parseListParams, queryIndex } from '../../src/iolog/list-query.js';
import { workerEntry } from '../../src/common/package-root.js';
import { buildCli, runAndKill, runCli, runUntilFileSize, type CliBuild, type RunResult } from '../jobs/cli-build.js';
import { makeHome, type JobHome } from '../jobs/helpers.js';

const FIRST = 800; // sessions generated first: a full batch of 500 and a partial one
const ADDED = 300; // generated later, for the incremental update
const REMOVE_EVERY = 40; // then every 40th first session is removed (20 sessions)

let build: CliBuild;
let h: JobHome;
let index: string;
let scratch = 0;

beforeAll(() => {
  if (!existsSync(workerEntry('iolog-tasks'))) throw new Error(`${workerEntry('iolog-tasks')} is missing: run npm run build first`);
  build = buildCli('iolog-index-kill');
  h = makeHome('evio-index-kill-');
  index = join(h.dir, 'home', 'iolog-index.sqlite');
}, 120_000);

afterAll(async () => {
  build?.cleanup();
  await h?.cleanup();
});

function evio(args: string[]): string[] {
  return ['--config', join(h.dir, 'evio.json'), ...args];
}

function writeConfig(): void {
  writeFileSync(join(h.dir, 'evio.json'), JSON.stringify({ home: join(h.dir, 'home'), iologdirs: [h.root], iologcache: index, eventlogdirs: [h.dir] }));
}

/** Sessions on disk: directories holding `timing` and `log.json` (real paths), by a plain walk. */
function sessionsOnDisk(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    const names = readdirSync(dir);
    if (names.includes('timing') && (names.includes('log.json') || names.includes('log'))) {
      out.push(dir);
      return;
    }
    for (const n of names) if (statSync(join(dir, n)).isDirectory()) walk(join(dir, n));
  };
  walk(realpathSync(h.root));
  return out.sort();
}

interface IndexState {
  exists: boolean;
  /** The schema was committed (a kill while creating the file may leave none). */
  schema: boolean;
  rows: string[];
  updated: string | null;
}

/**
 * The index as the next opener would see it, read from a copy of the database and its WAL (the
 * real files are left for evio to recover). Fails unless the copy passes integrity_check.
 */
function readIndex(): IndexState {
  if (!existsSync(index)) return { exists: false, schema: false, rows: [], updated: null };
  const dir = join(h.dir, `copy-${scratch++}`);
  mkdirSync(dir);
  const copy = join(dir, 'index.sqlite');
  copyFileSync(index, copy);
  if (existsSync(`${index}-wal`)) copyFileSync(`${index}-wal`, `${copy}-wal`);
  const db = new Database(copy);
  try {
    expect(db.pragma('integrity_check', { simple: true }), 'integrity_check of the index').toBe('ok');
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>).map((t) => t.name);
    if (!tables.includes('sessions')) return { exists: true, schema: false, rows: [], updated: null };
    const rows = (db.prepare('SELECT logpath FROM sessions ORDER BY logpath').all() as Array<{ logpath: string }>).map((r) => r.logpath);
    const u = db.prepare("SELECT value FROM meta WHERE key = 'updated'").get() as { value: string } | undefined;
    return { exists: true, schema: true, rows, updated: u?.value ?? null };
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `evio iolog list` (every row, one page): the logpaths it answers, in its order. */
async function listed(refresh: '0' | null): Promise<string[]> {
  const r = await runCli(build, evio(['iolog', 'list', '--len', '10000', ...(refresh === null ? [] : ['--refresh', refresh])]), { cwd: h.dir });
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { result: Array<{ logpath: string }> }).result.map((x) => x.logpath);
}

/** The list answers exactly the sessions on disk: none missing, none twice, no phantom. */
function expectExactly(list: string[], disk: string[]): void {
  expect(list.length, 'rows in the list').toBe(disk.length);
  expect(new Set(list).size, 'no session listed twice').toBe(list.length);
  expect([...list].sort()).toEqual(disk);
}

type Trigger = { walBytes: number } | { ms: number };

interface Kill {
  at: Trigger;
  /** Run a second killed update before the one that finishes. */
  again?: Trigger;
  /** Start from no index at all. */
  fresh?: boolean;
  /** The next operation is `evio iolog list` (which updates the index first) instead of `evio iolog index`. */
  viaList?: boolean;
}

function killIndex(args: string[], t: Trigger, took: number): Promise<RunResult> {
  if ('ms' in t) return runAndKill(build, args, Math.floor(took * t.ms), h.dir);
  return runUntilFileSize(build, args, `${index}-wal`, t.walBytes, h.dir);
}

function removeIndex(): void {
  for (const s of ['', '-wal', '-shm']) rmSync(`${index}${s}`, { force: true });
}

describe('kill -9 during `evio iolog index`', () => {
  it('rebuild, then incremental: after every kill the next index succeeds and the list is exactly the sessions on disk', async () => {
    const started = Date.now();
    writeConfig();
    const gen = await runCli(build, evio(['generate', 'sessions', '--count', String(FIRST), '--seed', '5', '--out', join(h.root, 'a')]), { cwd: h.dir });
    expect(gen.code, gen.stderr).toBe(0);
    expect(JSON.parse(gen.stdout)).toMatchObject({ sessions: FIRST });
    const first = sessionsOnDisk();
    expect(first).toHaveLength(FIRST);

    // An uninterrupted rebuild: its duration scales the timed kills.
    let t0 = Date.now();
    const ref = await runCli(build, evio(['iolog', 'index', '--rebuild']), { cwd: h.dir });
    const tookRebuild = Date.now() - t0;
    expect(ref.code, ref.stderr).toBe(0);
    expect(JSON.parse(ref.stdout)).toMatchObject({ total: FIRST, added: FIRST, removed: 0 });
    expectExactly(await listed('0'), first);

    const report: string[] = [];
    let kills = 0;
    let midway = 0;
    let partialLists = 0;

    // ---- --rebuild killed ----
    // WAL sizes of an uninterrupted rebuild: ~8 KB once opened, ~45 KB when the old rows are
    // deleted, ~160 KB / ~430 KB while the batches are written, ~740 KB at the end.
    const REBUILD: Kill[] = [
      { at: { walBytes: 1 } }, // opening: pragma, schema
      { at: { walBytes: 40_000 }, viaList: true }, // the old rows deleted, first batch not committed
      { at: { walBytes: 150_000 } }, // writing the first batch
      { at: { ms: 0.7 }, viaList: true },
      { at: { walBytes: 150_000 }, again: { ms: 0.8 } },
      { at: { walBytes: 1 }, fresh: true }, // the very first build, killed while creating the file
    ];
    for (const [i, k] of REBUILD.entries()) {
      if (k.fresh) removeIndex();
      const before = readIndex();
      const label = `rebuild #${i} ${JSON.stringify(k.at)}${k.again ? ` then ${JSON.stringify(k.again)}` : ''}${k.fresh ? ' (no index before)' : ''}`;
      let r = await killIndex(evio(['iolog', 'index', '--rebuild']), k.at, tookRebuild);
      if (k.again) {
        if (r.signal === 'SIGKILL') kills++;
        r = await killIndex(evio(['iolog', 'index', '--rebuild']), k.again, tookRebuild);
      }
      if (r.signal === 'SIGKILL') kills++;
      else expect(r.code, r.stderr).toBe(0);
      const after = readIndex();
      // No phantom: a rebuild only writes sessions it found on disk.
      for (const p of after.rows) expect(first.includes(p), `phantom row ${p}`).toBe(true);
      const finished = after.rows.length === FIRST && after.updated !== before.updated;
      const untouched = before.exists && after.rows.length === FIRST && after.updated === before.updated;
      const mid = r.signal === 'SIGKILL' && !finished && !untouched;
      if (mid) midway++;
      report.push(`${label}: ${r.signal === 'SIGKILL' ? (after.exists ? (after.schema ? `${after.rows.length}/${FIRST} rows${finished ? ', finished' : untouched ? ', index untouched' : ''}` : 'file without schema') : 'no index file') : 'finished before the kill'}`);
      if (r.signal === 'SIGKILL' && after.exists && after.rows.length < FIRST && (partialLists === 0 || !after.schema)) {
        // What a reader that does not refresh sees until the next update: a subset (nothing when
        // the schema was never committed), never a phantom, never an error.
        const now = await listed('0');
        expect(now.length).toBe(after.rows.length);
        for (const p of now) expect(first.includes(p)).toBe(true);
        if (after.schema) partialLists++;
      }
      if (k.viaList) {
        // `evio iolog list` in a new process updates the index first.
        expectExactly(await listed(null), first);
      } else {
        const next = await runCli(build, evio(['iolog', 'index']), { cwd: h.dir });
        expect(next.code, `${label}: ${next.stderr}`).toBe(0);
        expect(JSON.parse(next.stdout), label).toMatchObject({ total: FIRST, added: FIRST - after.rows.length, unchanged: after.rows.length, updated: 0, removed: 0 });
        expectExactly(await listed('0'), first);
      }
    }

    // ---- incremental update killed, after sessions were added and removed ----
    // The index as the last (uninterrupted) update left it: the state before the new sessions.
    const saved = join(h.dir, 'saved-index.sqlite');
    expect(existsSync(`${index}-wal`), 'a clean close leaves no WAL').toBe(false);
    copyFileSync(index, saved);
    const old = readIndex();
    expect(old.rows).toEqual(first);
    const gen2 = await runCli(build, evio(['generate', 'sessions', '--count', String(ADDED), '--seed', '6', '--out', join(h.root, 'b')]), { cwd: h.dir });
    expect(gen2.code, gen2.stderr).toBe(0);
    expect(JSON.parse(gen2.stdout)).toMatchObject({ sessions: ADDED });
    const gone = first.filter((_, i) => i % REMOVE_EVERY === 7);
    for (const p of gone) rmSync(p, { recursive: true });
    const disk = sessionsOnDisk();
    expect(disk).toHaveLength(FIRST + ADDED - gone.length);
    const restore = () => {
      removeIndex();
      copyFileSync(saved, index);
    };
    restore();
    t0 = Date.now();
    const refInc = await runCli(build, evio(['iolog', 'index']), { cwd: h.dir });
    const tookInc = Date.now() - t0;
    expect(refInc.code, refInc.stderr).toBe(0);
    expect(JSON.parse(refInc.stdout)).toMatchObject({ total: disk.length, added: ADDED, removed: gone.length, unchanged: FIRST - gone.length, updated: 0 });
    expectExactly(await listed('0'), disk);

    // An incremental update's WAL: ~8 KB once opened, then nothing while it walks and reads the
    // new sessions (most of the run), then ~210 KB (the batch) and ~280 KB (removals, time
    // stamp) within a few ms at the end.
    const INCREMENTAL: Kill[] = [
      { at: { walBytes: 1 }, viaList: true },
      { at: { ms: 0.75 } }, // reading the new sessions
      { at: { walBytes: 60_000 } }, // writing the batch, or just after it
      { at: { ms: 0.6 }, again: { walBytes: 215_000 }, viaList: true }, // after the batch: removals

    ];
    const oldSet = new Set(old.rows);
    const diskSet = new Set(disk);
    for (const [i, k] of INCREMENTAL.entries()) {
      restore();
      const label = `incremental #${i} ${JSON.stringify(k.at)}${k.again ? ` then ${JSON.stringify(k.again)}` : ''}`;
      let r = await killIndex(evio(['iolog', 'index']), k.at, tookInc);
      if (k.again) {
        if (r.signal === 'SIGKILL') kills++;
        r = await killIndex(evio(['iolog', 'index']), k.again, tookInc);
      }
      if (r.signal === 'SIGKILL') kills++;
      else expect(r.code, r.stderr).toBe(0);
      const after = readIndex();
      expect(after.schema, label).toBe(true);
      const rows = new Set(after.rows);
      // No phantom, and no still-existing session lost.
      for (const p of rows) expect(diskSet.has(p) || oldSet.has(p), `phantom row ${p}`).toBe(true);
      for (const p of old.rows) if (diskSet.has(p)) expect(rows.has(p), `row of ${p} lost`).toBe(true);
      const stale = after.rows.filter((p) => !diskSet.has(p)).length;
      const missing = disk.filter((p) => !rows.has(p)).length;
      const finished = stale === 0 && missing === 0 && after.updated !== old.updated;
      const untouched = after.updated === old.updated && stale === gone.length && missing === ADDED;
      const mid = r.signal === 'SIGKILL' && !finished && !untouched;
      if (mid) midway++;
      report.push(`${label}: ${r.signal === 'SIGKILL' ? `${disk.length - missing}/${disk.length} sessions indexed, ${stale} stale rows${finished ? ', finished' : untouched ? ', index untouched' : ''}` : 'finished before the kill'}`);
      if (k.viaList) {
        expectExactly(await listed(null), disk);
      } else {
        const next = await runCli(build, evio(['iolog', 'index']), { cwd: h.dir });
        expect(next.code, `${label}: ${next.stderr}`).toBe(0);
        expect(JSON.parse(next.stdout), label).toMatchObject({ total: disk.length, added: missing, removed: stale, unchanged: disk.length - missing, updated: 0 });
        expectExactly(await listed('0'), disk);
      }
    }

    console.log(`index kill test: ${kills} kills, ${midway} landed mid-update (${partialLists} showed a partial list to a non-refreshing reader until the next update), ${Date.now() - started} ms (uninterrupted: rebuild ${tookRebuild} ms, incremental ${tookInc} ms)\n  ${report.join('\n  ')}`);
    // The WAL-size kills far from the end always land (6); timed ones may come after the exit.
    expect(kills).toBeGreaterThanOrEqual(6);
    expect(midway, 'kills that landed while the index was being written').toBeGreaterThan(0);
  }, 240_000);

  it('an index file whose schema was never committed (the first build killed) reads as no index, not as an error', () => {
    // What the kill above can leave: a WAL database with nothing committed but the header.
    const file = join(h.dir, 'schemaless', 'index.sqlite');
    mkdirSync(join(h.dir, 'schemaless'));
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.close();
    expect(openIndex(file, 'read')).toBeNull();
    expect(indexAge(file)).toBe(0);
    expect(queryIndex(file, parseListParams({}, 'UTC'))).toEqual([]);
    // A file that is not SQLite still fails (1409), as test/reliability/faults.test.ts expects.
    writeFileSync(join(h.dir, 'schemaless', 'garbage.sqlite'), 'not an sqlite index\n'.repeat(100));
    expect(() => queryIndex(join(h.dir, 'schemaless', 'garbage.sqlite'), parseListParams({}, 'UTC'))).toThrow(/not a database/);
  });
});
