// node-postgres is loaded without its Cloudflare probe pulling in Node 20's bundled fetch
// (src/eventlog/postgres/pg-module.ts): the probe's answer costs a one-shot command ~20 ms.
// Run in a child process on the built dist/, which has loaded nothing else.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const pgModule = new URL('../../../dist/eventlog/postgres/pg-module.js', import.meta.url).href;
const pgPackage = import.meta.resolve('pg');

function loadIn(child: string): { undici: boolean; navigator: string; pool: string } {
  const code = `await import(${JSON.stringify(child)});
const m = await import(${JSON.stringify(child)});
process.stdout.write(JSON.stringify({ undici: process.moduleLoadList.some((x) => x.includes('undici')), navigator: typeof globalThis.navigator, pool: typeof (m.pg ?? m.default).Pool }));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', timeout: 30_000 });
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout);
}

describe('loading node-postgres', () => {
  it('does not load the fetch implementation and leaves no navigator behind', () => {
    const major = Number(process.versions.node.split('.')[0]);
    expect(loadIn(pgModule)).toEqual({ undici: false, navigator: major >= 21 ? 'object' : 'undefined', pool: 'function' });
  });

  it('the package alone loads it on Node 20 (what pg-module.ts avoids)', (ctx) => {
    if (Number(process.versions.node.split('.')[0]) >= 21) return ctx.skip();
    expect(loadIn(pgPackage).undici).toBe(true);
  });
});
