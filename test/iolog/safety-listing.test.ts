// Safety (traversal, symlink escape, system directories) and the directory listing and raw
// download that expose files.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import tar from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine.js';
import { iologChunk, iologDownload, iologListDirectory, iologSearch, iologVariables, matchingPaths, SearchAnswer } from '../../src/app/iolog.js';
import { copyTree, makeEngine, removeDir, SAMPLES, tempDir } from './helpers.js';

let root: string;
let outside: string;
let engine: Engine;

beforeAll(() => {
  root = tempDir();
  outside = tempDir('evio-outside-');
  copyTree(join(SAMPLES, 'sudo-io'), join(root, 'sudo-io'));
  // a secret session outside the roots, and ways to reach it
  copyTree(join(SAMPLES, 'sudo-io/00/00/01'), join(outside, 'secret'));
  writeFileSync(join(outside, 'secret.txt'), 'top secret');
  symlinkSync(join(outside, 'secret'), join(root, 'escape-dir'));
  symlinkSync(join(outside, 'secret.txt'), join(root, 'escape-file'));
  // a session whose stream file is a symlink to a file outside
  mkdirSync(join(root, 'planted'));
  writeFileSync(join(root, 'planted/log'), '1795315409:root:nobody::/dev/pts/0:24:80\n/tmp\n/bin/x\n');
  writeFileSync(join(root, 'planted/timing'), '4 0.1 10\n');
  symlinkSync(join(outside, 'secret.txt'), join(root, 'planted/ttyout'));
  writeFileSync(join(root, 'notes.txt'), 'hello');
  engine = makeEngine([root]);
});
afterAll(async () => {
  await engine.close();
  removeDir(root);
  removeDir(outside);
});

describe('confinement', () => {
  it('refuses traversal and absolute paths outside the roots (1008)', async () => {
    for (const file of ['../', '../../etc/passwd', `${outside}/secret`, 'sudo-io/../../', '/etc/passwd']) {
      await expect(iologChunk(engine, { file })).rejects.toMatchObject({ code: 1008 });
    }
    await expect(iologListDirectory(engine, { path: '..' })).rejects.toMatchObject({ code: 1008 });
    await expect(iologDownload(engine, { file: '../' })).rejects.toMatchObject({ code: 1008 });
  });

  it('refuses symlinks that lead out of the roots', async () => {
    await expect(iologChunk(engine, { file: 'escape-dir' })).rejects.toMatchObject({ code: 1008 });
    await expect(iologVariables(engine, { file: 'escape-dir' })).rejects.toMatchObject({ code: 1008 });
    await expect(iologDownload(engine, { file: 'escape-file' })).rejects.toMatchObject({ code: 1008 });
    await expect(iologListDirectory(engine, { path: 'escape-dir' })).rejects.toMatchObject({ code: 1008 });
  });

  it('never reads a stream file that is a planted symlink', async () => {
    await expect(iologChunk(engine, { file: 'planted' })).rejects.toMatchObject({ code: 1414 });
    const tarball = await iologDownload(engine, { file: 'planted' });
    const names = await tarNames(tarball.stream);
    expect(names.map((n) => n.name)).toEqual(['planted/log', 'planted/timing']);
  });

  it('walks never follow symlinks (search does not find the session behind escape-dir)', async () => {
    const run = await iologSearch(engine, { file: '**', query: 'any:drwx' });
    const paths: string[] = [];
    const answer = new SearchAnswer();
    for await (const p of matchingPaths(run, answer)) paths.push(p);
    // the session with the planted symlink is reported, not read
    expect(answer.warnings).toEqual([expect.stringMatching(/^1414 .*planted\/ttyout is a symbolic link/)]);
    expect(paths.some((p) => p.includes('secret') || p.includes('escape'))).toBe(false);
    expect(paths).toContain(join(root, 'sudo-io/00/00/01'));
  });

  it('never lists system directories, even under a root of /', async () => {
    const e = makeEngine(['/']);
    try {
      for (const path of ['/', '/etc', '/proc/self', '/usr/bin']) {
        await expect(iologListDirectory(e, { path })).rejects.toMatchObject({ code: 1408 });
      }
      await expect(iologDownload(e, { file: '/etc/passwd' })).rejects.toMatchObject({ code: 1408 });
    } finally {
      await e.close();
    }
  });

  it('refuses NUL bytes and names a non-session clearly', async () => {
    await expect(iologChunk(engine, { file: 'a\u0000b' })).rejects.toMatchObject({ code: 1009 });
    await expect(iologChunk(engine, { file: 'notes.txt' })).rejects.toMatchObject({ code: 1400 });
    await expect(iologChunk(engine, { file: 'sudo-io/00' })).rejects.toMatchObject({ code: 1400 });
    await expect(iologChunk(engine, { file: 'nope' })).rejects.toMatchObject({ code: 1004 });
    await expect(iologChunk(engine, { file: 'sudo-io/00/00/01', start: '-1' })).rejects.toMatchObject({ code: 1401 });
    await expect(iologChunk(engine, { file: 'sudo-io/00/00/01', len: 'x' })).rejects.toMatchObject({ code: 1401 });
    await expect(iologChunk(engine, { file: ['a', 'b'] })).rejects.toMatchObject({ code: 1009 });
  });
});

describe('directory listing', () => {
  it('lists one level with name, path, size, mtime (Unix s) and type; no symlinks', async () => {
    const l = await iologListDirectory(engine, { path: '.' });
    expect(l.entries.map((e) => [e.name, e.type])).toEqual([
      ['notes.txt', 'file'],
      ['planted', 'session'],
      ['sudo-io', 'dir'],
    ]);
    const notes = l.entries[0]!;
    expect(notes).toMatchObject({ path: join(root, 'notes.txt'), size: 5 });
    expect(Math.abs(notes.mtime - Date.now() / 1000)).toBeLessThan(600);
    const seq = await iologListDirectory(engine, { path: 'sudo-io/00/00' });
    expect(seq.entries).toHaveLength(13);
    expect(seq.entries.every((e) => e.type === 'session')).toBe(true);
  });

  it('filters names with a regular expression, bounded', async () => {
    const l = await iologListDirectory(engine, { path: 'sudo-io/00/00', filter: '^0[A-C]$' });
    expect(l.entries.map((e) => e.name)).toEqual(['0A', '0B', '0C']);
    await expect(iologListDirectory(engine, { path: '.', filter: '(' })).rejects.toMatchObject({ code: 1407 });
    await expect(iologListDirectory(engine, { path: '.', filter: 'x'.repeat(300) })).rejects.toMatchObject({ code: 1407 });
    await expect(iologListDirectory(engine, { path: 'notes.txt' })).rejects.toMatchObject({ code: 1418 });
  });

  it('a catastrophic filter on long names ends with 1405 in bounded time', async () => {
    const d = join(root, 'longnames');
    mkdirSync(d, { recursive: true });
    writeFileSync(join(d, `${'a'.repeat(60)}!`), '');
    const t0 = Date.now();
    await expect(iologListDirectory(engine, { path: 'longnames', filter: '^(a+)+$' })).rejects.toMatchObject({ code: 1405 });
    expect(Date.now() - t0).toBeLessThan(15_000);
  });
});

async function tarNames(stream: NodeJS.ReadableStream): Promise<Array<{ name: string; data: Buffer }>> {
  const ex = tar.extract();
  const out: Array<{ name: string; data: Buffer }> = [];
  const done = new Promise<void>((resolve, reject) => {
    ex.on('entry', (h, s, next) => {
      const parts: Buffer[] = [];
      s.on('data', (c: unknown) => parts.push(c as Buffer));
      s.on('end', () => {
        out.push({ name: h.name, data: Buffer.concat(parts) });
        next();
      });
    });
    ex.on('finish', () => resolve());
    ex.on('error', reject);
  });
  stream.pipe(ex as unknown as NodeJS.WritableStream);
  await done;
  return out;
}

describe('raw download', () => {
  it('sends a file as is', async () => {
    const d = await iologDownload(engine, { file: 'sudo-io/00/00/01/ttyout' });
    const parts: Buffer[] = [];
    for await (const c of d.stream) parts.push(c as Buffer);
    expect(Buffer.concat(parts).equals(readFileSync(join(SAMPLES, 'sudo-io/00/00/01/ttyout')))).toBe(true);
    expect(d).toMatchObject({ filename: 'ttyout', contentType: 'application/octet-stream', size: 430 });
  });

  it('sends a session directory as a tar of its files, byte for byte', async () => {
    const d = await iologDownload(engine, { file: 'sudo-io/00/00/03' });
    expect(d).toMatchObject({ filename: '03.tar', contentType: 'application/x-tar' });
    const entries = await tarNames(d.stream);
    expect(entries.map((e) => e.name)).toEqual(['03/log', '03/log.json', '03/stderr', '03/stdin', '03/stdout', '03/timing', '03/ttyin', '03/ttyout']);
    for (const e of entries) expect(e.data.equals(readFileSync(join(SAMPLES, 'sudo-io/00/00', e.name)))).toBe(true);
    await expect(iologDownload(engine, { file: 'sudo-io/00' })).rejects.toMatchObject({ code: 1400 });
  });
});
