// Streams that went to a pipe, not a tty (stdout, stderr with bare LF), read as their lines:
// no staircase of leading blanks in the search text. The screen of a session that had a tty
// shows what the tty displayed (ttyout only); without a tty it shows the pipes, LF as a new line.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { openSessionOfKind } from '../../src/iolog/locate.js';
import { sessionScreen } from '../../src/iolog/screen.js';
import { searchSession } from '../../src/iolog/search.js';
import { textExtractorFactory } from '../../src/iolog/text-factory.js';

const FIXTURES = join(import.meta.dirname, '../../fixtures/iolog');
const STAIRCASE = 'screen-casts/pipe-staircase';
const MIXED = 'screen-corpus/00/00/07'; // sudo sh -c 'ls -la /usr; echo to-stderr >&2; ...' | cat, in tmux
const NO_TTY = 'screen-corpus/00/00/08'; // setsid sudo ... </dev/null >file 2>&1: no tty at all

function streamLines(dir: string, stream: string): string[] {
  let raw = readFileSync(join(FIXTURES, dir, stream));
  if (raw[0] === 0x1f && raw[1] === 0x8b) raw = gunzipSync(raw);
  return raw.toString('utf8').split('\n').filter((l) => l !== '').map((l) => expandTabs(l).replace(/ +$/, ''));
}

/** A tab moves to the next multiple of 8 (the empty cells read as blanks). */
function expandTabs(l: string): string {
  let out = '';
  for (const ch of l) out += ch === '\t' ? ' '.repeat(8 - (out.length % 8)) : ch;
  return out;
}

async function searchLines(dir: string, stream: 'stdout' | 'stderr'): Promise<string[]> {
  const r = await searchSession(openSessionOfKind('sudo', join(FIXTURES, dir)), { streams: [stream], regex: '^' }, { detail: true, maxLines: 1e6, extractor: await textExtractorFactory() });
  return r.matches.map((m) => m.line);
}

describe('pipe streams in search', () => {
  it('a hand-written session: every stdout line as written, none indented', async () => {
    const lines = await searchLines(STAIRCASE, 'stdout');
    expect(lines).toEqual(streamLines(STAIRCASE, 'stdout'));
    expect(lines).toContain('entry-30');
  });

  it('a recorded session piping stdout from a tty (ls -la | cat)', async () => {
    const lines = await searchLines(MIXED, 'stdout');
    expect(lines).toEqual(streamLines(MIXED, 'stdout'));
    expect(lines.some((l) => /^d[rwx-]{9} .* bin -> usr\/bin$|^drwxr-xr-x +\d+ root root +\d+ .* share$/.test(l))).toBe(true);
    expect(lines.every((l) => !l.startsWith(' '))).toBe(true);
  });

  it('a recorded session without a tty: stdout and stderr', async () => {
    expect(await searchLines(NO_TTY, 'stdout')).toEqual(streamLines(NO_TTY, 'stdout'));
    expect(await searchLines(NO_TTY, 'stderr')).toEqual(['an error line']);
  });
});

describe('the screen of a session with pipes', () => {
  it('with a tty: what the tty displayed (ttyout only)', async () => {
    const s = await sessionScreen([FIXTURES], { file: STAIRCASE, atMs: Infinity });
    expect(s.lines).toEqual(['to-stderr on the tty']);
    const m = await sessionScreen([FIXTURES], { file: MIXED, atMs: Infinity });
    expect(m.lines).toEqual(['to-stderr']);
  });

  it('without a tty: the pipes, each LF a new line', async () => {
    const s = await sessionScreen([FIXTURES], { file: NO_TTY, atMs: Infinity });
    const out = streamLines(NO_TTY, 'stdout');
    // In timing order: stdout, then the error line on stderr, then the last stdout line.
    const all = [...out.slice(0, -1), 'an error line', out.at(-1)!];
    expect(s.lines.length).toBeGreaterThan(10);
    expect(s.lines).toEqual(all.slice(all.length - s.lines.length));
  });
});
