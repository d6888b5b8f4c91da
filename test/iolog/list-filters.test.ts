// The session list's sudoreplay -l filters: a repeated wildcard is OR within its field,
// match=any ORs the filters, runargv / cwd / tty filters on their own index columns, relative
// times from one clock reading, and an index of the older schema is built again.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine.js';
import { iologIndex, iologList } from '../../src/app/iolog.js';
import { INDEX_SCHEMA_VERSION } from '../../src/iolog/index-db.js';
import { parseListParams, queryIndex } from '../../src/iolog/list-query.js';
import { copyTree, makeEngine, removeDir, SAMPLES, tempDir } from './helpers.js';

let root: string;
let engine: Engine;
beforeAll(async () => {
  root = tempDir();
  copyTree(join(SAMPLES, 'sudo-io'), join(root, 'sudo-io'));
  // One session ran elsewhere, from another directory (log.json's runcwd).
  const info = join(root, 'sudo-io/00/00/05/log.json');
  writeFileSync(info, JSON.stringify({ ...JSON.parse(readFileSync(info, 'utf8')), runcwd: '/srv/app, build' }));
  engine = makeEngine([join(root, 'sudo-io')]);
  await iologIndex(engine);
});
afterAll(async () => {
  await engine.close();
  removeDir(root);
});

type P = Record<string, string | string[]>;
const ids = async (p: P) => (await iologList(engine, { refresh: '0', len: '100', ...p })).map((r) => r.uniqueid).sort();

describe('session-list filters', () => {
  it('a repeated wildcard parameter is OR within its field, AND with the others', async () => {
    expect(await ids({ runuser: ['root'] })).toEqual(await ids({ runuser: 'root' }));
    const nobodyOrRoot = await ids({ submituser: ['nobody', 'root'] });
    const each = [...(await ids({ submituser: 'nobody' })), ...(await ids({ submituser: 'root' }))].sort();
    expect(nobodyOrRoot).toEqual(each);
    expect(nobodyOrRoot.length).toBeGreaterThan(1);
    expect(await ids({ runcmd: ['*kill -S*', '*kill -T*'] })).toEqual(['000008', '00000B']);
    expect(await ids({ runcmd: ['*kill -S*', '*kill -T*'], tty: '?*' })).toEqual([]);
  });

  it('runargv is the argument vector as typed; runcmd the resolved command line', async () => {
    expect(await ids({ runargv: 'ls -la /' })).toEqual(['000001', '000002']);
    expect(await ids({ runcmd: 'ls -la /' })).toEqual([]);
    expect(await ids({ runargv: ['id', '/usr/bin/id'] })).toEqual(['nobody/root-20261122-vR9D0b', 'root/nobody-20261122-FLddxr']);
  });

  it('cwd and tty filter on their own columns (a comma in a value is just a character)', async () => {
    expect(await ids({ cwd: '/srv/app, build' })).toEqual(['000005']);
    expect(await ids({ cwd: '/srv/*' })).toEqual(['000005']);
    expect(await ids({ tty: '/dev/pts/0' })).toEqual(['000001', '000002', '000004', '000005']);
    expect((await ids({ tty: ['/dev/pts/0', '*/1'] })).length).toBe(7);
    expect((await ids({ tty: '' })).length).toBe(15); // empty = no filter
  });

  it('match=any lists sessions that match any one filter', async () => {
    const a = await ids({ cwd: '/srv/*' });
    const b = await ids({ submituser: 'nobody' });
    expect(await ids({ cwd: '/srv/*', submituser: 'nobody' })).toEqual([]);
    expect(await ids({ cwd: '/srv/*', submituser: 'nobody', match: 'any' })).toEqual([...a, ...b].sort());
    expect(await ids({ cwd: '/srv/*', submituser: 'nobody', match: 'ALL' })).toEqual([]);
    await expect(ids({ match: 'either' })).rejects.toMatchObject({ code: 1425 });
  });

  it('relative times come from one clock reading', () => {
    // The samples were recorded on 2026-11-22 between 02:43 and 02:46 UTC.
    const now = Date.UTC(2026, 10, 23, 9) / 1000;
    const q = (p: P) => queryIndex(engine.settings.iologcache, parseListParams(p, 'UTC', now)).map((r) => r.uniqueid);
    expect(q({ from: 'yesterday', to: 'yesterday', len: '100' })).toHaveLength(15);
    expect(q({ from: 'today' })).toEqual([]);
    expect(q({ from: '-30h', to: '-29h' })).toHaveLength(0);
    expect(q({ from: '-31h', len: '100' })).toHaveLength(15);
  });

  it('the answer states createtime in ISO 8601 with the zone', async () => {
    const [first] = await iologList(engine, { refresh: '0', len: '1' });
    expect(first!.createtime_iso).toBe(new Date(Math.floor(first!.createtime / 1000) * 1000).toISOString().replace('.000Z', '+00:00'));
  });

  it('an index of the older schema is dropped and built again', async () => {
    const file = engine.settings.iologcache;
    const db = new Database(file);
    db.exec("ALTER TABLE sessions DROP COLUMN tty; UPDATE meta SET value = '1' WHERE key = 'schema'");
    db.close();
    // Readers see no index until an update builds it again (never "no such column").
    expect(await ids({ tty: '/dev/pts/0' })).toEqual([]);
    const stats = await iologIndex(engine);
    expect(stats.added).toBe(15);
    expect(await ids({ tty: '/dev/pts/0' })).toEqual(['000001', '000002', '000004', '000005']);
    const check = new Database(file, { readonly: true });
    expect((check.prepare("SELECT value FROM meta WHERE key = 'schema'").get() as { value: string }).value).toBe(String(INDEX_SCHEMA_VERSION));
    check.close();
  });
});
