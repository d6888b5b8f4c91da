// The %{seq} counter: sudo's 7-byte format, concurrent creates (in this process and in two
// others at once) all getting distinct IDs, the wrap at maxSeq that skips IDs whose session
// still exists (evio never writes into one), an empty directory reused, a broken seq file.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatSeq, parseSeq, seqAfter, splitSeq, MAX_SEQ } from '../../../src/iolog/writer/seq.js';
import { createIologSession } from '../../../src/iolog/writer/index.js';
import type { IologWriterOptions } from '../../../src/iolog/writer/types.js';
import { buildWriterChild, runChild, type ChildBuild } from './child-build.js';
import { removeRoot, sudoInfo, tempRoot, writerOptions } from './helpers.js';

const SUBMIT = { sec: 1_767_225_600, nsec: 0 };

async function createMany(opts: IologWriterOptions, n: number): Promise<string[]> {
  const sessions = await Promise.all(Array.from({ length: n }, () => createIologSession(opts, SUBMIT, sudoInfo())));
  await Promise.all(sessions.map((s) => s.close()));
  return sessions.map((s) => s.relPath);
}

describe('the seq format', () => {
  it('six base-36 upper-case digits, split in three levels', () => {
    expect(formatSeq(1)).toBe('000001');
    expect(formatSeq(36)).toBe('000010');
    expect(formatSeq(MAX_SEQ - 1)).toBe('ZZZZZZ');
    expect(splitSeq('00002A')).toBe('00/00/2A');
  });

  it('reads as sudo reads: empty, not base 36, or not below maxSeq is 0; lower case is base 36 too', () => {
    const b = (s: string) => Buffer.from(s, 'latin1');
    expect(parseSeq(b('000001\n'), MAX_SEQ)).toBe(1);
    expect(parseSeq(b('ZZZZZZ\n'), MAX_SEQ)).toBe(MAX_SEQ - 1);
    expect(parseSeq(b('00002a'), MAX_SEQ)).toBe(82);
    expect(parseSeq(b(''), MAX_SEQ)).toBe(0);
    expect(parseSeq(b('00 01\n'), MAX_SEQ)).toBe(0);
    expect(parseSeq(b('\u0000\u0000'), MAX_SEQ)).toBe(0);
    expect(parseSeq(b('000010\n'), 36)).toBe(0);
  });

  it('the next ID wraps from maxSeq - 1 to 1', () => {
    expect(seqAfter(0, MAX_SEQ)).toBe(1);
    expect(seqAfter(MAX_SEQ - 2, MAX_SEQ)).toBe(MAX_SEQ - 1);
    expect(seqAfter(MAX_SEQ - 1, MAX_SEQ)).toBe(1);
    expect(seqAfter(3, 5)).toBe(4);
    expect(seqAfter(4, 5)).toBe(1);
  });
});

describe('concurrent creates', () => {
  let root: string;
  let child: ChildBuild;
  beforeAll(() => {
    root = tempRoot();
    child = buildWriterChild();
  });
  afterAll(() => {
    child.cleanup();
    removeRoot(root);
  });

  it('40 creates at once in one process: 40 distinct IDs, 1 to 40, seq "00014\\n" is 7 bytes, no scratch or lock file left', async () => {
    const rels = await createMany(writerOptions(root), 40);
    expect(new Set(rels).size).toBe(40);
    expect(rels.map((r) => parseInt(r.replaceAll('/', ''), 36)).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(readFileSync(join(root, 'seq'), 'latin1')).toBe('000014\n');
    expect(statSync(join(root, 'seq')).mode & 0o777).toBe(0o600);
    expect(readdirSync(root).sort()).toEqual(['00', 'seq']);
  });

  it('two other processes and this one at once (20 creates each): 60 distinct IDs, 41 to 100', async () => {
    const [a, b, mine] = await Promise.all([runChild(child, ['create', root, '20']), runChild(child, ['create', root, '20']), createMany(writerOptions(root), 20)]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    const all = [...a.stdout.split('\n').filter(Boolean), ...b.stdout.split('\n').filter(Boolean), ...mine];
    expect(all).toHaveLength(60);
    expect(all.map((r) => parseInt(r.replaceAll('/', ''), 36)).sort((x, y) => x - y)).toEqual(Array.from({ length: 60 }, (_, i) => i + 41));
    expect(readFileSync(join(root, 'seq'), 'latin1')).toBe('00002S\n'); // 100
    expect(readdirSync(root).sort()).toEqual(['00', 'seq']);
  });
});

describe('wrapping and collisions', () => {
  let root: string;
  beforeAll(() => {
    root = tempRoot();
  });
  afterAll(() => removeRoot(root));

  it('maxSeq 4: IDs 1, 2, 3; then every ID is taken (1457) and nothing is overwritten', async () => {
    const opts = writerOptions(root, { maxSeq: 4 });
    expect(await createMany(opts, 3)).toEqual(['00/00/01', '00/00/02', '00/00/03']);
    const before = readFileSync(join(root, '00/00/02/log.json'));
    await expect(createIologSession(opts, SUBMIT, sudoInfo())).rejects.toThrow(/^1457 .*no free session directory.*after 3 names/);
    expect(readFileSync(join(root, '00/00/02/log.json'))).toEqual(before);
  });

  it('after the wrap, a free ID is taken: a removed session\'s, or an empty directory', async () => {
    const opts = writerOptions(root, { maxSeq: 4 });
    rmSync(join(root, '00/00/02'), { recursive: true });
    expect(await createMany(opts, 1)).toEqual(['00/00/02']);
    rmSync(join(root, '00/00/01'), { recursive: true });
    mkdirSync(join(root, '00/00/01'));
    expect(await createMany(opts, 1)).toEqual(['00/00/01']);
    expect(readdirSync(join(root, '00/00/01')).sort()).toEqual(['log', 'log.json', 'stderr', 'stdout', 'timing', 'ttyout']);
  });

  it('a broken seq file counts from 0 again, skipping the sessions that exist', async () => {
    const sub = tempRoot();
    try {
      const opts = writerOptions(sub);
      await createMany(opts, 3);
      writeFileSync(join(sub, 'seq'), 'not a number\n');
      expect(await createMany(opts, 1)).toEqual(['00/00/04']);
      expect(readFileSync(join(sub, 'seq'), 'latin1')).toBe('000004\n');
      writeFileSync(join(sub, 'seq'), 'ZZZZZZ\n');
      expect(await createMany(opts, 1)).toEqual(['00/00/05']); // past maxSeq - 1: wraps to 1, then 1-4 are taken
      expect(existsSync(join(sub, '00/00/00'))).toBe(false);
    } finally {
      removeRoot(sub);
    }
  });
});

describe('IDs taken ahead (seqReserve, the log server)', () => {
  it('hands out IDs in order from memory, one seq write per 16, and takes no ID twice', async () => {
    const root = tempRoot();
    try {
      const opts = writerOptions(root, { seqReserve: 15 });
      const one: string[] = [];
      for (let i = 0; i < 20; i++) one.push(...(await createMany(opts, 1)));
      const burst = await createMany(opts, 30);
      const all = [...one, ...burst];
      expect(one).toEqual(Array.from({ length: 20 }, (_, i) => splitSeq(formatSeq(i + 1))));
      expect(new Set(all).size).toBe(50);
      expect([...all].sort()).toEqual(Array.from({ length: 50 }, (_, i) => splitSeq(formatSeq(i + 1))));
      // seq holds the last ID taken, at most one reserve ahead of the last one used.
      const last = parseSeq(readFileSync(join(root, 'seq')), MAX_SEQ);
      expect(last).toBeGreaterThanOrEqual(50);
      expect(last).toBeLessThanOrEqual(50 + 15 + 30);
    } finally {
      removeRoot(root);
    }
  });
});
