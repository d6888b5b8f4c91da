// Regression tests for the search issue's input side and smaller items, each on a small
// hand-written session: typed commands (CR is Enter), hit times `--at` accepts, the (?i)
// flag, a v1 asciicast named by path, a truncated gzip timing of a complete session, and
// an export that keeps the title and exit events.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine.js';
import { iologChunk, iologCommands, iologExport, iologScreen, iologSearch, matchingPaths, SearchAnswer } from '../../src/app/iolog.js';
import { BudgetedMatcher } from '../../src/iolog/regex-budget.js';
import type { SearchMatch } from '../../src/iolog/search.js';
import { makeEngine, removeDir, tempDir } from './helpers.js';

let root: string;
let engine: Engine;

type Rec = [stream: string, data: string, delayMs?: number];

function session(name: string, recs: Rec[], opts: { gz?: boolean; complete?: boolean } = {}): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'log'), '1795315409:bob:root::/dev/pts/0:24:80\n/home/bob\n/bin/bash\n');
  const idx: Record<string, number> = { stdin: 0, stdout: 1, stderr: 2, ttyin: 3, ttyout: 4 };
  const streams: Record<string, Buffer[]> = {};
  let timing = '';
  for (const [s, data, delay] of recs) {
    const buf = Buffer.from(data);
    (streams[s] ??= []).push(buf);
    timing += `${idx[s]} ${((delay ?? 100) / 1000).toFixed(6)} ${buf.length}\n`;
  }
  const enc = (b: Buffer) => (opts.gz ? gzipSync(b) : b);
  writeFileSync(join(dir, 'timing'), enc(Buffer.from(timing)));
  for (const [s, parts] of Object.entries(streams)) writeFileSync(join(dir, s), enc(Buffer.concat(parts)));
  if (opts.complete) chmodSync(join(dir, 'timing'), 0o400);
  return dir;
}

/** A shell session: each command typed key by key (echoed), then its output and a prompt. */
function shell(commands: Array<[string, string]>): Rec[] {
  const recs: Rec[] = [['ttyout', 'bob@web01:~$ ', 50]];
  for (const [cmd, out] of commands) {
    for (const ch of cmd) recs.push(['ttyin', ch, 120], ['ttyout', ch, 1]);
    recs.push(['ttyin', '\r', 150], ['ttyout', '\r\n', 1], ['ttyout', `${out}bob@web01:~$ `, 30]);
  }
  return recs;
}

async function search(file: string, query: string): Promise<{ paths: string[]; detail: Array<SearchMatch & { file: string }>; warnings: string[] }> {
  const run = await iologSearch(engine, { file, query, detail: '1' });
  const answer = new SearchAnswer();
  const paths: string[] = [];
  for await (const p of matchingPaths(run, answer)) paths.push(p);
  return { paths, detail: answer.detail, warnings: answer.warnings };
}

beforeAll(() => {
  root = tempDir('evio-input-');
  // The session: four commands typed, each ended by CR.
  session('typed/01', shell([['ls --color=auto -la', 'total 0\r\n'], ['stty size', '24 80\r\n'], ['ls --color=auto -la', 'total 0\r\n'], ['exit', '']]), { gz: true, complete: true });
  // The same typed as asciicast "i" events with their echo.
  const cast = ['{"version": 2, "width": 80, "height": 24, "title": "typed cast"}', '[0.1, "o", "$ "]'];
  let t = 0.1;
  for (const ch of 'ls --color=auto -la\rstty size\rexit\r') {
    t += 0.1;
    cast.push(`[${t.toFixed(3)}, "i", ${JSON.stringify(ch)}]`, `[${(t + 0.001).toFixed(3)}, "o", ${JSON.stringify(ch === '\r' ? '\r\n$ ' : ch)}]`);
  }
  writeFileSync(join(root, 'typed.cast'), cast.join('\n') + '\n');
  // asciicast v1, named .json as asciinema 1.x wrote it
  writeFileSync(join(root, 'old-v1.json'), JSON.stringify({ version: 1, width: 80, height: 24, title: 'v1', stdout: [[0.5, 'Hello from v1\r\n'], [0.25, '$ ']] }));
  // v3 with a title and an exit event
  writeFileSync(join(root, 'v3.cast'), ['{"version": 3, "term": {"cols": 80, "rows": 24}, "timestamp": 1700000000, "title": "v3 title"}', '[0.5, "o", "done\\r\\n"]', '[0.25, "x", "3"]', ''].join('\n'));
  engine = makeEngine([root]);
});
afterAll(async () => {
  await engine.close();
  removeDir(root);
});

describe('typed input in search', () => {
  it('the issue\'s four commands are four lines; ttyin:stty finds one', async () => {
    const all = await search('typed/01', 'ttyin:.');
    expect(all.detail.map((d) => d.line)).toEqual(['ls --color=auto -la', 'stty size', 'ls --color=auto -la', 'exit']);
    const r = await search('**', 'ttyin:stty');
    expect(r.paths).toEqual([join(root, 'typed/01'), join(root, 'typed.cast')]);
    expect(r.detail.map((d) => d.line)).toEqual(['stty size', 'stty size']);
  });

  it('asciicast "i" events are typed input too', async () => {
    expect((await search('typed.cast', 'input:.')).detail.map((d) => d.line)).toEqual(['ls --color=auto -la', 'stty size', 'exit']);
  });
});

describe('hit times', () => {
  it('time stays ms rounded down; at is seconds rounded up, and screen --at of it shows the hit', async () => {
    const r = await search('typed/01', 'any:stty|24 80');
    const [typed, out] = [r.detail.find((d) => d.stream === 'ttyin')!, r.detail.find((d) => d.stream === 'ttyout')!];
    // the first key of "stty size" came at 50 + 19*121 + 150 + 1 + 30 + 1 + 120 ms
    expect(typed.time).toBe(50 + 19 * 121 + 150 + 1 + 30 + 120);
    expect(typed.at).toBeGreaterThan(typed.time / 1000);
    for (const h of [typed, out]) {
      const rows = (await iologScreen(engine, { file: 'typed/01', at: String(h.at) })).lines;
      expect(rows.some((l) => l.includes(h.line))).toBe(true);
    }
    // the old way (time / 1000) showed the screen before the typed line was complete
    const before = (await iologScreen(engine, { file: 'typed/01', at: String(typed.time / 1000) })).lines;
    expect(before.some((l) => l.includes('stty size'))).toBe(false);
  });

  it('at="1.005" is 1005 ms exactly (no float rounding below it)', async () => {
    const dir = session('exact/01', [['ttyout', 'early\r\n', 1004.9], ['ttyout', 'late\r\n', 0.1]]);
    const hit = (await search(dir, 'ttyout:late')).detail[0]!;
    expect(hit).toMatchObject({ time: 1005, at: 1.005 });
    expect((await iologScreen(engine, { file: dir, at: '1.005' })).lines).toContain('late');
  });

  it('the command timeline gives the Enter\'s time, at and offset', async () => {
    const c = await iologCommands(engine, { file: 'typed/01' });
    expect(c.log.map((e) => e.line)).toEqual(['ls --color=auto -la', 'stty size', 'ls --color=auto -la', 'exit']);
    expect(c.log.map((e) => e.cwd)).toEqual(['~', '~', '~', '~']); // the prompt's, before log.json's
    for (const e of c.log) {
      const chunk = await iologChunk(engine, { file: 'typed/01', start: String(e.offset), len: '1' });
      const blob = chunk.items.find((i) => 'blob' in i) as { blob: string; cmd: string };
      expect([blob.cmd, Buffer.from(blob.blob, 'base64').toString()]).toEqual(['ttyin', '\r']);
    }
    expect(c.log.slice(0, 3).every((e) => e.prompt_at !== undefined && e.prompt_at > e.at)).toBe(true);
  });
});

describe('case-insensitive search', () => {
  it('(?i) before the pattern, literal and regex', async () => {
    expect((await search('old-v1.json', 'ttyout:(?i)HELLO FROM')).paths).toEqual([join(root, 'old-v1.json')]);
    expect((await search('old-v1.json', 'ttyout:(?i)^h.llo')).paths).toEqual([join(root, 'old-v1.json')]);
    expect((await search('old-v1.json', 'ttyout:HELLO FROM')).paths).toEqual([]);
    expect((await search('**', 'input:(?i)STTY')).paths).toEqual([join(root, 'typed/01'), join(root, 'typed.cast')]);
    await expect(search('**', 'ttyout:(?i)(')).rejects.toMatchObject({ code: 1404 });
    await expect(search('**', 'ttyout:(?x)a')).rejects.toMatchObject({ code: 1404 });
  });

  it('the literal fast path answers as the /i regex does, Unicode case folds included', () => {
    const lines = ['Kelvin \u212a', 'k', 'K', 'İstanbul', 'istanbul', 'ſ long s', 'S', 'straße', 'STRASSE', 'Ünïcode', 'ünïcode'];
    for (const lit of ['k', 'K', 'i', 's', 'strasse', 'ss', 'ünïcode']) {
      const re = new RegExp(lit, 'i');
      const fast = new BudgetedMatcher(re).test(lines);
      expect({ lit, fast }).toEqual({ lit, fast: lines.flatMap((l, i) => (re.test(l) ? [i] : [])) });
    }
  });

  it('a hostile pattern with i still runs out of its budget', () => {
    const m = new BudgetedMatcher(/^(a+)+$/i, 200);
    expect(() => m.test(['A'.repeat(40) + '!'])).toThrow(expect.objectContaining({ code: 1405 }));
  });
});

describe('smaller items', () => {
  it('an asciicast v1 file named explicitly is searched, whatever its name', async () => {
    expect((await search('old-v1.json', 'output:v1')).paths).toEqual([join(root, 'old-v1.json')]);
    expect((await search(join(root, 'old-v1.json'), 'output:v1')).paths).toEqual([join(root, 'old-v1.json')]);
  });

  it('a truncated gzip timing warns when the session is complete, not while it is live', async () => {
    const recs: Rec[] = Array.from({ length: 400 }, (_, i): Rec => ['ttyout', `line ${i}\r\n`, 1]);
    const whole = session('trunc/whole', recs, { gz: true, complete: true });
    const cut = session('trunc/cut', recs, { gz: true });
    // stored blocks (level 0): a cut file still inflates to its first half, as a sync-flushed one does
    const gz = gzipSync(Buffer.from(recs.map(([, d]) => `4 0.001000 ${Buffer.byteLength(d)}\n`).join('')), { level: 0 });
    writeFileSync(join(cut, 'timing'), gz.subarray(0, Math.floor(gz.length / 2)));
    expect((await iologChunk(engine, { file: whole })).warnings).toEqual([]);
    expect((await iologChunk(engine, { file: cut })).warnings).toEqual([]); // live: still being written
    chmodSync(join(cut, 'timing'), 0o400);
    const c = await iologChunk(engine, { file: cut });
    expect(c.warnings).toEqual([expect.stringMatching(/^1411 .*timing: gzip data is truncated/)]);
    expect(c.bytes).toBeGreaterThan(0);
    expect((await search(cut, 'ttyout:line 1')).warnings).toEqual([expect.stringMatching(/^1411 .*truncated/)]);
  });

  it('export keeps the title and the exit event', async () => {
    // A v3 cast stays v3 (its header fields have no place in v2), with v3's intervals; v1 becomes v2.
    for (const [file, title, version] of [['v3.cast', 'v3 title', 3], ['old-v1.json', 'v1', 2]] as const) {
      let text = '';
      const sink = new Writable({
        write(chunk, _enc, cb) {
          text += String(chunk);
          cb();
        },
      });
      await iologExport(engine, { file, format: 'asciicast' }, () => sink);
      const [header, ...events] = text.trim().split('\n');
      expect(JSON.parse(header!)).toMatchObject({ version, title });
      if (file === 'v3.cast') expect(events.map((e) => JSON.parse(e) as unknown[])).toEqual([[0.5, 'o', 'done\r\n'], [0.25, 'x', '3']]);
    }
    const c = await iologCommands(engine, { file: 'v3.cast' });
    expect(c.exit).toEqual({ status: 3, source: 'asciicast' });
  });
});
