// An interrupted index build, index extension or compression never yields a wrong answer:
// real `evio events index`, `evio events rotate --compress` and `evio events append` (whose
// upkeep thread extends the index after the records are synced) processes are killed with
// SIGKILL at chosen moments, then queries with whatever index is left (and with none) are
// compared. A moment is an event the test observes, never a time: an entry created, renamed
// or written in the log's folder (fs.watch), or a line the child prints. The kill lands right
// after it, plus however far the child got before the signal arrived (it may finish first).
import { spawn } from 'node:child_process';
import { appendFileSync, closeSync, existsSync, fstatSync, mkdirSync, openSync, readdirSync, readSync, watch, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FlatFileStore } from '../../../src/eventlog/flatfile/flatfile-store.js';
import { indexKeyFileIn, useIndexKeyFile } from '../../../src/eventlog/flatfile/index-key.js';
import { parseEventQuery } from '../../../src/eventlog/query.js';
import type { StoredEvent } from '../../../src/eventlog/types.js';
import { collect, comparable, tempDir } from './helpers.js';

const BIN = resolve(import.meta.dirname, '../../../bin/evio.js');
const BASE = 'events.ndjson';
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

/**
 * When to kill: at the `nth` (default first) event in the folder of the given type whose entry
 * name matches (`rename` = created, renamed or removed; `change` = written), or at the first
 * stderr line that matches; null = never (the run goes to its end).
 */
type Moment = { label: string } & ({ entry: (name: string) => boolean; type: 'rename' | 'change'; nth?: number } | { stderr: RegExp } | { never: true });

interface Run {
  outcome: 'killed' | 'finished';
  /** Whether the moment came (the kill was sent). */
  fired: boolean;
  stderr: string;
}

/** Runs the CLI with EVIO_HOME=`dir` and SIGKILLs it at `moment`. */
function runKilledAt(args: string[], dir: string, moment: Moment): Promise<Run> {
  return new Promise((res) => {
    let fired = false;
    let stderr = '';
    let seen = 0;
    const p = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, EVIO_HOME: dir } });
    const fire = () => {
      if (fired) return;
      fired = true;
      p.kill('SIGKILL');
    };
    const w =
      'entry' in moment
        ? watch(dir, (type, name) => {
            if (type === moment.type && name && moment.entry(String(name)) && ++seen >= (moment.nth ?? 1)) fire();
          })
        : null;
    p.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
      if ('stderr' in moment && moment.stderr.test(stderr)) fire();
    });
    p.on('exit', (_code, sig) => {
      w?.close();
      res({ outcome: sig === 'SIGKILL' ? 'killed' : 'finished', fired, stderr });
    });
  });
}

/** The recnum of the last complete line of the flat file at `path` (null when none). */
function lastRecnum(path: string): number | null {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const n = Math.min(size, 64 * 1024);
    const buf = Buffer.alloc(n);
    readSync(fd, buf, 0, n, size - n);
    const lines = buf.toString('utf8').split('\n');
    lines.pop(); // what follows the last newline: empty, or a torn line
    const last = lines.pop();
    return last ? (JSON.parse(last) as StoredEvent).recnum : null;
  } finally {
    closeSync(fd);
  }
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
    const dir = join(tmp.dir, 'build');
    mkdirSync(dir);
    // This process's indexes under the key of the CLI's home (index-key.ts), as one install.
    useIndexKeyFile(indexKeyFileIn(dir));
    const path = join(dir, BASE);
    writeFileSync(path, text(records(1, 40_000)));
    const isTemp = (n: string) => n.startsWith(`${BASE}.evidx.tmp-`);
    const isIndex = (n: string) => n === `${BASE}.evidx`;
    const moments: Moment[] = [
      // A first build, killed while it parses (its temp index holds no segment yet); twice, so
      // that the second build finds the first one's dead temp file.
      { label: 'build: temp index created', entry: isTemp, type: 'rename' },
      { label: 'build: temp index created', entry: isTemp, type: 'rename' },
      // The build's index renamed into place (killed before the process ends, or not).
      { label: 'build: index renamed into place', entry: isIndex, type: 'rename' },
      // Extensions over the records appended since: killed once the segment is written.
      { label: 'extension: segment written', entry: isIndex, type: 'change' },
      { label: 'to the end', never: true },
      { label: 'extension: segment written', entry: isIndex, type: 'change' },
    ];
    let next = 60_001;
    const outcomes: string[] = [];
    for (const moment of moments) {
      const r = await runKilledAt(['events', 'index', path], dir, moment);
      outcomes.push(`${moment.label}: ${r.outcome}${r.fired || 'never' in moment ? '' : ' (the moment never came)'}`);
      if (!('never' in moment)) expect(r.fired, `${moment.label} came`).toBe(true);
      const want = await answers(path, false, { enabled: false, budgetMs: 0 });
      expect(await answers(path, false, { enabled: true, budgetMs: 0 })).toEqual(want);
      // An append after a (possibly partial or missing) index: the tail is scanned or indexed.
      appendFileSync(path, text(records(next, 3000)));
      next += 3000;
      expect(await answers(path, false, { enabled: true, budgetMs: 0 })).toEqual(await answers(path, false, { enabled: false, budgetMs: 0 }));
    }
    console.log(`index kills:\n  ${outcomes.join('\n  ')}`);
    // The builds killed while parsing were cut short; temp files of killed builds are removed
    // by the next build that saves.
    expect(outcomes.slice(0, 2)).toEqual(['build: temp index created: killed', 'build: temp index created: killed']);
    expect(outcomes[4]).toBe('to the end: finished');
    expect((await runKilledAt(['events', 'index', path], dir, { label: 'to the end', never: true })).outcome).toBe('finished');
    expect(readdirSync(dir).filter((n) => n.includes('.evidx.tmp-'))).toEqual([]);
    expect(await answers(path, false, { enabled: true, budgetMs: 0 })).toEqual(await answers(path, false, { enabled: false, budgetMs: 0 }));
  }, 240_000);

  it('SIGKILL during evio events append while its upkeep thread extends the index: queries answer as scans do', async () => {
    const dir = join(tmp.dir, 'append');
    mkdirSync(dir);
    // This process's indexes under the key of the CLI's home (index-key.ts), as one install.
    useIndexKeyFile(indexKeyFileIn(dir));
    const path = join(dir, BASE);
    writeFileSync(path, text(records(1, 20_000)));
    expect((await runKilledAt(['events', 'index', path], dir, { label: 'to the end', never: true })).outcome).toBe('finished');
    const cycle: Moment[] = [
      // The records written, not yet synced or acknowledged.
      { label: 'records written', entry: (n) => n === BASE, type: 'change' },
      // Acknowledged (synced): the upkeep thread is now extending the index.
      { label: 'acknowledged', stderr: /^appended \d+ records/m },
      // The upkeep's segment written into the index.
      { label: 'index extended', entry: (n) => n === `${BASE}.evidx`, type: 'change' },
      { label: 'to the end', never: true },
    ];
    let next = 20_001;
    const outcomes: string[] = [];
    for (let round = 0; round < 8; round++) {
      const moment = cycle[round % cycle.length]!;
      // About 1.5 MB a round: more than the four blocks (1 MiB) that make the upkeep extend
      // the index (the queries of the round before extended it to the end of the file).
      const batch = join(dir, `batch-${round}.ndjson`);
      writeFileSync(batch, text(records(next, 6000)));
      next += 6000;
      const r = await runKilledAt(['events', 'append', `ff:${path}`, batch], dir, moment);
      // Each moment comes in its round: the upkeep does extend the index after an append.
      if (!('never' in moment)) expect(r.fired, `${moment.label} came`).toBe(true);
      outcomes.push(`${moment.label}: ${r.outcome}${r.fired || 'never' in moment ? '' : ' (the moment never came)'}`);
      // An acknowledged append is in the file whole, whatever happened to the upkeep after it.
      if (/^appended \d+ records/m.test(r.stderr)) expect(lastRecnum(path)).toBe(next - 1);
      const want = await answers(path, false, { enabled: false, budgetMs: 0 });
      expect(await answers(path, false, { enabled: true, budgetMs: 0 })).toEqual(want);
      expect(await answers(path, false, { enabled: true, budgetMs: 60_000 })).toEqual(want);
    }
    console.log(`append kills:\n  ${outcomes.join('\n  ')}`);
    // Killed right after its records were written or acknowledged, an append has its sync, the
    // upkeep and the audit record still to do: those rounds are killed.
    expect(outcomes.filter((o) => /^(records written|acknowledged): /.test(o))).toEqual(['records written: killed', 'acknowledged: killed', 'records written: killed', 'acknowledged: killed']);
    expect(outcomes.filter((o) => o.startsWith('to the end'))).toEqual(['to the end: finished', 'to the end: finished']);
  }, 240_000);

  it('SIGKILL during rotate --compress: the family answers every record once', async () => {
    const dir = join(tmp.dir, 'compress');
    mkdirSync(dir);
    // This process's indexes under the key of the CLI's home (index-key.ts), as one install.
    useIndexKeyFile(indexKeyFileIn(dir));
    const path = join(dir, BASE);
    const STAMP = /^\d{8}T\d{6}Z(?:-\d+)?$/;
    const rotated = (n: string) => n.startsWith(`${BASE}.`) && STAMP.test(n.slice(BASE.length + 1));
    const gzTemp = (n: string) => n.startsWith(`${BASE}.`) && /\.gz\.tmp-/.test(n);
    const moments: Moment[] = [
      { label: 'log rotated, not compressed yet', entry: rotated, type: 'rename' },
      { label: 'compression started', entry: gzTemp, type: 'rename' },
      { label: 'compression half-way (20th write)', entry: gzTemp, type: 'change', nth: 20 },
      { label: 'index of the compressed file in place', entry: (n) => n.endsWith('.gz.evidx'), type: 'rename' },
      { label: 'compressed file in place, plain one not removed yet', entry: (n) => n.startsWith(`${BASE}.`) && n.endsWith('.gz'), type: 'rename' },
    ];
    let next = 1;
    const all: StoredEvent[] = [];
    const outcomes: string[] = [];
    for (const moment of moments) {
      const r = records(next, 30_000);
      next += 30_000;
      all.push(...r);
      appendFileSync(path, text(r));
      const run = await runKilledAt(['events', 'rotate', path, '--compress'], dir, moment);
      expect(run.fired, `${moment.label} came`).toBe(true);
      outcomes.push(`${moment.label}: ${run.outcome}`);
      const got = await answers(path, true, { enabled: true, budgetMs: 0 });
      expect(got).toEqual(await answers(path, true, { enabled: false, budgetMs: 0 }));
      // Every record exactly once across the family.
      const s = new FlatFileStore({ path, family: true, index: { enabled: true, cacheDir: null, budgetMs: 0 } });
      const recnums = (await collect(s.query(parseEventQuery({ format: 'ff', file: 'x', family: '1', dump: '1', limit: '10000000' }).query))).map((x) => x.rec.recnum);
      expect(recnums.length).toBe(all.length);
      expect(recnums).toEqual(all.map((x) => x.recnum));
    }
    console.log(`rotate --compress kills:\n  ${outcomes.join('\n  ')}`);
    // Killed when the compression starts or half-way through it, a rotate has the rest of it
    // to do.
    expect(outcomes[1]).toBe('compression started: killed');
    expect(outcomes[2]).toBe('compression half-way (20th write): killed');
    expect(existsSync(path)).toBe(true);
  }, 240_000);
});
