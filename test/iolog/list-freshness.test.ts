// The cached list's freshness check: a list call on a current index does not walk the roots,
// and a session directory created or removed since the last update is seen by the next call.
import { readdirSync, rmSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine.js';
import { iologIndex, iologList } from '../../src/app/iolog.js';
import { openIndex } from '../../src/iolog/index-db.js';
import { indexIsCurrent } from '../../src/iolog/index-freshness.js';
import { updateIndex } from '../../src/iolog/index-update.js';
import { copyTree, makeEngine, removeDir, SAMPLES, tempDir } from './helpers.js';

let root: string;
let sudoRoot: string;
let engine: Engine;

/** Every directory under `dir` (itself included) gets an mtime an hour ago: older than RACY_MS. */
function ageDirs(dir: string): void {
  const past = new Date(Date.now() - 3600_000);
  utimesSync(dir, past, past);
  for (const e of readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) ageDirs(join(dir, e.name));
}

function lastUpdated(): number {
  const db = openIndex(engine.settings.iologcache, 'read')!;
  try {
    return Number((db.prepare("SELECT value FROM meta WHERE key = 'updated'").get() as { value: string }).value);
  } finally {
    db.close();
  }
}

const roots = () => [...engine.settings.iologdirs];
const paths = async () => (await iologList(engine, { len: '100' })).map((r) => r.logpath);

beforeAll(() => {
  root = tempDir();
  sudoRoot = join(root, 'sudo-io');
  copyTree(join(SAMPLES, 'sudo-io'), sudoRoot);
  ageDirs(root);
  engine = makeEngine([sudoRoot]);
});
afterAll(async () => {
  await engine.close();
  removeDir(root);
});

describe('cached list freshness', () => {
  it('an index built before any change is current, and a list call does not update it', async () => {
    expect(indexIsCurrent(roots(), engine.settings.iologcache)).toBe(false); // never built
    const built = await iologIndex(engine);
    expect(built.total).toBe(15);
    expect(indexIsCurrent(roots(), engine.settings.iologcache)).toBe(true);
    const at = lastUpdated();
    expect((await paths()).length).toBe(15);
    expect(lastUpdated()).toBe(at); // no walk ran
    // Other roots: not current.
    expect(indexIsCurrent([sudoRoot, root], engine.settings.iologcache)).toBe(false);
  });

  it('a session created since the last update is listed by the next call; a removed one is gone', async () => {
    const added = join(sudoRoot, '00/00/0Z');
    copyTree(join(sudoRoot, '00/00/01'), added);
    expect(indexIsCurrent(roots(), engine.settings.iologcache)).toBe(false);
    expect(await paths()).toContain(added);
    // Its parent changed moments before that update: not trusted yet, the next call walks again.
    expect(indexIsCurrent(roots(), engine.settings.iologcache)).toBe(false);
    rmSync(join(sudoRoot, '00/00/02'), { recursive: true });
    const after = await paths();
    expect(after).not.toContain(join(sudoRoot, '00/00/02'));
    expect(after).toContain(added);
    expect(after.length).toBe(15);
  });

  it('a session in a new seq folder (00/01/01) is listed; a directory that was not yet a session is watched', async () => {
    ageDirs(root);
    await iologList(engine, { refresh: '1' });
    expect(indexIsCurrent(roots(), engine.settings.iologcache)).toBe(true);
    const fresh = join(sudoRoot, '00/01/01');
    copyTree(join(sudoRoot, '00/00/03'), fresh);
    expect(await paths()).toContain(fresh);
    // A session directory made in two steps: mkdir, then (after an update saw it empty) its files.
    const half = join(sudoRoot, '00/01/02');
    copyTree(join(sudoRoot, '00/00/04'), join(root, 'staging'));
    rmSync(join(root, 'staging', 'timing'));
    copyTree(join(root, 'staging'), half);
    ageDirs(root);
    expect(await paths()).not.toContain(half); // not a session yet: no timing
    expect(indexIsCurrent(roots(), engine.settings.iologcache)).toBe(true);
    copyTree(join(sudoRoot, '00/00/04/timing'), join(half, 'timing'));
    expect(statSync(half).mtimeMs).toBeGreaterThan(Date.now() - 60_000);
    expect(indexIsCurrent(roots(), engine.settings.iologcache)).toBe(false);
    expect(await paths()).toContain(half);
  });

  it('a rebuild starts without directory signatures (one cut short is never current)', async () => {
    ageDirs(root);
    await iologIndex(engine);
    expect(indexIsCurrent(roots(), engine.settings.iologcache)).toBe(true);
    await expect(updateIndex(roots(), engine.settings.iologcache, { rebuild: true, signal: AbortSignal.abort() })).rejects.toThrow(/cancelled/);
    expect(indexIsCurrent(roots(), engine.settings.iologcache)).toBe(false);
    expect((await paths()).length).toBe(17);
  });
});
