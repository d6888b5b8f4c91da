// A skip index must never turn a match into a miss (issue 28, point 10). Two attacks that did:
// an index crafted by whoever can write it (a dictionary entry renamed, its CRC-32 recomputed)
// answered 0 rows instead of the user's; an index left stale by an edit in place in the middle
// of the log (same size, mtime set back) answered 0 rows instead of the edited one. Now each
// segment carries an HMAC-SHA-256 under the install's key (index-key.ts), each block the CRC-32
// of its data, re-checked in full when a file of the same size has another ctime and at random
// on every load and query (index-verify.ts).
import { closeSync, openSync, readFileSync, readSync, statSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FlatFileStore } from '../../../src/eventlog/flatfile/flatfile-store.js';
import { buildIndexes } from '../../../src/eventlog/flatfile/index-files.js';
import { indexKeyFileIn, useIndexKeyFile } from '../../../src/eventlog/flatfile/index-key.js';
import { MAGIC } from '../../../src/eventlog/flatfile/skip-index.js';
import { parseEventQuery } from '../../../src/eventlog/query.js';
import { collect, tempDir } from './helpers.js';
import { lines, makeLog } from './index-cases.js';

const tmp = tempDir('evio-ixbind-');
afterAll(() => tmp.cleanup());
let n = 0;
const ON = { enabled: true, cacheDir: null, budgetMs: 0, blockBytes: 2048 };

beforeAll(() => useIndexKeyFile(indexKeyFileIn(join(tmp.dir, 'home'))));

const q = (p: Record<string, string>) => parseEventQuery({ format: 'ff', file: 'x', ...p }).query;
const count = async (path: string, p: Record<string, string>, index = true) =>
  (await collect(new FlatFileStore({ path, index: index ? ON : { enabled: false, cacheDir: null, budgetMs: 0 } }).query(q(p)))).length;

/** Rewrites the first segment's head as an attacker would: `edit` it, then its length and CRC-32. */
function craftHead(idx: string, edit: (head: Record<string, unknown>) => void): void {
  const fd = openSync(idx, 'r+');
  try {
    const pre = Buffer.alloc(8);
    readSync(fd, pre, 0, 8, MAGIC.length);
    const hlen = pre.readUInt32LE(0);
    const hb = Buffer.alloc(hlen);
    readSync(fd, hb, 0, hlen, MAGIC.length + 8);
    const head = JSON.parse(hb.toString('utf8')) as Record<string, unknown>;
    edit(head);
    const json = Buffer.from(JSON.stringify(head), 'utf8');
    expect(json.length).toBe(hlen); // same length: the body stays where it was
    pre.writeUInt32LE(crc32(json) >>> 0, 4);
    writeSync(fd, pre, 0, 8, MAGIC.length);
    writeSync(fd, json, 0, json.length, MAGIC.length + 8);
  } finally {
    closeSync(fd);
  }
}

describe('a skip index is bound to its data and to this installation', () => {
  it('the key is made once, 32 bytes, mode 0600', () => {
    const k = indexKeyFileIn(join(tmp.dir, 'home'));
    expect(readFileSync(k)).toHaveLength(32);
    expect(statSync(k).mode & 0o777).toBe(0o600);
  });

  it('a crafted index (a dictionary entry renamed, CRC-32 recomputed) is not used: the rows are still found', async () => {
    const path = join(tmp.dir, `craft-${n++}.ndjson`);
    writeFileSync(path, lines(makeLog(3000, 5)));
    const want = await count(path, { submituser: 'user3' }, false);
    expect(want).toBeGreaterThan(100);
    await buildIndexes(path, { cacheDir: null, family: false, blockBytes: 2048 });
    expect(await count(path, { submituser: 'user3' })).toBe(want);
    craftHead(`${path}.evidx`, (h) => {
      const d = (h.dictAdd as Record<string, string[]>).submituser!;
      const i = d.indexOf('user3');
      expect(i).toBeGreaterThanOrEqual(0);
      d[i] = 'userX';
    });
    expect(await count(path, { submituser: 'user3' })).toBe(want);
  });

  it('crafted id counts (every count zeroed: "no line holds this user") are not used: the rows are still found', async () => {
    // The planner and the empty-answer shortcut trust the counts, so they are under the MAC.
    const path = join(tmp.dir, `counts-${n++}.ndjson`);
    writeFileSync(path, lines(makeLog(3000, 6)));
    const want = await count(path, { submituser: 'user3' }, false);
    expect(want).toBeGreaterThan(100);
    await buildIndexes(path, { cacheDir: null, family: false, blockBytes: 2048 });
    const idx = `${path}.evidx`;
    const b = readFileSync(idx);
    const hlen = b.readUInt32LE(MAGIC.length);
    const head = JSON.parse(b.subarray(MAGIC.length + 8, MAGIC.length + 8 + hlen).toString('utf8')) as { countsAt: number; countsBytes: number };
    const bodyAt = (MAGIC.length + 8 + hlen + 7) & ~7;
    expect(head.countsBytes).toBeGreaterThan(0);
    b.fill(0, bodyAt + head.countsAt, bodyAt + head.countsAt + head.countsBytes);
    writeFileSync(idx, b);
    expect(await count(path, { submituser: 'user3' })).toBe(want);
  });

  it('a stale index after an edit in place in the middle (same size, mtime set back) does not hide the edited row', async () => {
    const path = join(tmp.dir, `stale-${n++}.ndjson`);
    const log = makeLog(3000, 9);
    writeFileSync(path, lines(log));
    await buildIndexes(path, { cacheDir: null, family: false, blockBytes: 2048 });
    const before = statSync(path);
    // A line in the middle gets a submituser of the same length no line had.
    const text = readFileSync(path, 'utf8');
    const mid = log.findIndex((r, i) => i > 1400 && typeof r.submituser === 'string');
    const line = JSON.stringify(log[mid]) + '\n';
    const at = Buffer.byteLength(text.slice(0, text.indexOf(line)));
    const edited = line.replace(`"submituser":"${log[mid]!.submituser}"`, '"submituser":"zzzzz"');
    expect(Buffer.byteLength(edited)).toBe(Buffer.byteLength(line));
    const fd = openSync(path, 'r+');
    writeSync(fd, Buffer.from(edited), 0, Buffer.byteLength(edited), at);
    closeSync(fd);
    utimesSync(path, before.atimeMs / 1000, before.mtimeMs / 1000);
    expect(statSync(path).size).toBe(before.size);
    expect(Math.abs(statSync(path).mtimeMs - before.mtimeMs)).toBeLessThan(1);
    expect(await count(path, { submituser: 'zzzzz' }, false)).toBe(1);
    expect(await count(path, { submituser: 'zzzzz' })).toBe(1);
  });
});
