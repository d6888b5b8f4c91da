// What evio creates for itself is its own user's only. Before, under the usual umask 022, the
// first start created the data folder 0755 (and the I/O log roots 0755), and the I/O log index,
// the seek cache and the flat-file skip indexes were 0644 / 0640: a summary of private sudo
// sessions readable by every local user. Now folders are created 0700 and caches and indexes
// 0600 (their SQLite -wal and -shm files too), whatever the umask.
import { mkdtempSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { indexEventLog } from '../../src/app/events-index.js';
import { prepareDataFolder } from '../../src/app/first-start.js';
import { iologIndex, iologSeekIndex } from '../../src/app/iolog.js';
import { Engine } from '../../src/engine.js';
import { generateEvents } from '../../src/eventlog/generate.js';
import { loadSettings } from '../../src/settings.js';
import { writeSudoSession } from './helpers.js';

const mode = (p: string) => statSync(p).mode & 0o777;

describe('modes of what evio creates', () => {
  let top: string | undefined;
  let engine: Engine | undefined;
  afterEach(async () => {
    await engine?.close();
    engine = undefined;
    if (top) rmSync(top, { recursive: true, force: true });
    top = undefined;
  });

  it('the first start creates the data folder and the I/O log roots 0700; the index, seek cache and skip index are 0600', async () => {
    expect(process.umask()).toBe(0o022); // the usual umask, under which the old code made 0755/0644
    top = realpathSync(mkdtempSync(join(tmpdir(), 'evio-modes-')));
    const home = join(top, 'var', 'evio');
    const root = join(top, 'sudo-io');
    const settings = loadSettings({ env: { EVIO_HOME: home }, overrides: { iologdirs: [root] } });
    const first = prepareDataFolder(settings);
    expect(first.warnings).toEqual([]);
    expect([mode(home), mode(join(top, 'var')), mode(root)]).toEqual([0o700, 0o700, 0o700]);

    writeSudoSession(join(root, '00', '00', '01'), Buffer.from('hello\r\n'));
    engine = new Engine(settings);
    const stats = await iologIndex(engine);
    expect(stats).toMatchObject({ added: 1 });
    await iologSeekIndex(engine, { file: join(root, '00', '00', '01') });
    const events = join(home, 'events.ndjson');
    writeFileSync(events, `${[...generateEvents({ count: 50, seed: 2 })].map((r) => JSON.stringify(r)).join('\n')}\n`);
    await indexEventLog(engine, { file: events });
    // While the seek cache is open its -wal and -shm files are there: SQLite gives them the database's mode.
    const open = readdirSync(home).filter((n) => /sqlite-(wal|shm)$/.test(n));
    expect(open.length).toBeGreaterThan(0);
    for (const name of open) expect([name, mode(join(home, name)).toString(8)]).toEqual([name, '600']);
    await engine.close();
    engine = undefined;

    const made = readdirSync(home).filter((n) => /sqlite|evidx/.test(n)).sort();
    expect(made).toEqual(expect.arrayContaining(['iolog-index.sqlite', 'iolog-index-seek.sqlite', 'events.ndjson.evidx']));
    for (const name of made) expect([name, mode(join(home, name)).toString(8)]).toEqual([name, '600']);
  });
});
