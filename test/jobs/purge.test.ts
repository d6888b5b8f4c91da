// Purge with I/O logs on temp roots holding real sudo sessions: only sessions inside the roots
// go (symlinks and paths outside are reported and left), the cached index forgets them, a dry
// run reports exactly what the real run does, DELETE /events/iologs keeps flat-file records,
// an interrupted purge is finished by the next one.
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FlatFileStore } from '../../src/eventlog/flatfile/index.js';
import { MemoryStore } from '../../src/eventlog/memory-store.js';
import { dumpQuery } from '../../src/eventlog/query.js';
import type { EventStore, NewEvent, StoredEvent } from '../../src/eventlog/types.js';
import { dispatch } from '../../src/app/router.js';
import { updateIndex } from '../../src/iolog/index-update.js';
import { tombstoneOf } from '../../src/iolog/removal.js';
import { jobsDir, storeTag } from '../../src/common/job-files.js';
import { purgeEvents, type PurgeReport, type SessionOutcome } from '../../src/app/events-purge.js';
import { copySession, fakeSession, link, makeHome, type JobHome } from './helpers.js';

let h: JobHome;
beforeEach(() => {
  h = makeHome('evio-purge-');
  for (const n of ['01', '02', '03', '04', '05']) copySession(n, join(h.root, '00', '00', n));
  fakeSession(join(h.outside, 'sess'));
  writeFileSync(join(h.outside, 'secret.txt'), 'keep me');
  link(join(h.outside, 'sess'), join(h.root, '00', '00', '06')); // a symlink out of the root
  fakeSession(join(h.root, '00', '00', '07'));
  link(join(h.outside, 'secret.txt'), join(h.root, '00', '00', '07', 'evil')); // a link inside a session
});
afterEach(async () => h.cleanup());

function records(): NewEvent[] {
  const io = (p: string) => join(h.root, p);
  return [
    { uniqueid: 'u1', etype: 'K', time: 1000, submituser: 'a', iolog: '00/00/01' },
    { uniqueid: 'u1', etype: 'F', time: 1001, exitstatus: 'Command finished with exit status 0' },
    { uniqueid: 'u2', etype: 'K', time: 1002, submituser: 'b', iolog: io('00/00/02') },
    { uniqueid: 'u3', etype: 'K', time: 1003, submituser: 'c', iolog: io('00/00/06') },
    { uniqueid: 'u4', etype: 'K', time: 1004, submituser: 'd', iolog: join(h.outside, 'sess') },
    { uniqueid: 'u5', etype: 'K', time: 1005, submituser: 'e', iolog: h.root },
    { uniqueid: 'u6', etype: 'K', time: 1006, submituser: 'f', iolog: io('00/00') },
    { uniqueid: 'u7', etype: 'K', time: 1007, submituser: 'g', iolog: io('00/00/07') },
    { uniqueid: 'u8', etype: 'K', time: 1008, submituser: 'h', iolog: io('00/00/99') },
    { uniqueid: 'u9', etype: 'A', time: 1009, submituser: 'i' },
    { uniqueid: 'u10', etype: 'R', time: 1010, submituser: 'j', reason: 'command not allowed', exitstatus: 'Request rejected: command not allowed' },
    { uniqueid: 'u11', etype: 'K', time: 5000, submituser: 'k', iolog: io('00/00/03') },
    { uniqueid: 'u12', etype: 'K', time: 5001, submituser: 'l', iolog: '00/00/04' },
    { uniqueid: 'u11', etype: 'F', time: 5002, exitstatus: 'Command finished with exit status 1' },
    { uniqueid: 'u13', etype: 'K', time: 1011, submituser: 'm', iolog: io('00/00/02') },
  ];
}

async function all(store: EventStore): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const row of store.query(dumpQuery())) out.push(row.rec);
  return out;
}

function indexed(): string[] {
  const db = new Database(h.settings.iologcache, { readonly: true });
  try {
    return (db.prepare('SELECT logpath FROM sessions ORDER BY logpath').all() as Array<{ logpath: string }>).map((r) => r.logpath);
  } finally {
    db.close();
  }
}

type Kind = 'flat file' | 'memory' | 'sqlite (batches of 2)';
async function openStore(kind: Kind): Promise<EventStore | null> {
  switch (kind) {
    case 'flat file':
      return new FlatFileStore({ path: join(h.dir, 'events.ndjson') });
    case 'memory':
      return new MemoryStore();
    case 'sqlite (batches of 2)':
      try {
        const { SqliteStore } = (await import('../../src/eventlog/sqlite/index.js')) as { SqliteStore: new (p: string) => EventStore };
        return new SqliteStore(join(h.dir, 'events.sqlite'));
      } catch {
        return null;
      }
  }
}

const params = (store: EventStore, more: Record<string, string>) => ({ ...(store.kind === 'ff' ? { format: 'ff', file: join(h.dir, 'events.ndjson') } : { format: 'db' }), ...more });

describe.each<Kind>(['flat file', 'memory', 'sqlite (batches of 2)'])('purge --iologs on a %s', (kind) => {
  it('removes the targets, their sessions inside the roots and their index rows, and nothing else', async (ctx) => {
    const store = await openStore(kind);
    if (!store) return ctx.skip();
    await store.append(records());
    await updateIndex(h.settings.iologdirs, h.settings.iologcache);
    expect(indexed().map((p) => p.slice(h.root.length))).toEqual(['/00/00/01', '/00/00/02', '/00/00/03', '/00/00/04', '/00/00/05', '/00/00/07']);

    const sizes = (d: string) => ['log', 'log.json', 'stderr', 'stdin', 'stdout', 'timing', 'ttyin', 'ttyout'].reduce((b, f) => b + (existsSync(join(d, f)) ? statSync(join(d, f)).size : 0), 0);
    const expectedBytes = sizes(join(h.root, '00/00/01')) + sizes(join(h.root, '00/00/02')) + sizes(join(h.root, '00/00/07'));
    const listed: SessionOutcome[] = [];
    const opts = { store, params: params(store, { to: '2000' }), iologs: true, keepRecords: false, batchSize: 2 };
    const dry = await purgeEvents(h.engine, { ...opts, dryRun: true, onSession: (s) => listed.push(s) });
    // Nothing changed yet.
    expect(await all(store)).toHaveLength(15);
    expect(existsSync(join(h.root, '00/00/01/timing'))).toBe(true);
    const real = await purgeEvents(h.engine, { ...opts, dryRun: false });

    const strip = ({ dryRun: _d, indexRemoved: _i, ...r }: PurgeReport) => r;
    expect(strip(real)).toEqual(strip(dry));
    // The records of the four refused I/O logs stay with them (issue 27): 12 matched, 8 deleted.
    expect(real).toMatchObject({ records: 8, kept: 4, sessions: 3, directories: 3, missing: 1, refused: 4, recordsKept: false, interrupted: null });
    expect(real.files).toBe(8 + 8 + 4); // two sample sessions, the fake one with its link
    expect(real.bytes).toBe(expectedBytes);
    expect(real.refusedPaths).toEqual([
      { path: join(h.root, '00/00/06'), reason: 'is a symbolic link (not followed)' },
      { path: join(h.outside, 'sess'), reason: 'is outside the I/O log roots' },
      { path: h.root, reason: 'is an I/O log root or contains one' },
      { path: join(h.root, '00/00'), reason: 'is not a sudo session directory (no timing with log.json or log)' },
    ]);
    expect(listed.map((s) => [s.action, s.path.replace(h.dir, '')])).toEqual([
      ['would-remove', '/io/00/00/01'],
      ['would-remove', '/io/00/00/02'],
      ['refused', '/io/00/00/06'],
      ['refused', '/outside/sess'],
      ['refused', '/io'],
      ['refused', '/io/00/00'],
      ['would-remove', '/io/00/00/07'],
      ['missing', '/io/00/00/99'],
    ]);

    // The targets are gone, everything else is there.
    expect((await all(store)).map((r) => `${r.uniqueid}${r.etype}`)).toEqual(['u3K', 'u4K', 'u5K', 'u6K', 'u11K', 'u12K', 'u11F']);
    for (const n of ['01', '02', '07']) expect(existsSync(join(h.root, '00/00', n))).toBe(false);
    for (const n of ['03', '04', '05']) expect(existsSync(join(h.root, '00/00', n, 'timing'))).toBe(true);
    expect(lstatSync(join(h.root, '00/00/06')).isSymbolicLink()).toBe(true);
    expect(existsSync(join(h.outside, 'sess', 'timing'))).toBe(true);
    expect(readFileSync(join(h.outside, 'secret.txt'), 'utf8')).toBe('keep me');
    expect(indexed().map((p) => p.slice(h.root.length))).toEqual(['/00/00/03', '/00/00/04', '/00/00/05']);
    expect(real.indexRemoved).toBe(3);
    expect(existsSync(join(jobsDir(h.settings.home), `purge-${storeTag(store.name)}.json`))).toBe(false);

    // Running it again finds nothing left to do but the refused I/O logs, reported again with their records kept.
    expect(await purgeEvents(h.engine, { ...opts, dryRun: false })).toMatchObject({ records: 0, sessions: 0, refused: 4, kept: 4 });
    await store.close();
  });

  it('without --iologs leaves every I/O log', async (ctx) => {
    const store = await openStore(kind);
    if (!store) return ctx.skip();
    await store.append(records());
    const r = await purgeEvents(h.engine, { store, params: params(store, { to: '2000' }), iologs: false, keepRecords: false, dryRun: false });
    expect(r).toMatchObject({ records: 12, sessions: 0, files: 0 });
    expect(existsSync(join(h.root, '00/00/01/timing'))).toBe(true);
    await store.close();
  });
});

describe('DELETE /REST/v2.0/events/iologs', () => {
  async function call(query: Record<string, string>) {
    const res = await dispatch(h.engine, { method: 'DELETE', path: '/REST/v2.0/events/iologs', query, signal: new AbortController().signal });
    return res as { http: number; body: Record<string, unknown> };
  }

  it('on a flat file removes the I/O logs and keeps the records (the spec\'s rule)', async () => {
    const store = new FlatFileStore({ path: join(h.dir, 'events.ndjson') });
    await store.append(records());
    const before = readFileSync(join(h.dir, 'events.ndjson'), 'utf8');
    const dry = await call({ format: 'ff', file: 'events.ndjson', to: '2000', dryrun: '1' });
    expect(dry.body).toMatchObject({ status: 0, deleted: 0, recordsKept: true, sessions: 3, dryRun: true });
    expect(existsSync(join(h.root, '00/00/01'))).toBe(true);
    const res = await call({ format: 'ff', file: 'events.ndjson', to: '2000' });
    expect(res.http).toBe(200);
    expect(res.body).toMatchObject({ status: 0, deleted: 0, recordsKept: true, sessions: 3, refused: 4, missing: 1 });
    expect(readFileSync(join(h.dir, 'events.ndjson'), 'utf8')).toBe(before);
    expect(existsSync(join(h.root, '00/00/01'))).toBe(false);
  });

  it('validates like DELETE /events: no filter needs all=1, unknown parameters are refused', async () => {
    expect((await call({ format: 'ff', file: 'events.ndjson' })).body.status).toBe(1111);
    expect((await call({ format: 'ff', file: 'events.ndjson', to: '1', bogus: '1' })).body.status).toBe(1114);
    expect((await call({ format: 'ff', file: 'events.ndjson', to: '1', dryrun: 'yes' })).body.status).toBe(1110);
    expect((await call({ format: 'ff', file: '/etc/passwd', to: '1' })).body.status).toBe(1008);
  });
});

describe('an interrupted purge', () => {
  it('is finished by the next purge of the store: records whose files went first are deleted', async () => {
    const store = new FlatFileStore({ path: join(h.dir, 'events.ndjson') });
    await store.append(records());
    // What a purge killed after its file phase leaves: the journal, the files gone, the records there.
    mkdirSync(jobsDir(h.settings.home), { recursive: true });
    const p = { format: 'ff', file: join(h.dir, 'events.ndjson'), to: '1003' };
    writeFileSync(join(jobsDir(h.settings.home), `purge-${storeTag(store.name)}.json`), JSON.stringify({ store: store.name, params: p, iologs: true, keepRecords: false, startedAt: '2026-11-22T00:00:00.000Z', pid: 999999 }));
    for (const s of ['01', '02']) rmSync(join(h.root, '00/00', s), { recursive: true });

    const dry = await purgeEvents(h.engine, { store, params: { ...p, to: '1', submituser: 'nobody' }, iologs: true, keepRecords: false, dryRun: true });
    expect(dry.interrupted).toMatchObject({ startedAt: '2026-11-22T00:00:00.000Z', report: null });
    const r = await purgeEvents(h.engine, { store, params: { ...p, to: '1', submituser: 'nobody' }, iologs: true, keepRecords: false, dryRun: false });
    expect(r.records).toBe(0);
    expect(r.interrupted!.report).toMatchObject({ records: 3, kept: 1, missing: 2, refused: 1 });
    expect((await all(store)).map((r) => r.uniqueid)).toEqual(['u3', 'u4', 'u5', 'u6', 'u7', 'u8', 'u9', 'u10', 'u11', 'u12', 'u11', 'u13']);
    expect(existsSync(join(jobsDir(h.settings.home), `purge-${storeTag(store.name)}.json`))).toBe(false);
  });

  it('removes the half-written journal a purge killed while writing it left (<journal>.<pid>.new)', async () => {
    const store = new FlatFileStore({ path: join(h.dir, 'events.ndjson') });
    await store.append(records());
    mkdirSync(jobsDir(h.settings.home), { recursive: true });
    const journal = join(jobsDir(h.settings.home), `purge-${storeTag(store.name)}.json`);
    writeFileSync(`${journal}.999999.new`, '{"store":');
    const r = await purgeEvents(h.engine, { store, params: { format: 'ff', file: join(h.dir, 'events.ndjson'), to: '1001' }, iologs: false, keepRecords: false, dryRun: false });
    expect({ records: r.records, interrupted: r.interrupted }).toEqual({ records: 2, interrupted: null });
    expect(readdirSync(jobsDir(h.settings.home)).filter((n) => n.startsWith('purge-'))).toEqual([]);
  });

  it('a session whose removal was killed half-way (its tombstone) is finished, not left behind', async () => {
    const store = new FlatFileStore({ path: join(h.dir, 'events.ndjson') });
    await store.append(records());
    // A removal killed after the rename and after some files: no timing any more.
    const s1 = join(h.root, '00/00/01');
    renameSync(s1, tombstoneOf(s1));
    rmSync(join(tombstoneOf(s1), 'timing'));
    const opts = { store, params: { format: 'ff', file: join(h.dir, 'events.ndjson'), to: '1001' }, iologs: true, keepRecords: false };
    const dry = await purgeEvents(h.engine, { ...opts, dryRun: true });
    const real = await purgeEvents(h.engine, { ...opts, dryRun: false });
    expect(real).toMatchObject({ records: 2, sessions: 1, files: 7, missing: 0, refused: 0 });
    expect({ ...dry, dryRun: false, indexRemoved: 0 }).toEqual({ ...real, indexRemoved: 0 });
    expect(existsSync(tombstoneOf(s1))).toBe(false);
    expect(existsSync(s1)).toBe(false);
  });
});
