// A writer killed with SIGKILL right after a flush returned (another process: it prints the
// flushed point, the test kills it on reading that line, while it goes on writing): the data up
// to that point is intact. evio's reader reads those records byte for byte, and the session
// reopens at the point (what a restart does), cut there, with exactly those records.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reopenIologSession } from '../../../src/iolog/writer/index.js';
import { STREAM_NAMES } from '../../../src/iolog/timing.js';
import { buildWriterChild, runChild, type ChildBuild } from './child-build.js';
import { readBack, removeRoot, runSudoreplay, sudoreplay, tempRoot, writerOptions } from './helpers.js';
import { delaySum, testRecord } from './records.js';

let child: ChildBuild;
beforeAll(() => {
  child = buildWriterChild();
});
afterAll(() => child.cleanup());

interface Flushed {
  records: number;
  sec: number;
  nsec: number;
  dir: string;
}

for (const compress of [false, true]) {
  describe(`SIGKILL after a flush (${compress ? 'gzip' : 'plain'})`, () => {
    let root: string;
    let last: Flushed | null = null;

    beforeAll(async () => {
      root = tempRoot();
      let lines = 0;
      const run = await runChild(child, ['write', root, compress ? '1' : '0', '25'], (line) => {
        last = JSON.parse(line) as Flushed;
        return ++lines === 4;
      });
      expect(run.signal, run.stderr).toBe('SIGKILL');
    });
    afterAll(() => removeRoot(root));

    it('the flushed point is the sum of the delays of the records before it', () => {
      expect(last).not.toBeNull();
      expect(last!.records).toBe(100);
      expect({ sec: last!.sec, nsec: last!.nsec }).toEqual(delaySum(100));
      expect(last!.dir).toBe(join(root, '00/00/01'));
    });

    it('evio\'s reader reads every flushed record, byte for byte', async () => {
      const got = await readBack(last!.dir);
      expect(got.events.length).toBeGreaterThanOrEqual(100);
      const want = (n: number, stream: number) => Buffer.concat(Array.from({ length: n }, (_, i) => testRecord(i + 1)).filter((r) => r.stream === stream).map((r) => r.data));
      for (const stream of [1, 3, 4]) {
        const name = STREAM_NAMES[stream]!;
        expect(got.streams[name].subarray(0, want(100, stream).length).equals(want(100, stream)), name).toBe(true);
      }
    });

    it('the session reopens at the flushed point with exactly the records before it', async () => {
      const s = await reopenIologSession(writerOptions(root, { compress }), last!.dir, { sec: last!.sec, nsec: last!.nsec });
      expect(s.elapsed).toEqual({ sec: last!.sec, nsec: last!.nsec });
      await s.close();
      const got = await readBack(last!.dir);
      expect(got.warnings).toEqual([]);
      expect(got.events).toHaveLength(100);
      for (const stream of [0, 1, 2, 3, 4]) {
        const want = Buffer.concat(Array.from({ length: 100 }, (_, i) => testRecord(i + 1)).filter((r) => r.stream === stream).map((r) => r.data));
        expect(got.streams[STREAM_NAMES[stream]!].equals(want), STREAM_NAMES[stream]).toBe(true);
      }
      if (runSudoreplay) {
        const r = sudoreplay(['-d', root, '-n', '-m', '0', '-f', 'ttyout', '000001']);
        expect(r.status).toBe(0);
        const tty = Buffer.concat(Array.from({ length: 100 }, (_, i) => testRecord(i + 1)).filter((x) => x.stream === 4).map((x) => x.data));
        expect(r.stdout.includes(tty)).toBe(true);
      }
    });
  });
}
