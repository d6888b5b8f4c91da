// Resuming a session after a lost connection (sudo_sendlog -r): reopened at a commit point in
// the middle, the timing file and every stream file are cut exactly there (plain: truncated;
// gzip: rewritten), records of zero delay right at the point are kept, and writing the rest
// gives the very session an uninterrupted writer gives. Refused: a complete session, a point
// between records or past the end, a directory outside the roots, a session still open here,
// a stream file shorter than its timing says.
import { chmodSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, constants as zc } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIologSession, reopenIologSession } from '../../../src/iolog/writer/index.js';
import type { IologSession, IologWriterOptions, TimeSpec } from '../../../src/iolog/writer/types.js';
import { readBack, removeRoot, runSudoreplay, sudoInfo, sudoreplay, tempRoot, writerOptions } from './helpers.js';
import { delaySum, testRecord } from './records.js';

const SUBMIT = { sec: 1_767_225_600, nsec: 0 };
const FILES = ['timing', 'stdin', 'stdout', 'stderr', 'ttyin', 'ttyout'];

/** A file's content as readers see it (gzip inflated, live or finished). */
function content(dir: string, name: string): Buffer | null {
  let raw: Buffer;
  try {
    raw = readFileSync(join(dir, name));
  } catch {
    return null;
  }
  return raw.length >= 2 && raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw, { finishFlush: zc.Z_SYNC_FLUSH }) : raw;
}

function writeRecords(s: IologSession, from: number, to: number): void {
  for (let i = from; i <= to; i++) {
    const r = testRecord(i);
    s.writeIo(r.stream, r.delay, r.data);
  }
}

for (const compress of [false, true]) {
  describe(`resume (${compress ? 'gzip' : 'plain'})`, () => {
    let root: string;
    let opts: IologWriterOptions;
    let dir: string;
    let reference: string;
    let commit40: TimeSpec;

    beforeAll(async () => {
      root = tempRoot();
      opts = writerOptions(root, { compress });
      // The reference: 100 records, no interruption.
      const ref = await createIologSession(opts, SUBMIT, sudoInfo());
      writeRecords(ref, 1, 100);
      await ref.finish({ exitValue: 0, runTime: delaySum(100) });
      reference = ref.dir;
      // The interrupted one: commit points at 20 and 40, 30 more records written unflushed, connection lost.
      const s = await createIologSession(opts, SUBMIT, sudoInfo());
      writeRecords(s, 1, 20);
      await s.flush();
      writeRecords(s, 21, 40);
      commit40 = await s.flush();
      writeRecords(s, 41, 70);
      s.writeWinsize({ sec: 0, nsec: 5 }, 30, 100);
      await s.close();
      dir = s.dir;
    });
    afterAll(() => removeRoot(root));

    it('close() left the session incomplete and readable past the commit point', async () => {
      expect(statSync(join(dir, 'timing')).mode & 0o222).not.toBe(0);
      expect(commit40).toEqual(delaySum(40));
      const got = await readBack(dir);
      expect(got.events.length).toBe(71);
      if (compress) for (const n of ['timing', 'ttyout']) expect(() => gunzipSync(readFileSync(join(dir, n)))).not.toThrow(); // ended members
    });

    it('reopened at the commit point of record 40: every file cut exactly there', async () => {
      const s = await reopenIologSession(opts, dir, commit40);
      expect(s.elapsed).toEqual(commit40);
      expect(s.relPath).toBe('00/00/02');
      expect(s.tsid).toBe('000002');
      await s.flush();
      const timing = content(dir, 'timing')!.toString('latin1').split('\n');
      expect(timing.length - 1).toBe(40);
      for (const n of FILES.slice(1)) {
        const want = Buffer.concat(Array.from({ length: 40 }, (_, i) => testRecord(i + 1)).filter((r) => FILES[r.stream + 1] === n).map((r) => r.data));
        const got = content(dir, n);
        if (got === null) expect(want.length, n).toBe(0);
        else expect(got.equals(want), n).toBe(true);
      }
      // No scratch file of the rewrite is left.
      expect(readdirSync(dir).filter((n) => !FILES.includes(n) && n !== 'log' && n !== 'log.json')).toEqual([]);
      // Resumed: the rest written, finished; the same session as the uninterrupted one.
      writeRecords(s, 41, 100);
      await s.finish({ exitValue: 0, runTime: delaySum(100) });
      for (const n of [...FILES, 'log.json']) {
        const a = content(dir, n);
        const b = content(reference, n);
        expect(a === null ? null : a.toString('latin1'), n).toBe(b === null ? null : b.toString('latin1'));
      }
      expect(statSync(join(dir, 'timing')).mode & 0o777).toBe(0o400);
      if (compress) for (const n of FILES) if ((content(dir, n)?.length ?? 0) > 0) expect(() => gunzipSync(readFileSync(join(dir, n)))).not.toThrow();
    });

    it.runIf(runSudoreplay)('sudoreplay replays the resumed session as the uninterrupted one', () => {
      for (const id of ['000001', '000002']) expect(sudoreplay(['-d', root, '-n', '-m', '0', '-f', 'stdin,stdout,stderr,ttyin,ttyout', id]).status).toBe(0);
      const a = sudoreplay(['-d', root, '-n', '-m', '0', '-f', 'stdin,stdout,stderr,ttyin,ttyout', '000001']);
      const b = sudoreplay(['-d', root, '-n', '-m', '0', '-f', 'stdin,stdout,stderr,ttyin,ttyout', '000002']);
      expect(a.stdout.equals(b.stdout)).toBe(true);
    });

    it('refuses the complete session (1461)', async () => {
      await expect(reopenIologSession(opts, dir, commit40)).rejects.toThrow(/^1461 /);
    });
  });
}

describe('resume points and refusals', () => {
  let root: string;
  let opts: IologWriterOptions;
  let dir: string;

  beforeAll(async () => {
    root = tempRoot();
    opts = writerOptions(root);
    const s = await createIologSession(opts, SUBMIT, sudoInfo());
    s.writeIo(4, { sec: 1, nsec: 0 }, Buffer.from('one'));
    s.writeIo(4, { sec: 0, nsec: 500 }, Buffer.from('two'));
    s.writeIo(1, { sec: 0, nsec: 0 }, Buffer.from('zero-delay')); // same point as "two"
    s.writeSuspend({ sec: 0, nsec: 0 }, 'TSTP'); // same point too
    s.writeIo(4, { sec: 2, nsec: 0 }, Buffer.from('three'));
    await s.close();
    dir = s.dir;
  });
  afterAll(() => removeRoot(root));

  const snapshot = () => Object.fromEntries(FILES.map((n) => [n, content(dir, n)?.toString('latin1') ?? null]));

  it('a point between two records, past the end, or before a damaged line is refused (1462); nothing is cut', async () => {
    const before = snapshot();
    await expect(reopenIologSession(opts, dir, { sec: 1, nsec: 1 })).rejects.toThrow(/^1462 .*falls between two records of the session \(1\.000000000 after record 1, 1\.000000500 after the next one\)/);
    await expect(reopenIologSession(opts, dir, { sec: 0, nsec: 999_999_999 })).rejects.toThrow(/^1462 .*between/);
    await expect(reopenIologSession(opts, dir, { sec: 3, nsec: 501 })).rejects.toThrow(/^1462 .*past the end.*5 records reach 3\.000000500/);
    await expect(reopenIologSession(opts, dir, { sec: -1, nsec: 0 })).rejects.toThrow(/^1459 /);
    expect(snapshot()).toEqual(before);
    // A damaged line before the point.
    const s = await createIologSession(opts, SUBMIT, sudoInfo());
    s.writeIo(4, { sec: 0, nsec: 1 }, Buffer.from('a'));
    s.writeIo(4, { sec: 0, nsec: 1 }, Buffer.from('b'));
    await s.close();
    writeFileSync(join(s.dir, 'timing'), '4 0.000000001 1\n4 0.0000X0001 1\n');
    await expect(reopenIologSession(opts, s.dir, { sec: 0, nsec: 2 })).rejects.toThrow(/^1462 line 2 of .* is not a valid timing record, before the resume point 0\.000000002/);
  });

  it('records of zero delay at the point are kept (sudo_sendlog will not send them again)', async () => {
    const s = await reopenIologSession(opts, dir, { sec: 1, nsec: 500 });
    await s.close();
    expect(content(dir, 'timing')!.toString()).toBe('4 1.000000000 3\n4 0.000000500 3\n1 0.000000000 10\n7 0.000000000 TSTP\n');
    expect(content(dir, 'ttyout')!.toString()).toBe('onetwo');
    expect(content(dir, 'stdout')!.toString()).toBe('zero-delay');
  });

  it('{0,0}: from the start, every record cut', async () => {
    const s = await reopenIologSession(opts, dir, { sec: 0, nsec: 0 });
    expect(s.elapsed).toEqual({ sec: 0, nsec: 0 });
    s.writeIo(0, { sec: 0, nsec: 7 }, Buffer.from('again'));
    await s.close();
    expect(content(dir, 'timing')!.toString()).toBe('0 0.000000007 5\n');
    expect(content(dir, 'ttyout')!.length).toBe(0);
    expect(content(dir, 'stdin')!.toString()).toBe('again');
  });

  it('a session still open in this process is refused (1463); once closed it can be reopened', async () => {
    const s = await reopenIologSession(opts, dir, { sec: 0, nsec: 7 });
    await expect(reopenIologSession(opts, dir, { sec: 0, nsec: 7 })).rejects.toThrow(/^1463 /);
    await s.close();
    await (await reopenIologSession(opts, dir, { sec: 0, nsec: 7 })).close();
  });

  it('a stream file shorter than the timing says is refused (1462), and nothing is cut', async () => {
    const s = await reopenIologSession(opts, dir, { sec: 0, nsec: 7 });
    s.writeIo(4, { sec: 1, nsec: 0 }, Buffer.from('more'));
    await s.close();
    truncateSync(join(dir, 'stdin'), 2);
    const before = snapshot();
    await expect(reopenIologSession(opts, dir, { sec: 0, nsec: 7 })).rejects.toThrow(/^1462 .*stdin holds 2 bytes.*use 5/);
    expect(snapshot()).toEqual(before);
    expect(before.timing).toBe('0 0.000000007 5\n4 1.000000000 4\n');
    writeFileSync(join(dir, 'stdin'), 'again');
  });

  it('outside the roots (1008), a root itself (1400), no timing write bit (1461)', async () => {
    const other = tempRoot();
    try {
      await expect(reopenIologSession(opts, other, { sec: 0, nsec: 0 })).rejects.toThrow(/^1008 /);
      await expect(reopenIologSession(opts, join(root, '../', root.split('/').pop()!, '00/00/01/../../../..', 'etc'), { sec: 0, nsec: 0 })).rejects.toThrow(/^10(08|04) /);
      await expect(reopenIologSession(opts, root, { sec: 0, nsec: 0 })).rejects.toThrow(/^1400 /);
    } finally {
      removeRoot(other);
    }
    chmodSync(join(dir, 'timing'), 0o444);
    await expect(reopenIologSession(opts, dir, { sec: 0, nsec: 7 })).rejects.toThrow(/^1461 /);
  });
});
