// The cached list: build, incremental update, every filter, paging, removal by path.
import { readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine.js';
import { parseTimeBoundMs } from '../../src/common/time-parse.js';
import { iologIndex, iologList, removeIologsFromIndex } from '../../src/app/iolog.js';
import { copyTree, makeEngine, removeDir, SAMPLES, tempDir } from './helpers.js';

let root: string;
let engine: Engine;
beforeAll(() => {
  root = tempDir();
  copyTree(join(SAMPLES, 'sudo-io'), join(root, 'sudo-io'));
  copyTree(join(SAMPLES, 'logsrvd-io'), join(root, 'logsrvd-io'));
  copyTree(join(SAMPLES, 'demo.cast'), join(root, 'demo.cast'));
  engine = makeEngine([join(root, 'sudo-io'), join(root, 'logsrvd-io'), root]);
});
afterAll(async () => {
  await engine.close();
  removeDir(root);
});

const list = (p: Record<string, string> = {}) => iologList(engine, { refresh: '0', ...p });

describe('cached list', () => {
  it('indexes every session once (nested roots), with the DESIGN fields', async () => {
    const stats = await iologIndex(engine);
    expect(stats).toMatchObject({ total: 18, added: 18, updated: 0, removed: 0, unchanged: 0 });
    const all = await list({ len: '100' });
    expect(all).toHaveLength(18);
    const first = all.find((r) => r.logpath === join(root, 'sudo-io/00/00/01'))!;
    expect(first).toEqual({
      uniqueid: '000001',
      partnum: 0,
      createtime: 1795315409571,
      loghost: hostname(),
      logpath: join(root, 'sudo-io/00/00/01'),
      submithost: 'vm',
      submituser: 'root',
      runhost: 'vm',
      runuser: 'nobody',
      runcmd: '/usr/bin/ls -la /',
      // The session's length from its timing (ms), and its end; sudo wrote no exit fields here.
      duration: 5,
      exitstatus: '',
      createtime_iso: '2026-11-22T02:43:29+00:00',
      end: 1795315409576,
      end_iso: '2026-11-22T02:43:29+00:00',
      // The copied sample's timing keeps its write bits here: to the list it is still being recorded.
      live: (statSync(join(first.logpath, 'timing')).mode & 0o222) !== 0,
    });
    const x = all.find((r) => r.logpath.endsWith('FLddxr'))!;
    expect(x.uniqueid).toBe('root/nobody-20261122-FLddxr');
    const cast = all.find((r) => r.logpath.endsWith('demo.cast'))!;
    expect(cast.createtime).toBe(1795315589000);
    // ordered by createtime, then path
    expect(all.map((r) => r.createtime)).toEqual([...all.map((r) => r.createtime)].sort((a, b) => a - b));
  });

  it('lists how a session ended (sudo_logsrvd\'s exit fields) and sorts by any column, either way', async () => {
    const srv = (await list({ len: '100', sort: 'logpath' })).filter((r) => r.logpath.includes('/logsrvd-io/'));
    expect(srv.map((r) => [r.logpath.slice(r.logpath.indexOf('logsrvd-io')), r.exitstatus, r.duration])).toEqual([
      ['logsrvd-io/00/00/01', 'Command finished with exit status 0', 4],
      ['logsrvd-io/00/00/02', 'Command finished with exit status 4', 2],
    ]);
    const all = await list({ len: '100' });
    const newest = await list({ len: '100', sort: 'createtime', order: 'desc' });
    expect(newest.map((r) => r.logpath)).toEqual([...all].reverse().map((r) => r.logpath));
    type Key = (r: (typeof all)[number]) => number | string;
    const keyOf: [string, Key][] = [
      ['duration', (r) => r.duration],
      ['end', (r) => r.end ?? r.createtime],
      ['runuser', (r) => r.runuser],
      ['exitstatus', (r) => r.exitstatus],
    ];
    for (const [sort, key] of keyOf) {
      for (const order of ['asc', 'desc'] as const) {
        const rows = await list({ len: '100', sort, order });
        expect(rows).toHaveLength(all.length);
        const keys = rows.map(key);
        const sorted = [...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        expect(keys).toEqual(order === 'asc' ? sorted : sorted.reverse());
      }
    }
    // Paging follows the order: the second page of newest-first continues the first.
    const p1 = await list({ len: '5', sort: 'createtime', order: 'desc' });
    const p2 = await list({ len: '5', start: '5', sort: 'createtime', order: 'desc' });
    expect([...p1, ...p2].map((r) => r.logpath)).toEqual(newest.slice(0, 10).map((r) => r.logpath));
    await expect(list({ sort: 'colour' })).rejects.toMatchObject({ code: 1469 });
    await expect(list({ order: 'sideways' })).rejects.toMatchObject({ code: 1469 });
  });

  it('filters: wildcards, from/to (inclusive, minute precision), path glob, paging', async () => {
    expect((await list({ submituser: 'nobody' })).map((r) => r.uniqueid)).toEqual(['nobody/root-20261122-vR9D0b']);
    expect((await list({ runuser: 'r??t', runcmd: '/usr/bin/id*' })).map((r) => r.runcmd)).toEqual(['/usr/bin/id']);
    expect((await list({ runcmd: '*kill -[ST]*' })).map((r) => r.uniqueid)).toEqual(['000008', '00000B']);
    expect(await list({ submithost: 'elsewhere' })).toEqual([]);
    expect((await list({ runhost: 'v[l-n]' })).length).toBe(17);
    // 1795315500 = 2026-11-22 02:45:00 UTC; "to" with minutes includes that whole minute
    const upTo = await list({ to: '2026-11-22 02:44', len: '100' });
    expect(upTo.every((r) => r.createtime <= Date.UTC(2026, 10, 22, 2, 44, 59, 999))).toBe(true);
    expect(upTo.length).toBe(7);
    const from = await list({ from: '2026-11-22 02:45', len: '100' });
    expect(from.length + upTo.length).toBe(18);
    expect((await list({ from: '2026/11/22 02:45:31', to: '1795315531' })).map((r) => r.uniqueid)).toEqual(['00000A', '00000B', '00000C']);
    expect((await list({ path: 'nobody/*' })).map((r) => r.uniqueid)).toEqual(['nobody/root-20261122-vR9D0b']);
    expect((await list({ path: `${root}/logsrvd-io/**` })).length).toBe(2);
    expect((await list({ path: '*.cast' })).length).toBe(1);
    const page1 = await list({ start: '0', len: '5' });
    const page2 = await list({ start: '5', len: '5' });
    const all = await list({ len: '100' });
    expect([...page1, ...page2]).toEqual(all.slice(0, 10));
  });

  it('refuses bad parameters with clear codes', async () => {
    await expect(list({ from: 'yesterday-ish' })).rejects.toMatchObject({ code: 1105 });
    await expect(list({ from: '2026-11-23', to: '2026-11-22' })).rejects.toMatchObject({ code: 1115 });
    await expect(list({ start: 'x' })).rejects.toMatchObject({ code: 1401 });
    await expect(list({ path: '../*' })).rejects.toMatchObject({ code: 1406 });
    await expect(list({ runuser: 'x'.repeat(2000) })).rejects.toMatchObject({ code: 1113 });
  });

  it('updates incrementally: only new or changed sessions are read, vanished ones removed', async () => {
    const again = await iologIndex(engine);
    expect(again).toMatchObject({ total: 18, added: 0, updated: 0, removed: 0, unchanged: 18 });
    const j = join(root, 'sudo-io/00/00/02/log.json');
    writeFileSync(j, readFileSync(j, 'utf8').replace('"submituser": "root"', '"submituser": "mallory"'));
    utimesSync(j, new Date(), new Date(Date.now() + 5000));
    rmSync(join(root, 'sudo-io/00/00/0D'), { recursive: true });
    copyTree(join(root, 'sudo-io/00/00/01'), join(root, 'sudo-io/00/00/0E'));
    const s = await iologIndex(engine);
    expect(s).toMatchObject({ total: 18, added: 1, updated: 1, removed: 1, unchanged: 16 });
    expect((await list({ submituser: 'mallory' })).map((r) => r.uniqueid)).toEqual(['000002']);
    expect((await list({ path: '00/00/0D' }))).toEqual([]);
  });

  it('removes sessions from the index by path (the purge job)', async () => {
    expect(removeIologsFromIndex(engine, [join(root, 'sudo-io/00/00/0E')])).toBe(1);
    expect(removeIologsFromIndex(engine, [join(root, 'logsrvd-io')])).toBe(2);
    expect(removeIologsFromIndex(engine, [join(root, 'does-not-exist')])).toBe(0);
    expect((await list({ len: '100' })).length).toBe(15);
  });
});

describe('list dates', () => {
  it('reads the accepted forms in the configured zone', () => {
    expect(parseTimeBoundMs('2026-11-22 02:44', 'UTC', 'from', false, 0)).toBe(Date.UTC(2026, 10, 22, 2, 44));
    expect(parseTimeBoundMs('2026-11-22 02:44', 'UTC', 'to', true, 0)).toBe(Date.UTC(2026, 10, 22, 2, 44, 59, 999));
    expect(parseTimeBoundMs('2026/11/22', 'UTC', 'to', true, 0)).toBe(Date.UTC(2026, 10, 23) - 1);
    expect(parseTimeBoundMs('2026-11-22T02:44:10Z', 'Europe/Berlin', 'from', false, 0)).toBe(Date.UTC(2026, 10, 22, 2, 44, 10));
    expect(parseTimeBoundMs('2026-11-22 03:44', 'Europe/Berlin', 'from', false, 0)).toBe(Date.UTC(2026, 10, 22, 2, 44));
    expect(parseTimeBoundMs('2026-07-01 12:00', 'America/New_York', 'from', false, 0)).toBe(Date.UTC(2026, 6, 1, 16, 0));
    expect(parseTimeBoundMs('2026-11-22T02:44:10+01:00', 'UTC', 'from', false, 0)).toBe(Date.UTC(2026, 10, 22, 1, 44, 10));
    expect(parseTimeBoundMs('1795315500', 'UTC', 'from', false, 0)).toBe(1795315500000);
    expect(() => parseTimeBoundMs('2026-02-30', 'UTC', 'from', false, 0)).toThrow(/1105/);
  });
});
