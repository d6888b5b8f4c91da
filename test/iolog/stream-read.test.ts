// Reading stream files for speed without changing what is read: the `streams` filter of
// events() (unwanted stream files are not opened, winches still come), and the read-ahead of
// plain stream files (the same bytes in the same pieces, the same warning on a short file).
import { appendFileSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AsciicastSession } from '../../src/iolog/asciicast-session.js';
import type { SessionEvent } from '../../src/iolog/session.js';
import { StreamCursor } from '../../src/iolog/stream-cursor.js';
import { SudoSession } from '../../src/iolog/sudo-session.js';
import type { StreamName } from '../../src/iolog/timing.js';
import { prng } from '../../src/prng.js';
import { removeDir, tempDir } from './helpers.js';

const LOG = '1795315409:root:nobody::/dev/pts/0:24:80\n/tmp\n/bin/sh\n';
const TYPE: Record<StreamName, number> = { stdin: 0, stdout: 1, stderr: 2, ttyin: 3, ttyout: 4 };

let root: string;
beforeAll(() => {
  root = tempDir();
});
afterAll(() => removeDir(root));

/** A sudo session from records: [stream, bytes] or ['winch', rows, cols]. */
function sudoSession(name: string, recs: Array<[StreamName, string] | ['winch', number, number]>): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'log'), LOG);
  const files = new Map<StreamName, string>();
  let timing = '';
  for (const r of recs) {
    if (r[0] === 'winch') timing += `5 0.010 ${r[1]} ${r[2]}\n`;
    else {
      files.set(r[0], (files.get(r[0]) ?? '') + r[1]);
      timing += `${TYPE[r[0]]} 0.010 ${Buffer.byteLength(r[1])}\n`;
    }
  }
  writeFileSync(join(dir, 'timing'), timing);
  for (const [f, c] of files) writeFileSync(join(dir, f), c);
  return dir;
}

async function collect(it: AsyncIterable<SessionEvent>): Promise<SessionEvent[]> {
  const out: SessionEvent[] = [];
  for await (const ev of it) out.push(ev.kind === 'data' ? { ...ev, bytes: Buffer.from(ev.bytes) } : ev);
  return out;
}

describe('events({ streams })', () => {
  const recs: Array<[StreamName, string] | ['winch', number, number]> = [
    ['ttyout', '$ '], ['ttyin', 'l'], ['ttyout', 'l'], ['ttyin', 's'], ['ttyout', 's'],
    ['winch', 30, 100], ['ttyin', '\r'], ['ttyout', '\r\nfile1 file2\r\n$ '],
    ['stdout', 'piped\n'], ['winch', 40, 120], ['stderr', 'oops\n'], ['ttyout', 'exit\r\n'],
  ];

  it('sudo: only the wanted streams give data, at their usual positions; winches all come', async () => {
    const dir = sudoSession('filter', recs);
    const all = await collect(new SudoSession(dir).events());
    for (const want of [['ttyout'], ['ttyin', 'stdin'], ['ttyout', 'stdout', 'stderr'], []] as StreamName[][]) {
      const got = await collect(new SudoSession(dir).events({ streams: new Set(want) }));
      expect(got).toEqual(all.filter((e) => e.kind !== 'data' || want.includes(e.stream)));
      expect(got.filter((e) => e.kind === 'winch')).toHaveLength(2);
    }
  });

  it('sudo: an unwanted stream file is never opened', async () => {
    const dir = sudoSession('filter-unread', recs);
    // A symlink is refused when opened: reading ttyin would fail.
    rmSync(join(dir, 'ttyin'));
    symlinkSync(join(dir, 'ttyout'), join(dir, 'ttyin'));
    await expect(collect(new SudoSession(dir).events())).rejects.toMatchObject({ errorName: 'IOLOG_READ' });
    const s = new SudoSession(dir);
    const got = await collect(s.events({ streams: new Set<StreamName>(['ttyout']) }));
    expect(Buffer.concat(got.flatMap((e) => (e.kind === 'data' ? [e.bytes] : []))).toString()).toBe('$ ls\r\nfile1 file2\r\n$ exit\r\n');
    expect(s.warnings).toEqual([]);
  });

  it('sudo: the filter combines with a byte range', async () => {
    const dir = sudoSession('filter-range', recs);
    const all = await collect(new SudoSession(dir).events({ from: 3, to: 25 }));
    const got = await collect(new SudoSession(dir).events({ from: 3, to: 25, streams: new Set<StreamName>(['ttyout']) }));
    expect(got).toEqual(all.filter((e) => e.kind !== 'data' || e.stream === 'ttyout'));
  });

  it('asciicast: input or output only, window changes kept', async () => {
    const path = join(root, 'filter.cast');
    writeFileSync(path, '{"version": 2, "width": 80, "height": 24}\n[0.1, "o", "$ "]\n[0.2, "i", "ls\\r"]\n[0.3, "r", "100x30"]\n[0.4, "o", "a b\\r\\n"]\n[0.5, "m", "mark"]\n');
    const all = await collect(new AsciicastSession(path).events());
    for (const want of [['ttyout'], ['ttyin']] as StreamName[][]) {
      const got = await collect(new AsciicastSession(path).events({ streams: new Set(want) }));
      expect(got).toEqual(all.filter((e) => e.kind !== 'data' || want.includes(e.stream)));
      expect(got.some((e) => e.kind === 'winch')).toBe(true);
    }
  });
});

describe('stream cursor read-ahead', () => {
  const data = Buffer.alloc(300_000);
  beforeAll(() => {
    const r = prng(11);
    for (let i = 0; i < data.length; i++) data[i] = Math.floor(r() * 256);
  });

  /** Reads the file through a cursor in random small takes and skips; the pieces are kept until the end. */
  async function readInPieces(path: string, seed: number, maxPiece: number): Promise<{ got: Buffer; want: Buffer; sizes: boolean }> {
    const r = prng(seed);
    const c = new StreamCursor(path);
    const pieces: Uint8Array[] = [];
    const want: Buffer[] = [];
    let pos = 0;
    let sizes = true;
    try {
      while (pos < data.length) {
        if (r() < 0.1) {
          const n = 1 + Math.floor(r() * 3000);
          c.skip(n);
          pos += n;
          continue;
        }
        const n = r() < 0.02 ? 1 + Math.floor(r() * 200_000) : 1 + Math.floor(r() * 7);
        const end = Math.min(data.length, pos + n);
        let left = end - pos;
        for await (const p of c.take(n, maxPiece)) {
          // Every piece is as long as asked unless the file ends within it.
          if (p.length !== Math.min(left, maxPiece)) sizes = false;
          left -= p.length;
          pieces.push(p);
        }
        want.push(data.subarray(Math.min(pos, data.length), end));
        pos += n;
      }
    } finally {
      await c.close();
    }
    return { got: Buffer.concat(pieces), want: Buffer.concat(want), sizes };
  }

  it('tiny takes and skips over a plain file give exactly its bytes, in the pieces asked for', async () => {
    const path = join(root, 'plain-stream');
    writeFileSync(path, data);
    for (const [seed, maxPiece] of [[1, 65536], [2, 5], [3, 4096], [4, 1]] as const) {
      const r = await readInPieces(path, seed, maxPiece);
      expect(r.got.equals(r.want)).toBe(true);
      expect(r.sizes).toBe(true);
    }
  });

  it('the same over gzip files, large and small', async () => {
    const big = join(root, 'gz-stream');
    writeFileSync(big, gzipSync(data));
    for (const seed of [5, 6]) {
      const r = await readInPieces(big, seed, 65536);
      expect(r.got.equals(r.want)).toBe(true);
    }
    const small = join(root, 'gz-small');
    writeFileSync(small, gzipSync(Buffer.from('hello gzip')));
    const c = new StreamCursor(small);
    const parts: Uint8Array[] = [];
    for (const n of [1, 1, 3, 100]) for await (const p of c.take(n, 65536)) parts.push(p);
    await c.close();
    expect(Buffer.concat(parts).toString()).toBe('hello gzip');
  });

  it('a plain file that grows is read on as before (a live session)', async () => {
    const path = join(root, 'growing');
    writeFileSync(path, 'abc');
    const c = new StreamCursor(path);
    const take = async (n: number) => {
      const parts: Uint8Array[] = [];
      for await (const p of c.take(n, 65536)) parts.push(p);
      return Buffer.concat(parts).toString();
    };
    expect(await take(2)).toBe('ab');
    expect(await take(5)).toBe('c');
    appendFileSync(path, 'defgh');
    expect(await take(3)).toBe('def');
    expect(await take(1)).toBe('g');
    await c.close();
  });

  it('a plain stream shorter than the timing says: the bytes it has and the same 1411 warning', async () => {
    const cases: Array<[string, number, number]> = [
      ['short-in-first-read', 100, 130], // the end lies inside the first read-ahead
      ['short-after-refills', 20_000, 20_050], // ... after several refills
      ['short-empty', 0, 40],
    ];
    for (const [name, has, claims] of cases) {
      const dir = join(root, name);
      mkdirSync(dir);
      writeFileSync(join(dir, 'log'), LOG);
      // 1-byte records (keystrokes), then one record straddling the end of the file.
      const ones = Math.max(0, has - 10);
      writeFileSync(join(dir, 'timing'), `4 0.001 1\n`.repeat(ones) + `4 0.001 ${claims - ones}\n` + `3 0.001 1\n`);
      writeFileSync(join(dir, 'ttyout'), data.subarray(0, has));
      writeFileSync(join(dir, 'ttyin'), 'q');
      const s = new SudoSession(dir);
      const evs = await collect(s.events());
      const out = Buffer.concat(evs.flatMap((e) => (e.kind === 'data' && e.stream === 'ttyout' ? [e.bytes] : [])));
      expect(out.equals(data.subarray(0, has))).toBe(true);
      expect(evs.filter((e) => e.kind === 'data' && e.stream === 'ttyin')).toHaveLength(1);
      expect(s.warnings).toEqual([`1411 ${join(dir, 'ttyout')}: it is shorter than the timing file says (premature EOF)`]);
    }
  });
});
