// An interrupted index build, index extension or compression never yields a wrong answer:
// real `evio events index`, `evio events rotate --compress` and `evio events append` (whose
// upkeep thread extends the index after the records are synced) processes are killed with
// SIGKILL at random moments, then queries with whatever index is left (and with none) are
// compared.
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FlatFileStore } from '../../../src/eventlog/flatfile/flatfile-store.js';
import { parseEventQuery } from '../../../src/eventlog/query.js';
import type { StoredEvent } from '../../../src/eventlog/types.js';
import { rng } from '../../helpers/rng.js';
import { collect, comparable, tempDir } from './helpers.js';

const BIN = resolve(import.meta.dirname, '../../../bin/evio.js');
const tmp = tempDir('evio-ixkill-');
afterAll(() => tmp.cleanup());

function records(from: number, count: number): StoredEvent[] {
  const out: StoredEvent[] = [];
  for (let i = from; i < from + count; i++) {
    const fin = i % 3 === 2;
    out.push({
      recnum: i, uniqueid: fin ? `s${i - 1}` : `s${i}`, etype: fin ? 'F' : i % 7 === 0 ? 'R' : 'A', time: 1767225600 + i * 3,
      submituser: `user${i % 50}`, submithost: `host${i % 5}`, runuser: 'root', runhost: `host${i % 5}`, runcommand: `/usr/bin/cmd${i % 40}`,
      ...(fin ? { exitstatus: `Command finished with exit status ${i % 4}` } : {}),
      cwd: '/home/somebody/with/a/longer/path', ttyname: '/dev/pts/3',
    });
  }
  return out;
}
const text = (r: StoredEvent[]) => r.map((x) => JSON.stringify(x) + '\n').join('');

/** Runs the CLI and kills it after `ms` (or lets it finish). */
function runKilled(args: string[], ms: number, env: Record<string, string>): Promise<'killed' | 'finished'> {
  return new Promise((res) => {
    const p = spawn(process.execPath, [BIN, ...args], { stdio: 'ignore', env: { ...process.env, ...env } });
    const t = setTimeout(() => p.kill('SIGKILL'), ms);
    p.on('exit', (_code, sig) => {
      clearTimeout(t);
      res(sig === 'SIGKILL' ? 'killed' : 'finished');
    });
  });
}

const QUERIES = [{ submituser: 'user7' }, { submituser: 'user7', dump: '1' }, { from: String(1767225600 + 30000), to: String(1767225600 + 33000) }, { exittime_from: String(1767225600 + 60000), exittime_to: String(1767225600 + 61000) }, { runcommand: '/usr/bin/cmd1*', limit: '50' }];

async function answers(path: string, family: boolean, index: { enabled: boolean; budgetMs: number }) {
  const s = new FlatFileStore({ path, family, index: { ...index, cacheDir: null } });
  const out: unknown[] = [];
  for (const p of QUERIES) out.push(comparable(await collect(s.query(parseEventQuery({ format: 'ff', file: 'x', ...(family ? { family: '1' } : {}), ...p }).query))));
  return out;
}

describe('killed index builds and compressions', () => {
  it('SIGKILL during evio events index (build and extension): queries answer as scans do', async () => {
    const rand = rng(20261124);
    const dir = join(tmp.dir, 'build');
    const env = { EVIO_HOME: dir };
    const { mkdirSync } = await import('node:fs');
    mkdirSync(dir);
    const path = join(dir, 'events.ndjson');
    writeFileSync(path, text(records(1, 40_000)));
    let next = 60_001;
    const outcomes: string[] = [];
    for (let round = 0; round < 6; round++) {
      outcomes.push(await runKilled(['events', 'index', path], 150 + Math.floor(rand() * 900), env));
      const want = await answers(path, false, { enabled: false, budgetMs: 0 });
      expect(await answers(path, false, { enabled: true, budgetMs: 0 })).toEqual(want);
      // An append after a (possibly partial or missing) index: the tail is scanned or indexed.
      appendFileSync(path, text(records(next, 3000)));
      next += 3000;
      expect(await answers(path, false, { enabled: true, budgetMs: 0 })).toEqual(await answers(path, false, { enabled: false, budgetMs: 0 }));
    }
    // Some builds were cut short, some may have finished; temp files of killed builds are
    // removed by the next build that saves.
    expect(outcomes).toContain('killed');
    await runKilled(['events', 'index', path], 60_000, env);
    expect(readdirSync(dir).filter((n) => n.includes('.evidx.tmp-'))).toEqual([]);
    expect(await answers(path, false, { enabled: true, budgetMs: 0 })).toEqual(await answers(path, false, { enabled: false, budgetMs: 0 }));
  }, 240_000);

  it('SIGKILL during evio events append while its upkeep thread extends the index: queries answer as scans do', async () => {
    const rand = rng(777);
    const dir = join(tmp.dir, 'append');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(dir);
    const env = { EVIO_HOME: dir };
    const path = join(dir, 'events.ndjson');
    writeFileSync(path, text(records(1, 20_000)));
    expect(await runKilled(['events', 'index', path], 60_000, env)).toBe('finished');
    let next = 20_001;
    const outcomes: string[] = [];
    for (let round = 0; round < 8; round++) {
      // About 1.2 MB a round: more than the four blocks that make the upkeep extend the index.
      const batch = join(dir, `batch-${round}.ndjson`);
      writeFileSync(batch, text(records(next, 3000)));
      next += 3000;
      outcomes.push(await runKilled(['events', 'append', `ff:${path}`, batch], 80 + Math.floor(rand() * 700), env));
      const want = await answers(path, false, { enabled: false, budgetMs: 0 });
      expect(await answers(path, false, { enabled: true, budgetMs: 0 })).toEqual(want);
      expect(await answers(path, false, { enabled: true, budgetMs: 60_000 })).toEqual(want);
    }
    expect(outcomes).toContain('killed');
    expect(outcomes).toContain('finished');
  }, 240_000);

  it('SIGKILL during rotate --compress: the family answers every record once', async () => {
    const rand = rng(4711);
    const dir = join(tmp.dir, 'compress');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(dir);
    const env = { EVIO_HOME: dir };
    const path = join(dir, 'events.ndjson');
    let next = 1;
    const all: StoredEvent[] = [];
    for (let round = 0; round < 5; round++) {
      const r = records(next, 30_000);
      next += 30_000;
      all.push(...r);
      appendFileSync(path, text(r));
      await runKilled(['events', 'rotate', path, '--compress'], 200 + Math.floor(rand() * 1200), env);
      const got = await answers(path, true, { enabled: true, budgetMs: 0 });
      expect(got).toEqual(await answers(path, true, { enabled: false, budgetMs: 0 }));
      // Every record exactly once across the family.
      const s = new FlatFileStore({ path, family: true, index: { enabled: true, cacheDir: null, budgetMs: 0 } });
      const recnums = (await collect(s.query(parseEventQuery({ format: 'ff', file: 'x', family: '1', dump: '1', limit: '10000000' }).query))).map((x) => x.rec.recnum);
      expect(recnums.length).toBe(all.length);
      expect(recnums).toEqual(all.map((x) => x.recnum));
    }
    expect(existsSync(path)).toBe(true);
  }, 240_000);
});
