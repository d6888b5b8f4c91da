// The real sessions recorded for evio (fixtures/iolog): bytes exact vs the files and
// sudoreplay, and the search sees the text a terminal showed.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine.js';
import { iologChunk, iologSearch, matchingPaths, SearchAnswer } from '../../src/app/iolog.js';
import { blobBytes, makeEngine, referenceStream } from './helpers.js';

const ROOT = fileURLToPath(new URL('../../fixtures/iolog/sudo-rec', import.meta.url));
let engine: Engine;
beforeAll(() => {
  engine = makeEngine([ROOT]);
});
afterAll(async () => {
  await engine.close();
});

describe('recorded fixtures', () => {
  for (const id of ['000001', '000002']) {
    it(`${id}: full-range chunk = files = sudoreplay`, async () => {
      const dir = join(ROOT, id.slice(0, 2), id.slice(2, 4), id.slice(4));
      const c = await iologChunk(engine, { file: dir, len: '1048576' });
      const ref = referenceStream(dir);
      expect(c.bytes).toBe(ref.length);
      expect(blobBytes(c.items as Array<Record<string, unknown>>).equals(ref)).toBe(true);
      if (existsSync('/usr/bin/sudoreplay')) {
        const r = spawnSync('sudoreplay', ['-d', ROOT, '-n', '-m', '0', id], { env: { ...process.env, LINES: '500', COLUMNS: '500' } });
        expect(r.status).toBe(0);
        const vars = JSON.parse(readFileSync(join(dir, 'log.json'), 'utf8')) as { command: string; runargv: string[] };
        const header = Buffer.from(`Replaying sudo session: ${[vars.command, ...vars.runargv.slice(1)].join(' ')}`);
        const out = r.stdout;
        expect(out.subarray(0, header.length).equals(header)).toBe(true);
        expect(out.subarray(header.length, out.length - 2).equals(referenceStream(dir, ['ttyout', 'stdout', 'stderr']))).toBe(true);
      }
    });
  }

  it('search sees colours removed, UTF-8 decoded and CR overwrites applied', async () => {
    const find = async (query: string) => {
      const run = await iologSearch(engine, { file: '**', query, detail: '1' });
      const a = new SearchAnswer();
      const paths: string[] = [];
      for await (const p of matchingPaths(run, a)) paths.push(p);
      return { paths, detail: a.detail.map((d) => d.line) };
    };
    // ^@ is the tty's echo of a NUL the recording machine's terminal injected (as in the samples)
    expect((await find('ttyout:red h\u00e9llo$')).detail).toEqual(['^@red h\u00e9llo']);
    expect((await find('ttyout:^/etc  /tmp$')).detail).toEqual(['/etc  /tmp']);
    expect((await find('ttyout:^ab345$')).detail).toEqual(['ab345']);
    expect((await find('output:^err$')).paths).toEqual([join(ROOT, '00/00/02')]);
  });
});
