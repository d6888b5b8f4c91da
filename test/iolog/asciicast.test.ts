import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AsciicastSession } from '../../src/iolog/asciicast-session.js';
import { buildChunk } from '../../src/iolog/chunk.js';
import { iologScreen, iologSeekIndex } from '../../src/app/iolog.js';
import { playStart } from '../../src/app/iolog-play.js';
import { blobBytes, makeEngine, removeDir, SAMPLES, tempDir } from './helpers.js';

let dir: string;
beforeAll(() => {
  dir = tempDir();
});
afterAll(() => removeDir(dir));

async function events(file: string) {
  const s = new AsciicastSession(file);
  const out = [];
  for await (const ev of s.events()) out.push(ev);
  return { s, out };
}

describe('asciicast', () => {
  it('v2 sample: data bytes are the UTF-8 of the o/i strings, in order, with absolute times', async () => {
    const lines = readFileSync(join(SAMPLES, 'demo.cast'), 'utf8').trim().split('\n').slice(1).map((l) => JSON.parse(l) as [number, string, string]);
    const expected = Buffer.concat(lines.map((l) => Buffer.from(l[2], 'utf8')));
    const c = await buildChunk(new AsciicastSession(join(SAMPLES, 'demo.cast')), 0, 1 << 20);
    expect(c.bytes).toBe(expected.length);
    expect(blobBytes(c.items as Array<Record<string, unknown>>).equals(expected)).toBe(true);
    expect(blobBytes(c.items as Array<Record<string, unknown>>, ['ttyin']).toString()).toBe("printf 'h\\xc3\\xa9llo\\tx\\n'\rexit 3\r");
    expect(c.items[0]).toEqual({ time: 1795315589 * 1000 + 5 });
    const s = new AsciicastSession(join(SAMPLES, 'demo.cast'));
    expect(await s.variables()).toEqual({ version: 2, width: 80, height: 24, timestamp: 1795315589, env: { SHELL: '/bin/bash', TERM: 'tmux-256color' }, title: 'Demo' });
    expect((await s.info()).term).toBe('tmux-256color');
  });

  it('v3: intervals summed, # comments and empty lines skipped, r/m/x events', async () => {
    const f = join(dir, 'v3.cast');
    writeFileSync(f, ['{"version": 3, "term": {"cols": 100, "rows": 30, "type": "xterm-256color"}, "timestamp": 1700000000, "command": "bash"}', '# a comment', '[0.250, "o", "ab"]', '', '[0.250, "r", "120x40"]', '[1.5, "m", "mark"]', '[0.001, "o", "\u00e9"]', '[0.1, "x", "3"]', '[0.1, "?", "unknown"]', ''].join('\n'));
    const { s, out } = await events(f);
    expect(out.map((e) => [e.kind, e.sec, e.nsec, e.pos])).toEqual([
      ['data', 0, 250_000_000, 0],
      ['winch', 0, 500_000_000, 2],
      ['marker', 2, 0, 2],
      ['data', 2, 1_000_000, 2],
      ['exit', 2, 101_000_000, 4],
    ]);
    expect(out[1]).toMatchObject({ cols: 120, rows: 40 });
    expect(await s.info()).toMatchObject({ cols: 100, rows: 30, term: 'xterm-256color', startSec: 1700000000, runcmd: 'bash' });
    expect((await s.scan()).bytes).toBe(4);
  });

  it('v1: one object with stdout frames of relative delays', async () => {
    const f = join(dir, 'v1.cast');
    writeFileSync(f, JSON.stringify({ version: 1, width: 80, height: 24, duration: 1.5, command: '/bin/zsh', title: '', env: { TERM: 'xterm' }, stdout: [[0.5, 'hi'], [1.0, ' there']] }, null, 2));
    const { s, out } = await events(f);
    expect(out.map((e) => [e.kind, e.sec, e.nsec, e.kind === 'data' ? Buffer.from(e.bytes).toString() : ''])).toEqual([
      ['data', 0, 500_000_000, 'hi'],
      ['data', 1, 500_000_000, ' there'],
    ]);
    expect(await s.variables()).toEqual({ version: 1, width: 80, height: 24, duration: 1.5, command: '/bin/zsh', title: '', env: { TERM: 'xterm' } });
  });

  it('skips bad event lines with a warning and refuses a file without a header', async () => {
    const f = join(dir, 'bad.cast');
    writeFileSync(f, '{"version": 2, "width": 80, "height": 24}\n[0.1, "o", "ok"]\nnot json\n[0.2, "o"]\n[0.3, "o", "!"]\n');
    const { s, out } = await events(f);
    expect(out.filter((e) => e.kind === 'data').map((e) => (e.kind === 'data' ? Buffer.from(e.bytes).toString() : ''))).toEqual(['ok', '!']);
    expect(s.warnings[0]).toMatch(/^1402 /);
    const g = join(dir, 'nohdr.cast');
    writeFileSync(g, '[0.1, "o", "x"]\n');
    await expect(new AsciicastSession(g).variables()).rejects.toMatchObject({ code: 1415 });
  });
});

describe('asciicast duration: the time of the last event of any kind', () => {
  // asciinema's own casts often end in output long after their last resize or marker (the
  // player's simple.cast lasts 12 s; evio once said 0): every reported duration must count the
  // output, input, resize, marker and exit events alike, whatever the version.
  const casts: Array<[string, string, number]> = [
    // v2, absolute times: a resize at 0.5 s, output up to 12.0 s.
    ['v2-output-last.cast', ['{"version": 2, "width": 80, "height": 24}', '[0.5, "r", "100x30"]', '[1.0, "o", "a"]', '[12.0, "o", "end"]', ''].join('\n'), 12],
    // v2 with only output events (no resize nor marker at all).
    ['v2-output-only.cast', ['{"version": 2, "width": 80, "height": 24}', '[0.25, "o", "a"]', '[3.75, "o", "b"]', ''].join('\n'), 3.75],
    // v3, intervals: a marker at 2.9 s, then output; the intervals sum to 13.4 s.
    ['v3-marker.cast', ['{"version": 3, "term": {"cols": 80, "rows": 24}}', '[0.4, "o", "x"]', '[2.5, "m", "mark"]', '[10.5, "o", "y"]', ''].join('\n'), 13.4],
    // v3 whose last event is input, and one whose last is the exit.
    ['v3-input-last.cast', ['{"version": 3, "term": {"cols": 80, "rows": 24}}', '[1.0, "r", "90x20"]', '[0.5, "o", "$ "]', '[2.25, "i", "q"]', ''].join('\n'), 3.75],
    ['v3-exit-last.cast', ['{"version": 3, "term": {"cols": 80, "rows": 24}}', '[0.5, "o", "bye"]', '[1.5, "x", "0"]', ''].join('\n'), 2],
    // v1: stdout frames only (delays 0.5 + 1.25).
    ['v1.cast', JSON.stringify({ version: 1, width: 80, height: 24, stdout: [[0.5, 'hi'], [1.25, ' there']] }), 1.75],
  ];
  let root: string;
  beforeAll(() => {
    root = tempDir('evio-cast-duration-');
    for (const [name, text] of casts) writeFileSync(join(root, name), text);
  });
  afterAll(() => removeDir(root));

  it('the scan, the screen at the end (screen without at, the player), play and the seek-index call all give it', async () => {
    const engine = makeEngine([root], { workers: 1 });
    try {
      for (const [name, , seconds] of casts) {
        const scan = await new AsciicastSession(join(root, name)).scan();
        expect([name, scan.sec + scan.nsec / 1e9]).toEqual([name, seconds]);
        const screen = await iologScreen(engine, { file: name });
        expect([name, screen.duration, screen.at]).toEqual([name, seconds, seconds]);
        expect([name, (await playStart(engine, name, undefined)).duration]).toEqual([name, seconds]);
        expect([name, (await iologSeekIndex(engine, { file: name })).duration]).toEqual([name, seconds]);
      }
    } finally {
      await engine.close();
    }
  });
});
