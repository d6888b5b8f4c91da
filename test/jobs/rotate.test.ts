// Rotation of a flat-file log: recnums continue, every record is in exactly one file, rotated
// files are queryable by name, and an interruption after any step is reconciled by the next run.
import { linkSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isEvioError } from '../../src/errors.js';
import { FlatFileStore } from '../../src/eventlog/flatfile/index.js';
import { generateEvents } from '../../src/eventlog/generate.js';
import { dispatch } from '../../src/app/router.js';
import { listRotated, rotateFlatFile } from '../../src/eventlog/flatfile/rotate.js';
import { makeHome, type JobHome } from './helpers.js';

let h: JobHome;
let log: string;
beforeEach(() => {
  h = makeHome('evio-rotate-');
  log = join(h.dir, 'events.ndjson');
});
afterEach(async () => h.cleanup());

function write(n: number): string {
  const text = [...generateEvents({ count: n, seed: 4 })].map((e) => `${JSON.stringify(e)}\n`).join('');
  writeFileSync(log, text);
  return text;
}

function recnums(path: string): number[] {
  return readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { recnum: number }).recnum);
}

let tick = 0;
const clock = () => new Date(Date.UTC(2026, 10, 22, 4, 0, tick++));

describe('rotate', () => {
  it('lists rotated files oldest first, also past ten rotations in one second', async () => {
    write(1);
    const names = ['20261122T040001Z', '20261122T040000Z-10', '20261122T040000Z', '20261122T040000Z-2', '20261122T040000Z-9', '20261122T040000Z-11'];
    for (const n of names) writeFileSync(`${log}.${n}`, '');
    writeFileSync(`${log}.20261122T040000Z-x`, ''); // not a rotated file's name
    expect((await listRotated(log)).map((r) => basename(r.path).slice('events.ndjson.'.length))).toEqual([
      '20261122T040000Z', '20261122T040000Z-2', '20261122T040000Z-9', '20261122T040000Z-10', '20261122T040000Z-11', '20261122T040001Z',
    ]);
  });

  it('renames the log, moves the newest record into the new one, and numbering continues', async () => {
    const text = write(500);
    const r = await rotateFlatFile({ path: log, now: clock });
    expect(r).toMatchObject({ rotated: true, carriedRecnum: 500, size: Buffer.byteLength(text), recovered: null });
    expect(basename(r.rotatedTo!)).toMatch(/^events\.ndjson\.20261122T0400\d\dZ$/);
    expect(recnums(r.rotatedTo!)).toEqual(Array.from({ length: 499 }, (_, i) => i + 1));
    expect(recnums(log)).toEqual([500]);
    // The two files together are the old file, byte for byte.
    expect(readFileSync(r.rotatedTo!, 'utf8') + readFileSync(log, 'utf8')).toBe(text);
    const store = new FlatFileStore({ path: log });
    expect(await store.append([{ uniqueid: 'n', etype: 'A', time: 2e9 }])).toMatchObject({ first: 501 });
    expect(readdirSync(h.dir).filter((n) => n.includes('.tmp-') || n.endsWith('.rotating') || n.endsWith('.lock'))).toEqual([]);

    // Again: the second rotated file starts where the first ended.
    const r2 = await rotateFlatFile({ path: log, now: clock });
    expect(recnums(r2.rotatedTo!)).toEqual([500]);
    expect(recnums(log)).toEqual([501]);
    expect((await listRotated(log)).map((x) => x.path)).toEqual([r.rotatedTo, r2.rotatedTo]);
  });

  it('rotated files are ordinary flat files: a query names them with file=', async () => {
    write(50);
    const r = await rotateFlatFile({ path: log, now: clock });
    const res = (await dispatch(h.engine, { method: 'GET', path: '/REST/v2.0/events', query: { format: 'ff', file: basename(r.rotatedTo!), dump: '1' }, signal: new AbortController().signal })) as { kind: string; chunks: AsyncIterable<string> };
    let body = '';
    for await (const c of res.chunks) body += c;
    const events = (JSON.parse(body) as { events: Array<{ recnum: number }> }).events;
    expect(events.map((e) => e.recnum)).toEqual(Array.from({ length: 49 }, (_, i) => i + 1));
  });

  it('with --max-size rotates only a big enough log; an empty, missing or one-record log is left', async () => {
    const text = write(100);
    expect(await rotateFlatFile({ path: log, maxSize: Buffer.byteLength(text) + 1 })).toMatchObject({ rotated: false, reason: expect.stringMatching(/less than/) });
    expect((await rotateFlatFile({ path: log, maxSize: Buffer.byteLength(text), now: clock })).rotated).toBe(true);
    expect(await rotateFlatFile({ path: log })).toMatchObject({ rotated: false, reason: expect.stringMatching(/single record/) });
    writeFileSync(log, 'garbage\n');
    expect(await rotateFlatFile({ path: log })).toMatchObject({ rotated: false, reason: 'the log holds no record' });
    expect(await rotateFlatFile({ path: join(h.dir, 'none.ndjson') })).toMatchObject({ rotated: false, reason: 'the log does not exist' });
  });

  it('a legacy last line (no recnum) moves with its line number as recnum; a torn tail moves too', async () => {
    writeFileSync(log, '{"recnum":1,"uniqueid":"a","etype":"A","time":1}\n{"uniqueid":"b","etype":"A","time":2}\n{"uniq');
    const r = await rotateFlatFile({ path: log, now: clock });
    expect(r.carriedRecnum).toBe(2);
    expect(readFileSync(log, 'utf8')).toBe('{"recnum":2,"uniqueid":"b","etype":"A","time":2}\n{"uniq');
    expect(readFileSync(r.rotatedTo!, 'utf8')).toBe('{"recnum":1,"uniqueid":"a","etype":"A","time":1}\n');
    expect(await new FlatFileStore({ path: log }).append([{ uniqueid: 'c', etype: 'A', time: 3 }])).toMatchObject({ first: 3 });
  });

  for (const step of [1, 2, 3, 4, 5]) {
    it(`an interruption after step ${step} is reconciled by the next rotate: each record in one file, numbering continues`, async () => {
      const text = write(200);
      await expect(
        rotateFlatFile({
          path: log,
          now: clock,
          onStep: (s) => {
            if (s === step) throw new Error(`stopped after step ${s}`);
          },
        }),
      ).rejects.toThrow(/stopped/);
      // A writer may come between the crash and the next rotate.
      await new FlatFileStore({ path: log }).append([{ uniqueid: 'late', etype: 'A', time: 3e9 }]);
      const r = await rotateFlatFile({ path: log, now: clock });
      expect(r.recovered === null).toBe(step === 1);
      const files = readdirSync(h.dir).filter((n) => n.startsWith('events.ndjson')).sort();
      expect(files.filter((n) => n.includes('.tmp-') || n.endsWith('.rotating'))).toEqual([]);
      const all = (await listRotated(log)).flatMap((x) => recnums(x.path)).concat(recnums(log));
      expect(all).toEqual(Array.from({ length: 201 }, (_, i) => i + 1));
      expect(await new FlatFileStore({ path: log }).append([{ uniqueid: 'next', etype: 'A', time: 3e9 }])).toMatchObject({ first: 202 });
      expect(text.length).toBeGreaterThan(0);
    });
  }

  it('refuses to guess when the journal and the files disagree beyond repair', async () => {
    write(20);
    // Made before the rotation, so its inode cannot be the one the rotation's (since removed)
    // temp file had: a file created afterwards could reuse that number and pass for it.
    const other = join(h.dir, 'other');
    writeFileSync(other, 'nothing to tell\n');
    await expect(rotateFlatFile({ path: log, now: clock, onStep: (s) => { if (s === 4) throw new Error('stop'); } })).rejects.toThrow('stop');
    // The live file replaced (another inode) by something that holds no record.
    rmSync(log);
    linkSync(other, log);
    await expect(rotateFlatFile({ path: log })).rejects.toSatisfy((e: unknown) => isEvioError(e, 'ROTATE_UNFINISHED'));
  });
});
