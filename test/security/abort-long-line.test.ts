// A client that leaves stops the work it started, even inside one enormous line: a flat file
// holding a run of gigabytes of NUL bytes without a newline (a sparse file: it costs no disk).
// Every loop that reads checks the abort signal, so the call settles promptly with ABORTED (1006)
// instead of reading on to the end of the run.
import { closeSync, ftruncateSync, openSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { toEvioError } from '../../src/errors.js';
import { FlatFileStore } from '../../src/eventlog/flatfile/index.js';
import { filter, query, tempDir } from '../eventlog/flatfile/helpers.js';

const tmp = tempDir('evio-sec-abort-');
afterAll(() => tmp.cleanup());

const GiB = 1024 ** 3;
const FIRST = '{"recnum":1,"uniqueid":"u1","etype":"A","time":1700000000,"submituser":"alice","submithost":"h","runuser":"root","runhost":"h","runcommand":"/bin/true","runargv":["true"]}\n';

/** FIRST, then `nulBytes` NULs (a hole), then optionally a last line. */
function sparseLog(name: string, nulBytes: number, last = ''): string {
  const path = join(tmp.dir, name);
  const fd = openSync(path, 'w');
  writeSync(fd, FIRST);
  const end = Buffer.byteLength(FIRST) + nulBytes;
  ftruncateSync(fd, end);
  if (last) writeSync(fd, last, end);
  closeSync(fd);
  return path;
}

/** Runs `work` with a signal aborted after `afterMs`; how long it took to settle after the abort, and its error code. */
async function abortAfter(afterMs: number, work: (signal: AbortSignal) => Promise<unknown>): Promise<{ settleMs: number; code: number | 'ok' }> {
  const ac = new AbortController();
  let abortedAt = 0;
  const timer = setTimeout(() => {
    abortedAt = performance.now();
    ac.abort();
  }, afterMs);
  let code: number | 'ok' = 'ok';
  try {
    await work(ac.signal);
  } catch (err) {
    code = toEvioError(err).code;
  }
  clearTimeout(timer);
  return { settleMs: abortedAt === 0 ? -1 : performance.now() - abortedAt, code };
}

describe('an abort stops a read inside a very long line', () => {
  it('query: settles with 1006 within a second of the abort (8 GiB NUL run)', async () => {
    const path = sparseLog('query.ndjson', 8 * GiB, FIRST.replace('"recnum":1', '"recnum":2'));
    const store = new FlatFileStore({ path });
    const r = await abortAfter(300, async (signal) => {
      for await (const _ of store.query(query({ dump: true }), { signal })) void _;
    });
    expect(r.code).toBe(1006);
    expect(r.settleMs).toBeGreaterThanOrEqual(0);
    expect(r.settleMs).toBeLessThan(1000);
  }, 120_000);

  it('append: the backward read for the last recnum stops on abort (8 GiB NUL run at the end)', async () => {
    const path = sparseLog('append.ndjson', 8 * GiB);
    const store = new FlatFileStore({ path });
    const r = await abortAfter(300, (signal) => store.append([{ uniqueid: 'x', etype: 'A', time: 1 }], { signal }));
    expect(r.code).toBe(1006);
    expect(r.settleMs).toBeGreaterThanOrEqual(0);
    expect(r.settleMs).toBeLessThan(1000);
  }, 120_000);

  it('delete: refuses at the first over-long line (1240) instead of reading the run to its end', async () => {
    const path = sparseLog('delete.ndjson', 8 * GiB, FIRST.replace('"recnum":1', '"recnum":2'));
    const store = new FlatFileStore({ path });
    const before = statSync(path);
    const t0 = performance.now();
    const r = await abortAfter(60_000, (signal) => store.delete(filter({ dump: true, recnumMax: 1 }), { signal }));
    expect(r.code).toBe(1240);
    expect(performance.now() - t0).toBeLessThan(2000);
    // Nothing was rewritten: the same inode, the same size.
    const after = statSync(path);
    expect([after.ino, after.size]).toEqual([before.ino, before.size]);
  }, 120_000);
});
