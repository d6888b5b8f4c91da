// Search conformance: keywords, control sequences removed, never across lines, detail lines
// with time offsets, globs over the roots, hostile patterns.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine.js';
import { iologSearch, matchingPaths, SearchAnswer } from '../../src/app/iolog.js';
import { makeEngine, removeDir, SAMPLES, tempDir } from './helpers.js';

let root: string;
let engine: Engine;

function session(name: string, recs: Array<[string, string | Buffer, number?]>, gz = false): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'log'), '1795315409:root:nobody::/dev/pts/0:24:80\n/tmp\n/bin/bash\n');
  const streams: Record<string, Buffer[]> = {};
  let timing = '';
  const idx: Record<string, number> = { stdin: 0, stdout: 1, stderr: 2, ttyin: 3, ttyout: 4 };
  for (const [s, data, delayMs] of recs) {
    const b = Buffer.isBuffer(data) ? data : Buffer.from(data);
    (streams[s] ??= []).push(b);
    timing += `${idx[s]} ${((delayMs ?? 10) / 1000).toFixed(3)} ${b.length}\n`;
  }
  const enc = (b: Buffer) => (gz ? gzipSync(b) : b);
  writeFileSync(join(dir, 'timing'), enc(Buffer.from(timing)));
  for (const [s, parts] of Object.entries(streams)) writeFileSync(join(dir, s), enc(Buffer.concat(parts)));
  return dir;
}

async function search(params: Record<string, string>): Promise<{ paths: string[]; tail: Record<string, unknown> }> {
  const run = await iologSearch(engine, params);
  const answer = new SearchAnswer();
  const paths: string[] = [];
  for await (const p of matchingPaths(run, answer)) paths.push(p);
  return { paths, tail: answer.tail(run.detail) };
}

beforeAll(() => {
  root = tempDir();
  session('a/01', [
    ['ttyout', '\x1b[01;32mroot@web01\x1b[00m:~# '],
    ['ttyin', 's'], ['ttyout', 's'], ['ttyin', 'e'], ['ttyout', 'e'], ['ttyin', 'cret'], ['ttyout', 'cret'], ['ttyin', '\r'], ['ttyout', '\r\n'],
    ['ttyout', '\x1b[31mred\x1b[0m alert: disk full\r\nfoo\r\nbar\r\n', 1500],
    ['ttyout', 'progress 10%\rprogress 99%\r\n'],
    ['ttyout', '\x1b]0;title text\x07typo\b\b\bed!\r\n'],
  ]);
  session('a/02', [
    ['stdin', 'input line\n'],
    ['stdout', 'permission denied\n'],
    ['stderr', 'error: boom\n'],
  ], true);
  session('b/01', [['ttyout', 'a'.repeat(40) + '!\r\n']]);
  const cast = join(root, 'b', 'demo.cast');
  writeFileSync(cast, '{"version": 2, "width": 80, "height": 24}\n[0.5, "o", "hello \\u001b[1mcast\\u001b[0m world\\r\\n"]\n[0.9, "i", "ls\\r"]\n[0.901, "o", "$ ls\\r\\n"]\n');
  engine = makeEngine([root]);
});
afterAll(async () => {
  await engine.close();
  removeDir(root);
});

describe('search', () => {
  it('finds text as shown, with colour sequences removed (ttyout and output)', async () => {
    expect((await search({ file: '**', query: 'ttyout:red alert' })).paths).toEqual([join(root, 'a/01')]);
    expect((await search({ file: '**', query: 'output:root@web01:~#' })).paths).toEqual([join(root, 'a/01')]);
    expect((await search({ file: '**', query: 'any:cast world' })).paths).toEqual([join(root, 'b/demo.cast')]);
  });

  it('keywords select streams: input vs output vs one stream', async () => {
    expect((await search({ file: '**', query: 'input:^secret$' })).paths).toEqual([join(root, 'a/01')]);
    expect((await search({ file: '**', query: 'stdout:permission' })).paths).toEqual([join(root, 'a/02')]);
    expect((await search({ file: '**', query: 'stderr:permission' })).paths).toEqual([]);
    expect((await search({ file: '**', query: 'stderr:boom' })).paths).toEqual([join(root, 'a/02')]);
    expect((await search({ file: '**', query: 'stdin:input line' })).paths).toEqual([join(root, 'a/02')]);
    expect((await search({ file: '**', query: 'ttyin:ls' })).paths).toEqual([join(root, 'b/demo.cast')]);
    expect((await search({ file: '**', query: 'output:^ls$' })).paths).toEqual([]);
  });

  it('never matches across lines', async () => {
    expect((await search({ file: '**', query: 'any:foo.*bar' })).paths).toEqual([]);
    expect((await search({ file: '**', query: 'any:foo\\s+bar' })).paths).toEqual([]);
    expect((await search({ file: '**', query: 'any:^foo$' })).paths).toEqual([join(root, 'a/01')]);
  });

  it('applies CR overwrite, backspace and OSC removal', async () => {
    expect((await search({ file: '**', query: 'ttyout:^progress 99%$' })).paths).toEqual([join(root, 'a/01')]);
    expect((await search({ file: '**', query: 'ttyout:progress 10' })).paths).toEqual([]);
    expect((await search({ file: '**', query: 'ttyout:^ted!$' })).paths).toEqual([join(root, 'a/01')]);
    expect((await search({ file: '**', query: 'any:title text' })).paths).toEqual([]);
  });

  it('detail=1 returns matching lines with their stream and time offset (ms)', async () => {
    const r = await search({ file: 'a/*', query: 'any:(alert|denied)', detail: '1' });
    expect(r.paths).toEqual([join(root, 'a/01'), join(root, 'a/02')]);
    expect(r.tail.detail).toEqual([
      { file: join(root, 'a/01'), stream: 'ttyout', time: 1590, at: 1.59, line: 'red alert: disk full' },
      { file: join(root, 'a/02'), stream: 'stdout', time: 20, at: 0.02, line: 'permission denied' },
    ]);
  });

  it('globs: relative to each root, absolute, and a single session', async () => {
    expect((await search({ file: 'b/*', query: 'any:.' })).paths).toEqual([join(root, 'b/01'), join(root, 'b/demo.cast')]);
    expect((await search({ file: `${root}/a/**`, query: 'any:.' })).paths).toEqual([join(root, 'a/01'), join(root, 'a/02')]);
    expect((await search({ file: 'a/02', query: 'any:error' })).paths).toEqual([join(root, 'a/02')]);
    expect((await search({ file: 'nothing/*', query: 'any:.' })).paths).toEqual([]);
  });

  it('answers a catastrophic regex with 1405 in bounded time', async () => {
    const t0 = Date.now();
    await expect(search({ file: '**', query: 'ttyout:^(a+)+$' })).rejects.toMatchObject({ code: 1405 });
    expect(Date.now() - t0).toBeLessThan(15_000);
    // the pool is still usable afterwards
    expect((await search({ file: 'a/*', query: 'any:denied' })).paths).toEqual([join(root, 'a/02')]);
  });

  it('refuses bad queries and globs with clear codes', async () => {
    await expect(iologSearch(engine, { file: '**', query: 'nokeyword' })).rejects.toMatchObject({ code: 1404 });
    await expect(iologSearch(engine, { file: '**', query: 'bogus:x' })).rejects.toMatchObject({ code: 1404 });
    await expect(iologSearch(engine, { file: '**', query: 'any:(' })).rejects.toMatchObject({ code: 1404 });
    await expect(iologSearch(engine, { file: '**', query: `any:${'a'.repeat(1025)}` })).rejects.toMatchObject({ code: 1404 });
    await expect(iologSearch(engine, { file: '../**', query: 'any:x' })).rejects.toMatchObject({ code: 1406 });
    await expect(iologSearch(engine, { file: '{a,b}{c,d}{e,f}{g,h}', query: 'any:x' })).rejects.toMatchObject({ code: 1406 });
    await expect(iologSearch(engine, { file: '**' })).rejects.toMatchObject({ code: 1413 });
  });

  it('searches the real samples', async () => {
    const e = makeEngine([SAMPLES]);
    try {
      const run = await iologSearch(e, { file: 'sudo-io/**', query: 'ttyout:^uid=0\\(root\\)' });
      const paths: string[] = [];
      for await (const p of matchingPaths(run, new SearchAnswer())) paths.push(p);
      expect(run.sessions).toBe(15);
      expect(paths).toEqual([join(SAMPLES, 'sudo-io/nobody/root-20261122-vR9D0b')]);
    } finally {
      await e.close();
    }
  });
});
