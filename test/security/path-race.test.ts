// Finding 3 of the security review: a directory under the roots swapped for a symlink between
// evio's path check and its open. A separate process swaps the directories of an event log and
// of a session for symlinks to look-alikes outside the roots and back, as fast as it can, while
// a real server on loopback serves downloads, chunks, variables, queries and DELETEs of them.
// Nothing from outside may be served, nothing outside may be written (no rewrite, no lock, no
// scratch file), and once the swapping stops every writer gets through (no lock left held).
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateEvents } from '../../src/eventlog/generate.js';
import type { RunningServer } from '../../src/http/server.js';
import { checkSession, measureTree, removeTree } from '../../src/iolog/removal.js';
import { makeHome, serve, signed, type Answer, type TestHome } from '../http/server/helpers.js';
import { startSwapper, writeSudoSession } from './helpers.js';

const V = '/REST/v2.0';
const MARK = 'OUTSIDE!';
const RECORDS = 400;
const SWAP_MS = 20_000;
const SWAP_MAX = 200_000;

let home: TestHome;
let server: RunningServer;
let outside: string;

/** Every file below `dir` (relative name -> sha256), symlinks and all. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const p = join(e.parentPath, e.name);
    out[p.slice(dir.length + 1)] = e.isFile() ? createHash('sha256').update(readFileSync(p)).digest('hex') : e.isDirectory() ? 'dir' : 'other';
  }
  return out;
}

function eventLines(submituser?: string): string {
  const lines: string[] = [];
  for (const rec of generateEvents({ count: RECORDS, seed: 7 })) lines.push(JSON.stringify(submituser ? { ...rec, submituser } : rec));
  return `${lines.join('\n')}\n`;
}

beforeAll(async () => {
  home = makeHome({ lockTimeoutMs: 2000 });
  outside = realpathSync(mkdtempSync(join(tmpdir(), 'evio-race-outside-')));
  // Inside: an event log and a session. Outside: look-alikes at the same relative names, with
  // the same uniqueids (so a delete that strays would really rewrite the outside log).
  mkdirSync(join(home.dir, 'elog'));
  writeFileSync(join(home.dir, 'elog', 'events.ndjson'), eventLines());
  mkdirSync(join(outside, 'elog'));
  writeFileSync(join(outside, 'elog', 'events.ndjson'), eventLines(MARK));
  writeSudoSession(join(home.dir, 'iolog', 'box', 'sess'), Buffer.alloc(4096, 'i'));
  writeSudoSession(join(outside, 'box', 'sess'), Buffer.from(MARK.repeat(512)), { submituser: MARK });
  writeFileSync(join(outside, 'box', `${MARK}.txt`), MARK);
  server = await serve(home);
}, 60_000);

afterAll(async () => {
  await server?.close();
  await home?.cleanup();
  if (outside) rmSync(outside, { recursive: true, force: true });
});

/** The bytes of every blob of a chunk answer. */
function chunkBytes(a: Answer): string {
  const items = (a.body.log ?? []) as Array<{ blob?: string }>;
  return Array.isArray(items) ? items.map((i) => (i.blob ? Buffer.from(i.blob, 'base64').toString('latin1') : '')).join('') : '';
}

describe('a directory swapped for a symlink during requests (rename dance)', () => {
  it('serves nothing from outside, writes nothing outside, and leaves no lock held', async () => {
    const before = snapshot(outside);
    const uniqueids = [...generateEvents({ count: RECORDS, seed: 7 })].map((r) => r.uniqueid as string);
    const swapper = startSwapper(
      [
        [join(home.dir, 'elog'), join(outside, 'elog')],
        [join(home.dir, 'iolog', 'box'), join(outside, 'box')],
      ],
      SWAP_MS,
      SWAP_MAX,
    );
    let running = true;
    void swapper.done.finally(() => (running = false)).catch(() => undefined);

    const leaks: string[] = [];
    const codes = new Map<string, number>();
    const count = (kind: string, a: Answer) => {
      const k = `${kind} ${a.http}/${String(a.body.status ?? (a.http === 200 ? 'raw' : '?'))}`;
      codes.set(k, (codes.get(k) ?? 0) + 1);
    };
    const calls: Array<() => Promise<void>> = [
      async () => {
        const a = await signed(server, 'admin', 'GET', '/REST/iologfile?file=box/sess/ttyout');
        count('download', a);
        if (a.text.includes(MARK)) leaks.push('download of box/sess/ttyout');
      },
      async () => {
        const a = await signed(server, 'admin', 'GET', '/REST/iologfile?file=box/sess');
        count('tar', a);
        if (a.text.includes(MARK)) leaks.push('tar of box/sess');
      },
      async () => {
        const a = await signed(server, 'admin', 'GET', '/REST/iolog?file=box/sess');
        count('chunk', a);
        if (chunkBytes(a).includes(MARK) || a.text.includes(MARK)) leaks.push('chunk of box/sess');
      },
      async () => {
        const a = await signed(server, 'admin', 'GET', '/REST/iolog/variables?file=box/sess');
        count('variables', a);
        if (a.text.includes(MARK)) leaks.push('variables of box/sess');
      },
      async () => {
        const a = await signed(server, 'admin', 'GET', '/REST/iolog?path=box');
        count('listing', a);
        if (a.text.includes(MARK)) leaks.push('listing of box');
      },
      async () => {
        const a = await signed(server, 'admin', 'GET', `${V}/events?format=ff&file=elog/events.ndjson&limit=5`);
        count('query', a);
        if (a.text.includes(MARK)) leaks.push('query of elog/events.ndjson');
      },
      async () => {
        const id = uniqueids[Math.floor(Math.random() * uniqueids.length)]!;
        const a = await signed(server, 'admin', 'DELETE', `${V}/events?format=ff&file=elog/events.ndjson&uniqueid=${encodeURIComponent(id)}`);
        count('delete', a);
      },
    ];
    // Six workers, each cycling through the calls, while the swapper runs.
    let made = 0;
    await Promise.all(
      Array.from({ length: 6 }, async (_, w) => {
        for (let i = w; running && made < 6000; i++) {
          made++;
          await calls[i % calls.length]!();
        }
      }),
    );
    const swaps = await swapper.done;
    console.log(`path race: ${swaps} swaps, ${made} calls; answers: ${JSON.stringify(Object.fromEntries([...codes].sort()))}`);
    expect(swaps).toBeGreaterThan(100);
    expect(made).toBeGreaterThan(300);

    expect(leaks).toEqual([]);
    // A lost race is a 4xx (1008, 1004, 1011, ...), never an internal error.
    expect([...codes.keys()].filter((k) => / 5\d\d\//.test(k))).toEqual([]);
    // Outside: byte for byte as before, and no lock, temp or scratch file appeared there.
    expect(snapshot(outside)).toEqual(before);
    // Inside: no lock left behind, and writers get through at once.
    expect(readdirSync(join(home.dir, 'elog')).filter((n) => n !== 'events.ndjson')).toEqual([]);
    const del = await signed(server, 'admin', 'DELETE', `${V}/events?format=ff&file=elog/events.ndjson&uniqueid=${encodeURIComponent(uniqueids[0]!)}`);
    expect(del.body.status).toBe(0);
    const del2 = await signed(server, 'admin', 'DELETE', `${V}/events?format=ff&file=elog/events.ndjson&all=1`);
    expect(del2.body.status).toBe(0);
    expect(readdirSync(join(home.dir, 'elog'))).toEqual(['events.ndjson']);
  }, 120_000);
});

describe('removing an I/O log whose parent directory is swapped after the check', () => {
  it('removes nothing outside the roots (the purge of a K record\'s session)', async () => {
    const roots = home.settings.iologdirs;
    writeSudoSession(join(home.dir, 'iolog', 'purge', 'sess'), Buffer.from('inside\r\n'));
    writeSudoSession(join(outside, 'purge', 'sess'), Buffer.from(MARK));
    const before = snapshot(outside);
    const check = await checkSession(roots, 'purge/sess');
    expect(check).toMatchObject({ ok: true, kind: 'dir' });
    if (!check.ok) return;
    // The attacker's move between the check and the removal.
    const box = join(home.dir, 'iolog', 'purge');
    renameSync(box, `${box}.real`);
    symlinkSync(join(outside, 'purge'), box);
    try {
      await expect(measureTree(check.remove)).rejects.toMatchObject({ code: 1011 });
      await expect(removeTree(check.remove)).rejects.toMatchObject({ code: 1011 });
      expect(snapshot(outside)).toEqual(before);
    } finally {
      unlinkSync(box);
      renameSync(`${box}.real`, box);
    }
    // Put back, the same removal goes through.
    expect(await removeTree(check.remove)).toMatchObject({ files: 3, directories: 1 });
    expect(readdirSync(box)).toEqual([]);
  });
});
