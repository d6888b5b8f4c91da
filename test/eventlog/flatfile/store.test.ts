// FlatFileStore behaviour beyond the reference comparison: file creation, the appender's tail
// handling (torn lines, recnum rules, caches across instances), deletes as atomic rewrites.
import { appendFileSync, existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isEvioError } from '../../../src/errors.js';
import { FlatFileStore } from '../../../src/eventlog/flatfile/flatfile-store.js';
import type { NewEvent } from '../../../src/eventlog/types.js';
import { collect, filter, patterns, query, tempDir } from './helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());
let n = 0;
const fresh = () => join(tmp.dir, `s-${n++}.ndjson`);
const ev = (uniqueid: string, etype: NewEvent['etype'], extra: Partial<NewEvent> = {}): NewEvent => ({ uniqueid, etype, time: 1000, ...extra });
const lines = (path: string) => readFileSync(path, 'utf8').split('\n');

describe('FlatFileStore', () => {
  it('a missing file: queries say STORE_NOT_FOUND, lastRecnum is 0, the first append creates it', async () => {
    const path = fresh();
    const s = new FlatFileStore({ path });
    expect(s.kind).toBe('ff');
    expect(s.name).toBe(`ff:${path}`);
    await expect(collect(s.query(query()))).rejects.toSatisfy((e) => isEvioError(e, 'STORE_NOT_FOUND'));
    await expect(s.delete(filter({ etypes: ['A'] }))).rejects.toSatisfy((e) => isEvioError(e, 'STORE_NOT_FOUND'));
    expect(await s.lastRecnum()).toBe(0);
    expect(await s.append([ev('a', 'A')])).toEqual({ first: 1, last: 1, count: 1, skipped: 0 });
    expect(lines(path)).toEqual(['{"recnum":1,"uniqueid":"a","etype":"A","time":1000}', '']);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('writes keys in canonical order and assigns increasing recnums across appends and instances', async () => {
    const path = fresh();
    const a = new FlatFileStore({ path });
    const b = new FlatFileStore({ path });
    await a.append([{ time: 1, etype: 'A', uniqueid: 'x', submituser: 'u' } as NewEvent]);
    await b.append([ev('y', 'A'), ev('z', 'R')]);
    expect(await a.append([ev('w', 'K')])).toEqual({ first: 4, last: 4, count: 1, skipped: 0 });
    expect(lines(path)[0]).toBe('{"recnum":1,"uniqueid":"x","etype":"A","time":1,"submituser":"u"}');
    expect((await collect(a.query(query({ dump: true })))).map((r) => r.rec.recnum)).toEqual([1, 2, 3, 4]);
    expect(await a.lastRecnum()).toBe(4);
  });

  it('seals a torn last line with a newline: the torn bytes stay one malformed line', async () => {
    const path = fresh();
    const s = new FlatFileStore({ path });
    await s.append([ev('a', 'A')]);
    appendFileSync(path, '{"recnum":2,"uniqueid":"b","et');
    expect(await s.lastRecnum()).toBe(1);
    await s.append([ev('c', 'A')]);
    expect(lines(path)).toEqual(['{"recnum":1,"uniqueid":"a","etype":"A","time":1000}', '{"recnum":2,"uniqueid":"b","et', '{"recnum":2,"uniqueid":"c","etype":"A","time":1000}', '']);
    const rows = await collect(s.query(query({ dump: true })));
    expect(rows.map((r) => r.rec.uniqueid)).toEqual(['a', 'c']);
    expect(s.stats.malformed).toBe(1);
  });

  it('given recnums: kept when greater, skipped when at or below the last (copy re-runs), refused out of order', async () => {
    const path = fresh();
    const s = new FlatFileStore({ path });
    expect(await s.append([ev('a', 'A', { recnum: 10 }), ev('b', 'A', { recnum: 20 }), ev('c', 'A')])).toEqual({ first: 10, last: 21, count: 3, skipped: 0 });
    expect(await s.append([ev('a', 'A', { recnum: 10 }), ev('b', 'A', { recnum: 20 }), ev('d', 'A', { recnum: 30 })])).toEqual({ first: 30, last: 30, count: 1, skipped: 2 });
    const err = await s.append([ev('e', 'A', { recnum: 40 }), ev('f', 'A', { recnum: 35 })]).catch((e: unknown) => e);
    expect(isEvioError(err, 'STORE_RECNUM_ORDER')).toBe(true);
    expect(String((err as Error).message)).toContain('1 records before it were appended');
    // What came before the refused record is in the file.
    expect(await s.lastRecnum()).toBe(40);
    await expect(s.append([ev('g', 'Z' as 'A')])).rejects.toSatisfy((e) => isEvioError(e, 'STORE_BAD_RECORD'));
  });

  it('reads the last recnum of legacy lines without recnum (their line number) and of files ending in garbage', async () => {
    const path = fresh();
    writeFileSync(path, '{"uniqueid":"a","etype":"A","time":1}\nnot json\n{"uniqueid":"b","etype":"A","time":2}\ngarbage\n');
    const s = new FlatFileStore({ path });
    expect(await s.lastRecnum()).toBe(3);
    await s.append([ev('c', 'A')]);
    const rows = await collect(s.query(query({ dump: true })));
    expect(rows.map((r) => [r.rec.uniqueid, r.rec.recnum])).toEqual([
      ['a', 1],
      ['b', 3],
      ['c', 4],
    ]);
  });

  it('refuses order on a flat file', async () => {
    const path = fresh();
    const s = new FlatFileStore({ path });
    await s.append([ev('a', 'A')]);
    await expect(collect(s.query(query({ order: 'time' })))).rejects.toSatisfy((e) => isEvioError(e, 'QUERY_ORDER_ON_FLATFILE'));
  });

  it('a delete rewrites the file under a new inode; a delete that matches nothing leaves it alone', async () => {
    const path = fresh();
    const s = new FlatFileStore({ path });
    await s.append([ev('a', 'A', { submituser: 'alice' }), ev('b', 'A', { submituser: 'bob' }), ev('a', 'F', { exitstatus: 'ok' })]);
    const ino = statSync(path).ino;
    expect(await s.delete(filter({ patterns: patterns({ submituser: 'nobody' }) }))).toEqual({ deleted: 0 });
    expect(statSync(path).ino).toBe(ino);
    // dump=0: alice's accept goes with its finish.
    expect(await s.delete(filter({ patterns: patterns({ submituser: 'alice' }) }))).toEqual({ deleted: 2 });
    expect(statSync(path).ino).not.toBe(ino);
    expect(lines(path)).toEqual(['{"recnum":2,"uniqueid":"b","etype":"A","time":1000,"submituser":"bob"}', '']);
    expect(readdirSync(tmp.dir).filter((f) => f.includes('.tmp-') || f.endsWith('.lock'))).toEqual([]);
    // As in MemoryStore, the next recnum follows the highest one left in the file.
    expect(await s.append([ev('c', 'A')])).toMatchObject({ first: 3 });
  });

  it('a delete keeps malformed lines and a torn tail, and writes the recnum of legacy lines it keeps', async () => {
    const path = fresh();
    writeFileSync(path, '{"uniqueid":"a","etype":"A","time":1}\nnot json\n{"uniqueid":"b","etype":"R","time":2}\n{"recnum":9,"uniqueid":"c","etype":"A","time":3}\n{"uniq');
    const s = new FlatFileStore({ path });
    expect(await s.delete(filter({ patterns: patterns({ uniqueid: 'a' }) }))).toEqual({ deleted: 1 });
    expect(readFileSync(path, 'utf8')).toBe('not json\n{"recnum":3,"uniqueid":"b","etype":"R","time":2}\n{"recnum":9,"uniqueid":"c","etype":"A","time":3}\n{"uniq');
  });

  it('a delete with exit filters decides accepts by their finish (two passes)', async () => {
    const path = fresh();
    const s = new FlatFileStore({ path });
    await s.append([ev('a', 'A'), ev('b', 'A'), ev('c', 'K'), ev('b', 'F', { exitstatus: 'exit 1', time: 2000 }), ev('a', 'F', { exitstatus: 'exit 0', time: 3000 }), ev('d', 'R', { exitstatus: 'exit 1' })]);
    expect(await s.delete(filter({ patterns: patterns({ exitstatus: 'exit 1' }) }))).toEqual({ deleted: 3 });
    expect((await collect(s.query(query({ dump: true })))).map((r) => r.rec.recnum)).toEqual([1, 3, 5]);
    expect(await s.delete(filter({ exitFrom: 2500 }))).toEqual({ deleted: 2 });
    expect((await collect(s.query(query({ dump: true })))).map((r) => r.rec.recnum)).toEqual([3]);
  });

  it('a delete removes rewrite temp files left by a crashed writer', async () => {
    const path = fresh();
    const s = new FlatFileStore({ path });
    await s.append([ev('a', 'A'), ev('b', 'A')]);
    const stale = `${path}.tmp-999999-dead`;
    writeFileSync(stale, 'half a rewrite');
    await s.delete(filter({ patterns: patterns({ uniqueid: 'a' }) }));
    expect(existsSync(stale)).toBe(false);
  });

  it('query offsets survive appends (resume where the last page ended)', async () => {
    const path = fresh();
    const s = new FlatFileStore({ path });
    await s.append([ev('a', 'R'), ev('b', 'R')]);
    const page = await collect(s.query(query({ limit: 10 })));
    await s.append([ev('c', 'R')]);
    const next = await collect(s.query(query({ byteOffset: page[page.length - 1]!.offset! })));
    expect(next.map((r) => r.rec.uniqueid)).toEqual(['c']);
    await expect(collect(s.query(query({ byteOffset: 3 })))).rejects.toSatisfy((e) => isEvioError(e, 'QUERY_BAD_OFFSET'));
  });

  it('concurrent appends in one process are serialised and all land', async () => {
    const path = fresh();
    const stores = [new FlatFileStore({ path }), new FlatFileStore({ path })];
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => stores[i % 2]!.append([ev(`u${i}`, 'A'), ev(`v${i}`, 'A')])));
    const recnums = results.flatMap((r) => [r.first!, r.last!]).sort((a, b) => a - b);
    expect(recnums).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect((await collect(stores[0]!.query(query({ dump: true })))).map((r) => r.rec.recnum)).toEqual(recnums);
  });
});
