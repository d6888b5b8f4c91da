// Each query counts its own malformed lines, even when two run at once on one store.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { FlatFileStore } from '../../src/eventlog/flatfile/index.js';
import { parseEventQuery } from '../../src/eventlog/query.js';
import type { ScanStats } from '../../src/eventlog/types.js';

it('keeps per-query counters apart on a shared store', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'evio-stats-'));
  const path = join(dir, 'log.ndjson');
  const good = (n: number) => `${JSON.stringify({ recnum: n, uniqueid: `u${n}`, etype: 'A', time: 1767225600 + n, submituser: 'alice' })}\n`;
  const head = good(1) + 'not json\n' + '{"etype":"Q"}\n' + good(2) + '[1,2]\n';
  writeFileSync(path, head + good(3) + good(4));
  const store = new FlatFileStore({ path });
  const all = parseEventQuery({ format: 'ff', file: path, dump: '1' }).query;
  const tail = { ...all, byteOffset: Buffer.byteLength(head) };
  const s1: ScanStats = { malformed: 0 };
  const s2: ScanStats = { malformed: 0 };
  const it1 = store.query(all, { stats: s1 })[Symbol.asyncIterator]();
  const it2 = store.query(tail, { stats: s2 })[Symbol.asyncIterator]();
  const seen: number[] = [];
  // Interleave the two scans.
  for (;;) {
    const [a, b] = await Promise.all([it1.next(), it2.next()]);
    if (!a.done) seen.push(a.value.rec.recnum);
    if (!b.done) seen.push(100 + b.value.rec.recnum);
    if (a.done && b.done) break;
  }
  expect(seen.sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 103, 104]);
  expect(s1.malformed).toBe(3);
  expect(s2.malformed).toBe(0);
});
