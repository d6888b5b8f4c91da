// narrowToRecnum (recnum-seek.ts): the binary search a family resume uses in a plain file
// without index. Whatever the recnum, it returns a line start at or before the first line with
// a greater recnum — also among malformed lines, lines without recnum and very long lines.
import { writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fileSource } from '../../../src/eventlog/flatfile/line-reader.js';
import { narrowToRecnum } from '../../../src/eventlog/flatfile/recnum-seek.js';
import { rng } from '../../helpers/rng.js';
import { tempDir } from './helpers.js';

const tmp = tempDir('evio-recseek-');
afterAll(() => tmp.cleanup());

describe('narrowToRecnum', () => {
  it('lands at or before the first line with a greater recnum, on a line start, and narrows', async () => {
    const rand = rng(99);
    const parts: string[] = [];
    const starts: Array<[number, number]> = []; // [position, recnum] of numbered lines
    let pos = 0;
    let recnum = 0;
    for (let i = 0; i < 9000; i++) {
      let line: string;
      const x = rand();
      if (x < 0.02) line = 'not json at all';
      else if (x < 0.03) line = JSON.stringify({ etype: 'A', uniqueid: `u${i}`, time: 1 }); // no recnum
      else if (x < 0.035) line = JSON.stringify({ recnum: ++recnum, uniqueid: `u${i}`, etype: 'R', time: 1, cwd: 'x'.repeat(70_000) });
      else line = JSON.stringify({ recnum: (recnum += 1 + Math.floor(rand() * 3)), uniqueid: `u${i}`, etype: 'A', time: 1767225600 + i, submituser: 'someone' });
      const m = /^\{"recnum":(\d+)/.exec(line);
      if (m) starts.push([pos, Number(m[1])]);
      parts.push(line + '\n');
      pos += Buffer.byteLength(line) + 1;
    }
    const path = join(tmp.dir, 'log.ndjson');
    writeFileSync(path, parts.join(''));
    const lineStarts = new Set([0]);
    let p = 0;
    for (const l of parts) lineStarts.add((p += Buffer.byteLength(l)));
    const fh = await open(path, 'r');
    try {
      const src = fileSource(fh);
      let narrowed = 0;
      for (const r of [0, 1, 5, 100, 2000, 5000, recnum - 3, recnum, recnum + 10, ...Array.from({ length: 40 }, () => Math.floor(rand() * recnum))]) {
        const at = await narrowToRecnum(src, 0, pos, r);
        const first = starts.find(([, n]) => n > r);
        expect(lineStarts.has(at)).toBe(true);
        expect(at).toBeLessThanOrEqual(first ? first[0] : pos);
        if (first && first[0] - at < 1 << 20) narrowed++;
      }
      expect(narrowed).toBeGreaterThan(30);
    } finally {
      await fh.close();
    }
  });
});
