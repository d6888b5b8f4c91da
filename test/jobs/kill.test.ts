// Faults: `evio events import` and `evio events purge --iologs` killed with SIGKILL at random
// moments. After every kill the stores are consistent and nothing beyond the purge's targets is
// lost; running the command again finishes the job, and the result equals an uninterrupted run.
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateEvents } from '../../src/eventlog/generate.js';
import { MemoryStore } from '../../src/eventlog/memory-store.js';
import { parseEventDelete } from '../../src/eventlog/query.js';
import type { EventStore, StoredEvent } from '../../src/eventlog/types.js';
import { dumpQuery } from '../../src/eventlog/query.js';
import { buildCli, runAndKill, runCli, runUntilFileSize, runUntilLines, type CliBuild } from './cli-build.js';
import { fakeSession, makeHome, type JobHome } from './helpers.js';
import { rng } from '../helpers/rng.js';

let build: CliBuild;
let h: JobHome;
beforeAll(() => {
  build = buildCli('jobs-kill');
  h = makeHome('evio-kill-');
}, 120_000);
afterAll(async () => {
  build?.cleanup();
  await h?.cleanup();
});


/** A pretty sudo JSON event log as sudo writes it (4-space indent, repeated keys) of `pairs` sessions. */
function sudoJsonLog(pairs: number): string {
  const rnd = rng(11);
  const members: string[] = [];
  const member = (kind: string, body: unknown) => `    "${kind}": ${JSON.stringify(body, null, 4).replace(/\n/g, '\n    ')}`;
  const t = (s: number, ns: number) => ({ seconds: s, nanoseconds: ns, iso8601: '20261122024459Z', localtime: 'Nov 22 02:44:59 2026' });
  let sec = 1795315499;
  for (let i = 0; i < pairs; i++) {
    sec += 1 + Math.floor(rnd() * 3);
    const uuid = `${i.toString(16).padStart(10, '0')}-cd94-4a9a-98e0-${Math.floor(rnd() * 1e9).toString(16).padStart(10, '0')}`;
    const user = ['root', 'alice', 'bob', 'carol'][i % 4]!;
    if (i % 10 === 9) {
      members.push(member('reject', { uuid, reason: 'command not allowed', server_time: t(sec, 5), submit_time: t(sec, 1), submituser: user, command: '/usr/bin/ls', runuser: 'root', submithost: 'vm', runargv: ['ls', '/root'], runenv: ['PATH=/usr/bin'] }));
      continue;
    }
    const iolog = i % 3 === 0 ? { iolog_path: `/var/log/sudo-io/00/${String(i % 100).padStart(2, '0')}/${String(i).padStart(2, '0')}` } : {};
    members.push(member('accept', { uuid, server_time: t(sec, 5), submit_time: t(sec, 1), ...iolog, submituser: user, command: '/usr/bin/id', runuser: 'root', runcwd: '/tmp', submithost: 'vm', submitcwd: '/tmp', runuid: 0, columns: 80, lines: 24, runargv: ['id', `-${i}`], runenv: ['LANG=C.UTF-8', 'PATH=/usr/bin', `SUDO_USER=${user}`] }));
    members.push(member('exit', { uuid, server_time: t(sec + 1, 9), exit_time: t(sec + 1, 7), run_time: { seconds: 1, nanoseconds: 6 }, exit_value: i % 7, ...iolog }));
  }
  return `{\n${members.join(',\n')}\n}\n`;
}

interface ParsedFile {
  records: StoredEvent[];
  malformed: number;
}

function parseFlatFile(path: string): ParsedFile {
  const out: ParsedFile = { records: [], malformed: 0 };
  if (!existsSync(path)) return out;
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line === '') continue;
    try {
      const v = JSON.parse(line) as StoredEvent;
      if (typeof v.recnum === 'number' && typeof v.etype === 'string') out.records.push(v);
      else out.malformed++;
    } catch {
      out.malformed++;
    }
  }
  return out;
}

async function all(store: EventStore): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const row of store.query(dumpQuery())) out.push(row.rec);
  return out;
}

describe('kill -9 during an import', () => {
  it('flat file: every kill leaves a prefix of the import; running it again gives the uninterrupted result', async () => {
    const src = join(h.dir, 'big-sudo.json');
    writeFileSync(src, sudoJsonLog(2000));
    const cfg = join(h.dir, 'import.json');
    writeFileSync(cfg, JSON.stringify({ home: join(h.dir, 'home') }));
    const started = Date.now();
    const ref = await runCli(build, ['--config', cfg, 'events', 'import', '--from', 'sudo-json', src, '--to', `ff:${join(h.dir, 'ref.ndjson')}`, '--batch', '100']);
    const took = Date.now() - started;
    expect(ref.code, ref.stderr).toBe(0);
    const reference = parseFlatFile(join(h.dir, 'ref.ndjson')).records;
    expect(reference).toHaveLength(3800);

    const target = join(h.dir, 'int.ndjson');
    const refSize = readFileSync(join(h.dir, 'ref.ndjson')).length;
    const rnd = rng(7);
    let midway = 0;
    let kills = 0;
    const check = (r: { signal: NodeJS.Signals | null }) => {
      if (r.signal === 'SIGKILL') kills++;
      const now = parseFlatFile(target);
      // Consistent: what is there is the reference's beginning, each record once, in order.
      expect(now.records).toEqual(reference.slice(0, now.records.length));
      expect(now.malformed).toBeLessThanOrEqual(kills);
      if (now.records.length > 0 && now.records.length < reference.length) midway++;
    };
    const args = ['--config', cfg, 'events', 'import', '--from', 'sudo-json', src, '--to', `ff:${target}`, '--batch', '100'];
    // Kills when the store has grown to random sizes, then at random moments.
    let grown = 0;
    for (let i = 0; i < 4; i++) {
      grown += Math.floor(refSize * (0.05 + rnd() * 0.2));
      check(await runUntilFileSize(build, args, target, grown, h.dir));
    }
    for (let i = 0; i < 3; i++) check(await runAndKill(build, args, Math.floor(took * (0.15 + rnd() * 0.8))));
    expect(midway, 'some kills landed in the middle of the import').toBeGreaterThan(0);
    const fin = await runCli(build, ['--config', cfg, 'events', 'import', '--from', 'sudo-json', src, '--to', `ff:${target}`, '--batch', '100']);
    expect(fin.code, fin.stderr).toBe(0);
    const done = parseFlatFile(target);
    expect(done.records).toEqual(reference);
    // And once more: nothing to add.
    const again = await runCli(build, ['--config', cfg, 'events', 'import', '--from', 'sudo-json', src, '--to', `ff:${target}`]);
    expect(JSON.parse(again.stdout)).toMatchObject({ importedTotal: 0, alreadyPresent: 3800 });
  }, 180_000);

  it('SQLite: every kill leaves whole batches; running it again gives the uninterrupted result', async (ctx) => {
    let SqliteStore: new (p: string) => EventStore;
    try {
      ({ SqliteStore } = (await import('../../src/eventlog/sqlite/index.js')) as { SqliteStore: new (p: string) => EventStore });
    } catch {
      return ctx.skip();
    }
    const src = join(h.dir, 'big-sudo-db.json');
    writeFileSync(src, sudoJsonLog(1500));
    const cfg = join(h.dir, 'import-db.json');
    writeFileSync(cfg, JSON.stringify({ home: join(h.dir, 'home') }));
    const run = (db: string, killAfter?: number) => {
      const args = ['--config', cfg, 'events', 'import', '--from', 'sudo-json', src, '--to', `db:${db}`, '--batch', '25'];
      return killAfter === undefined ? runCli(build, args) : runAndKill(build, args, killAfter);
    };
    const started = Date.now();
    const ref = await run(join(h.dir, 'ref.sqlite'));
    const took = Date.now() - started;
    expect(ref.code, ref.stderr).toBe(0);
    const refStore = new SqliteStore(join(h.dir, 'ref.sqlite'));
    const reference = await all(refStore);
    await refStore.close();
    expect(reference).toHaveLength(2850);

    const rnd = rng(3);
    for (let i = 0; i < 6; i++) {
      await run(join(h.dir, 'int.sqlite'), Math.floor(took * (0.2 + rnd() * 0.8)));
      const s = new SqliteStore(join(h.dir, 'int.sqlite'));
      const now = await all(s).catch(() => [] as StoredEvent[]);
      await s.close();
      expect(now).toEqual(reference.slice(0, now.length));
    }
    expect((await run(join(h.dir, 'int.sqlite'))).code).toBe(0);
    const s = new SqliteStore(join(h.dir, 'int.sqlite'));
    expect(await all(s)).toEqual(reference);
    await s.close();
  }, 180_000);
});

describe.each(['flat file', 'SQLite'] as const)('kill -9 during a purge with I/O logs (%s)', (kind) => {
  it('loses nothing beyond the targets, and a re-run ends where an uninterrupted purge ends', async () => {
    const home = join(h.dir, `purge-${kind === 'SQLite' ? 'db' : 'ff'}`);
    const events = [...generateEvents({ count: 8000, seed: 21, iologRoot: '.' })];
    mkdirSync(join(home, 'io'), { recursive: true });
    writeFileSync(join(home, 'events.ndjson'), events.map((e) => `${JSON.stringify(e)}\n`).join(''));
    const ks = events.filter((e) => e.etype === 'K');
    for (const k of ks) fakeSession(join(home, 'io', k.iolog!), 64);
    writeFileSync(join(home, 'evio.json'), JSON.stringify({ home: 'home', eventlogdirs: ['.'], iologdirs: ['io'] }));
    const storeOf = (dir: string) => (kind === 'SQLite' ? `db:${join(dir, 'events.sqlite')}` : `ff:${join(dir, 'events.ndjson')}`);
    if (kind === 'SQLite') {
      const c = await runCli(build, ['--config', join(home, 'evio.json'), 'events', 'copy', '--from', `ff:${join(home, 'events.ndjson')}`, '--to', storeOf(home)], { cwd: home });
      expect(c.code, c.stderr).toBe(0);
    }
    const readStore = async (dir: string): Promise<StoredEvent[]> => {
      if (kind !== 'SQLite') {
        const f = parseFlatFile(join(dir, 'events.ndjson'));
        expect(f.malformed).toBe(0);
        return f.records;
      }
      const r = await runCli(build, ['--config', join(dir, 'evio.json'), 'events', 'export', storeOf(dir), '--dump', '1', '--verbose', '1'], { cwd: dir });
      expect(r.code, r.stderr).toBe(0);
      return r.stdout.split('\n').filter(Boolean).map((l) => {
        const { epoch: _e, exittime: _x, ...rec } = JSON.parse(l) as StoredEvent & { epoch?: string; exittime?: string };
        return rec as StoredEvent;
      });
    };
    const cutoff = events[4000]!.time;
    const args = (dir: string) => ['--config', join(dir, 'evio.json'), 'events', 'purge', storeOf(dir), '--to', String(cutoff), '--iologs', '--yes', '--batch', '300'];

    // What must remain: the reference store's answer to the same delete.
    const mem = new MemoryStore();
    await mem.append(events);
    await mem.delete(parseEventDelete({ format: 'ff', file: 'x', to: String(cutoff) }).filter);
    const keep = new Set(mem.all().map((r) => r.recnum));
    const targets = events.filter((e) => !keep.has(e.recnum));
    expect(targets.length).toBeGreaterThan(3000);
    const keptSessions = ks.filter((k) => keep.has(k.recnum)).map((k) => k.iolog!);

    // An uninterrupted run on a copy.
    const refDir = `${home}-ref`;
    cpSync(home, refDir, { recursive: true });
    const started = Date.now();
    const ref = await runCli(build, args(refDir), { cwd: refDir });
    const took = Date.now() - started;
    expect(ref.code, ref.stderr).toBe(0);
    expect(JSON.parse(ref.stdout)).toMatchObject({ records: targets.length, sessions: ks.length - keptSessions.length });

    const rnd = rng(5);
    let midway = 0;
    const check = async () => {
      const present = new Set((await readStore(home)).map((r) => r.recnum));
      // Nothing beyond the targets is lost: every kept record and every kept session is there.
      for (const r of keep) expect(present.has(r)).toBe(true);
      for (const p of keptSessions) expect(existsSync(join(home, 'io', p, 'timing'))).toBe(true);
      // A flat file's records go in one atomic rewrite: all there, or the purge is done.
      if (kind !== 'SQLite') expect(present.size === events.length || present.size === keep.size).toBe(true);
      const gone = ks.filter((k) => !keep.has(k.recnum) && !existsSync(join(home, 'io', k.iolog!))).length;
      if (present.size > keep.size && gone > 0) midway++;
    };
    // Kills at random points of the I/O-log phase (each removed session prints a line with
    // --list, on standard error), then at random moments.
    const sessionsToGo = ks.length - keptSessions.length;
    for (let i = 0; i < 4; i++) {
      await runUntilLines(build, [...args(home), '--list'], 1 + Math.floor(rnd() * (sessionsToGo / 4)), home, 'stderr');
      await check();
    }
    for (let i = 0; i < 4; i++) {
      await runAndKill(build, args(home), Math.floor(took * (0.1 + rnd() * 0.9)), home);
      await check();
    }
    expect(midway, 'some kills landed between the first removed I/O log and the records').toBeGreaterThan(0);
    const fin = await runCli(build, args(home), { cwd: home });
    expect(fin.code, fin.stderr).toBe(0);
    expect(await readStore(home)).toEqual(await readStore(refDir));
    for (const k of ks) expect(existsSync(join(home, 'io', k.iolog!)), k.iolog).toBe(existsSync(join(refDir, 'io', k.iolog!)));
  }, 240_000);
});
