// Done-means of issue 4: on every sample, a full-range chunk reproduces the stream bytes
// exactly — against the decompressed files (independent reference) and against sudoreplay.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine.js';
import { iologChunk } from '../../src/app/iolog.js';
import { SudoSession } from '../../src/iolog/sudo-session.js';
import { blobBytes, makeEngine, referenceStream, SAMPLES, sudoSessionDirs } from './helpers.js';

const ROOTS = [join(SAMPLES, 'sudo-io'), join(SAMPLES, 'logsrvd-io')];
const sessions = ROOTS.flatMap((r) => sudoSessionDirs(r).map((d) => ({ root: r, dir: d })));
const hasSudoreplay = existsSync('/usr/bin/sudoreplay');

let engine: Engine;
beforeAll(() => {
  engine = makeEngine([SAMPLES]);
});
afterAll(async () => {
  await engine.close();
});

describe('samples', () => {
  it('are all found (13 seq sessions, 2 XXXXXX sessions, 2 logsrvd sessions)', () => {
    expect(sessions.length).toBe(17);
  });

  for (const { root, dir } of sessions) {
    const id = relative(root, dir);
    describe(`${relative(SAMPLES, dir)}`, () => {
      it('full-range chunk blobs = the stream files in timing order (decompressed reference)', async () => {
        const c = await iologChunk(engine, { file: dir, start: '0', len: '1048576' });
        const ref = referenceStream(dir);
        expect(c.bytes).toBe(ref.length);
        expect(c.len).toBe(ref.length);
        expect(blobBytes(c.items as Array<Record<string, unknown>>).equals(ref)).toBe(true);
        expect(c.warnings).toEqual([]);
        if (ref.length > 0) expect(c.items[0]).toHaveProperty('time');
      });

      it('the session reader yields the same bytes in pieces, in order', async () => {
        const parts: Buffer[] = [];
        let last = -1;
        for await (const ev of new SudoSession(dir).events()) {
          if (ev.kind !== 'data') continue;
          expect(ev.pos).toBeGreaterThan(last);
          last = ev.pos;
          parts.push(Buffer.from(ev.bytes));
        }
        expect(Buffer.concat(parts).equals(referenceStream(dir))).toBe(true);
      });

      it.runIf(hasSudoreplay)('matches sudoreplay -n (all five streams, and the default filter)', async () => {
        const vars = JSON.parse(readFileSync(join(dir, 'log.json'), 'utf8')) as { command: string; runargv: string[] };
        const header = Buffer.from(`Replaying sudo session: ${[vars.command, ...vars.runargv.slice(1)].join(' ')}`);
        const c = await iologChunk(engine, { file: dir, len: '1048576' });
        for (const filter of [['stdin', 'stdout', 'stderr', 'ttyin', 'ttyout'], ['stdout', 'stderr', 'ttyout']]) {
          // LINES/COLUMNS: no "terminal too small" warning in the output; -m 0: no pauses.
          const r = spawnSync('sudoreplay', ['-d', root, '-n', '-m', '0', '-f', filter.join(','), id], { env: { ...process.env, LINES: '500', COLUMNS: '500' } });
          const out = r.stdout;
          expect(out.subarray(0, header.length).equals(header)).toBe(true);
          if (r.status !== 0) {
            // sudoreplay 1.9.13 ends with status 1 on a session whose timing file is empty.
            expect(c.bytes).toBe(0);
            expect(out.subarray(header.length).toString()).toMatch(/^\r?\n$/);
            continue;
          }
          // sudoreplay prints its header, the data, then the header's CR LF (stdio buffering).
          expect(out.subarray(out.length - 2).toString()).toBe('\r\n');
          const data = out.subarray(header.length, out.length - 2);
          expect(blobBytes(c.items as Array<Record<string, unknown>>, filter).equals(data)).toBe(true);
        }
      });
    });
  }

  it('every byte range of every sample concatenates to the full stream (paging, straddling blobs cut)', async () => {
    for (const { dir } of sessions) {
      const ref = referenceStream(dir);
      for (const len of [1, 7, 100]) {
        const parts: Buffer[] = [];
        let start = 0;
        for (;;) {
          const c = await iologChunk(engine, { file: dir, start: String(start), len: String(len) });
          const b = blobBytes(c.items as Array<Record<string, unknown>>);
          expect(b.length).toBe(c.len);
          parts.push(b);
          start += c.len;
          if (c.len === 0 || start >= c.bytes) break;
        }
        expect(Buffer.concat(parts).equals(ref)).toBe(true);
      }
    }
  }, 120_000);

  it('window changes and time items: 00/00/04 (resize 80x24 -> 100x30 during stty size)', async () => {
    const c = await iologChunk(engine, { file: join(SAMPLES, 'sudo-io/00/00/04') });
    const ns0 = (JSON.parse(readFileSync(join(SAMPLES, 'sudo-io/00/00/04/log.json'), 'utf8')) as { timestamp: { nanoseconds: number } }).timestamp.nanoseconds;
    // delays 0.004417947, 0.995087254, 1.007170751 from the timing file, summed as integers
    const at = (ns: number) => 1795315468 * 1000 + Math.floor((ns0 + ns) / 1e6);
    expect(c.items).toEqual([
      { time: at(4417947) },
      { blob: Buffer.from('24 80\r\n').toString('base64'), blen: 7, cmd: 'ttyout' },
      { time: at(4417947 + 995087254) },
      { cols: 100, rows: 30, cmd: 'CMD_WINCH' },
      { time: at(4417947 + 995087254 + 1007170751) },
      { blob: Buffer.from('30 100\r\n').toString('base64'), blen: 8, cmd: 'ttyout' },
    ]);
  });

  it('stdin, stdout and stderr of a tty-less session keep their cmd names (00/00/03)', async () => {
    const c = await iologChunk(engine, { file: join(SAMPLES, 'sudo-io/00/00/03') });
    const blobs = c.items.filter((i) => 'blob' in i) as Array<{ blob: string; cmd: string }>;
    expect(blobs.map((b) => [b.cmd, Buffer.from(b.blob, 'base64').toString()])).toEqual([
      ['stdin', 'hello-stdin\n'],
      ['stdout', 'hello-stdin\n'],
      ['stderr', 'to-stderr\n'],
    ]);
  });
});
