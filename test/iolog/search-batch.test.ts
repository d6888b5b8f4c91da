// The search's speed paths give the answers of the plain ones: a matcher reused across
// sessions and patterns (one vm context per pattern and thread), and completed lines tested in
// batches across timing records instead of after each record.
import { atSeconds } from '../../src/iolog/moment.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSessions } from '../../src/iolog/generate-sessions.js';
import { openSessionOfKind } from '../../src/iolog/locate.js';
import { BudgetedMatcher, cachedMatcher } from '../../src/iolog/regex-budget.js';
import { searchSession, type SearchMatch, type SearchQuery } from '../../src/iolog/search.js';
import { TypedInput } from '../../src/replay/text/typed-input/index.js';
import { textExtractorFactory } from '../../src/iolog/text-factory.js';
import { stripperFactory, type TextExtractor, type TextExtractorFactory } from '../../src/iolog/text-factory.js';
import type { StreamName } from '../../src/iolog/timing.js';
import { sessionsMatching } from '../../src/iolog/walk.js';
import { removeDir, SAMPLES, tempDir } from './helpers.js';

/** The search as it was: every record's completed lines tested at once, with a fresh RegExp. */
async function lineByLine(path: string, kind: 'sudo' | 'asciicast', q: SearchQuery, make: TextExtractorFactory, detail: boolean, maxLines = 100): Promise<{ matched: boolean; matches: SearchMatch[] }> {
  const session = openSessionOfKind(kind, path);
  const re = new RegExp(q.regex);
  const info = await session.info();
  const xs = new Map<StreamName, TextExtractor>();
  const matches: SearchMatch[] = [];
  let matched = false;
  const continued = new Map<StreamName, string>();
  const check = (stream: StreamName, lines: Array<{ text: string; timeMs: number; endMs?: number; shown?: string }>): boolean => {
    let hit = false;
    for (const l of lines) {
      // A typed line is found as typed, as the terminal showed it, or joined to the line it
      // continues after a backslash (one match).
      const run = l.shown ?? l.text;
      const before = continued.get(stream);
      const joined = before !== undefined ? before + run : null;
      if (stream === 'ttyin' || stream === 'stdin') {
        if (/(^|[^\\])(\\\\)*\\$/.test(joined ?? run)) continued.set(stream, (joined ?? run).slice(0, -1));
        else continued.delete(stream);
      }
      const text = [l.text, l.shown, joined].find((x) => x !== undefined && x !== null && re.test(x));
      if (text === undefined || text === null) continue;
      hit = matched = true;
      if (!detail || matches.length >= maxLines) return true;
      matches.push({ stream, time: Math.floor(l.timeMs), at: atSeconds(l.endMs ?? l.timeMs), line: text.slice(0, 1024) });
    }
    return hit && matches.length >= maxLines;
  };
  let done = false;
  // Input streams are typed lines (the line editor); ttyin's echo is judged from ttyout.
  const typed = (s: StreamName): TypedInput => {
    let x = xs.get(s);
    if (!x) {
      const t = new TypedInput({ hidden: 'drop', editing: s === 'ttyin' });
      if (s === 'ttyin') t.watchOutput();
      xs.set(s, (x = t));
    }
    return x as TypedInput;
  };
  for await (const ev of session.events()) {
    if (ev.kind === 'winch') for (const x of xs.values()) x.resize(ev.cols, ev.rows);
    if (ev.kind !== 'data') continue;
    const t = ev.sec * 1000 + ev.nsec / 1e6;
    if (ev.stream === 'ttyout' && q.streams.includes('ttyin')) {
      typed('ttyin').observeOutput(ev.bytes, t);
      if (check('ttyin', typed('ttyin').takeLines())) {
        done = true;
        break;
      }
    }
    if (!q.streams.includes(ev.stream)) continue;
    let x: TextExtractor;
    if (ev.stream === 'ttyin' || ev.stream === 'stdin') {
      x = typed(ev.stream);
      (x as TypedInput).writeAt(ev.bytes, t, ev.pos);
    } else {
      x = xs.get(ev.stream) ?? make({ cols: info.cols, rows: info.rows, stream: ev.stream });
      xs.set(ev.stream, x);
      x.write(ev.bytes, t, ev.first);
    }
    if (check(ev.stream, x.takeLines())) {
      done = true;
      break;
    }
  }
  if (!done) for (const [s, x] of xs) if (check(s, x.end())) break;
  matches.sort((a, b) => a.time - b.time);
  return { matched, matches };
}

let gen: string;
const sessions: Array<{ kind: 'sudo' | 'asciicast'; path: string }> = [];
beforeAll(async () => {
  gen = tempDir();
  generateSessions({ count: 24, seed: 5, out: gen });
  for await (const s of sessionsMatching([gen, SAMPLES], '**')) sessions.push({ kind: s.kind, path: s.path });
});
afterAll(() => removeDir(gen));

describe('matcher cache', () => {
  it('one matcher per pattern and thread, the least recently used one dropped past 16', () => {
    const a = cachedMatcher('cache-a', 'IOLOG_BAD_QUERY');
    expect(cachedMatcher('cache-a', 'IOLOG_BAD_QUERY')).toBe(a);
    expect(cachedMatcher('cache-b', 'IOLOG_BAD_QUERY')).not.toBe(a);
    for (let i = 0; i < 15; i++) cachedMatcher(`cache-fill-${i}`, 'IOLOG_BAD_QUERY');
    expect(cachedMatcher('cache-b', 'IOLOG_BAD_QUERY')).not.toBe(a); // b was older than a: dropped, made again
    expect(cachedMatcher('cache-a', 'IOLOG_BAD_QUERY')).not.toBe(a);
  });

  it('still refuses bad and too long patterns, whatever is cached', () => {
    expect(() => cachedMatcher('(', 'IOLOG_BAD_QUERY')).toThrow(expect.objectContaining({ code: 1404 }));
    const long = 'x'.repeat(300);
    cachedMatcher(long, 'IOLOG_BAD_QUERY');
    expect(() => cachedMatcher(long, 'IOLOG_BAD_FILTER', 256)).toThrow(expect.objectContaining({ errorName: 'IOLOG_BAD_FILTER' }));
  });

  it('two patterns in turn on one thread give the answers of fresh matchers, batch after batch', () => {
    const lines = ['alpha beta', 'gamma', 'beta', '', 'ALPHA', 'x'.repeat(5000) + 'beta', 'alphabet'];
    const fresh = (p: string, first = false) => new BudgetedMatcher(new RegExp(p)).test(lines, first);
    for (let round = 0; round < 3; round++) {
      for (const p of ['^alpha', 'beta$', '^alpha']) {
        expect(cachedMatcher(p, 'IOLOG_BAD_QUERY').test(lines)).toEqual(fresh(p));
        expect(cachedMatcher(p, 'IOLOG_BAD_QUERY').test(lines, true)).toEqual(fresh(p, true));
        expect(cachedMatcher(p, 'IOLOG_BAD_QUERY').test([])).toEqual([]);
      }
    }
    // More lines than one budgeted batch: indexes run on across batches.
    const many = Array.from({ length: 1300 }, (_, i) => (i % 97 === 0 ? `hit ${i}` : `miss ${i}`));
    expect(cachedMatcher('^hit', 'IOLOG_BAD_QUERY').test(many)).toEqual(many.flatMap((l, i) => (l.startsWith('hit') ? [i] : [])));
    expect(cachedMatcher('^hit 9[0-9]{2}', 'IOLOG_BAD_QUERY').test(many, true)).toEqual([970]);
  });

  it('a cached matcher still times out on a catastrophic line, and serves the next call', () => {
    const m = cachedMatcher('^(a+)+$', 'IOLOG_BAD_QUERY');
    expect(() => m.test(['ok', 'a'.repeat(40) + '!'])).toThrow(expect.objectContaining({ code: 1405 }));
    expect(cachedMatcher('^(a+)+$', 'IOLOG_BAD_QUERY').test(['b', 'aaa', 'aa!'])).toEqual([1]);
  });
});

describe('search in batches', () => {
  const queries: Array<[SearchQuery, number]> = [
    [{ streams: ['ttyout', 'stdout', 'stderr'], regex: '[0-9]' }, 100],
    [{ streams: ['ttyout', 'stdout', 'stderr'], regex: 'e' }, 3],
    [{ streams: ['ttyin', 'stdin'], regex: '^[a-z]+' }, 100],
    [{ streams: ['stdin', 'stdout', 'stderr', 'ttyin', 'ttyout'], regex: '\\$ |#' }, 7],
    [{ streams: ['ttyout'], regex: 'no such text anywhere' }, 100],
  ];

  it('detail and first-match answers equal a line-by-line search (screen model and stripper)', async () => {
    expect(sessions.length).toBeGreaterThan(24);
    const screen = await textExtractorFactory();
    let hits = 0;
    for (const make of [screen, stripperFactory]) {
      for (const s of sessions) {
        // Two different patterns in a row on the same thread, twice: the cache changes nothing.
        for (const [q, maxLines] of [...queries, ...queries]) {
          const want = await lineByLine(s.path, s.kind, q, make, true, maxLines);
          const got = await searchSession(openSessionOfKind(s.kind, s.path), q, { detail: true, maxLines, extractor: make });
          expect({ path: s.path, q: q.regex, matched: got.matched, matches: got.matches }).toEqual({ path: s.path, q: q.regex, ...want });
          const first = await searchSession(openSessionOfKind(s.kind, s.path), q, { detail: false, extractor: make });
          expect(first.matched).toBe(want.matched);
          expect(first.matches).toEqual([]);
          if (want.matched) hits++;
        }
      }
    }
    expect(hits).toBeGreaterThan(50);
  }, 120_000);

  it('a session with more lines than a batch reports its first maxLines matches in time order', async () => {
    // 1500 lines over 3000 records (each line in two pieces, one ms apart), stdout and ttyout interleaved.
    const dir = join(gen, 'many-lines');
    mkdirSync(dir);
    writeFileSync(join(dir, 'log'), '1795315409:root:nobody::/dev/pts/0:24:80\n/tmp\n/bin/sh\n');
    let timing = '';
    const files: Record<string, string> = { stdout: '', ttyout: '' };
    for (let i = 0; i < 1500; i++) {
      const stream = i % 3 === 0 ? 'stdout' : 'ttyout';
      for (const piece of [`line ${i} `, i % 5 === 0 ? 'five\r\n' : 'other\r\n']) {
        files[stream] += piece;
        timing += `${stream === 'stdout' ? 1 : 4} 0.001 ${piece.length}\n`;
      }
    }
    writeFileSync(join(dir, 'timing'), timing);
    for (const [f, c] of Object.entries(files)) writeFileSync(join(dir, f), c);
    const q: SearchQuery = { streams: ['ttyout', 'stdout'], regex: 'five$' };
    for (const make of [stripperFactory, await textExtractorFactory()]) {
      for (const maxLines of [1, 20, 299, 300, 600]) {
        const want = await lineByLine(dir, 'sudo', q, make, true, maxLines);
        expect(want.matches).toHaveLength(Math.min(maxLines, 300));
        const got = await searchSession(openSessionOfKind('sudo', dir), q, { detail: true, maxLines, extractor: make });
        expect(got.matches).toEqual(want.matches);
        expect(got.matches.map((m) => m.time)).toEqual(got.matches.map((m) => m.time).sort((a, b) => a - b));
      }
      expect((await searchSession(openSessionOfKind('sudo', dir), { ...q, regex: '^line 1499 other$' }, { detail: false, extractor: make })).matched).toBe(true);
    }
  });
});

describe('literal patterns', () => {
  it('a pattern without metacharacters answers as the regex does (substring search, no vm)', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-z0-9 :/-]{1,6}$/),
        fc.array(fc.stringMatching(/^[a-z0-9 :/.-]{0,40}$/), { maxLength: 30 }),
        fc.boolean(),
        (pattern, lines, firstOnly) => {
          const re = new RegExp(pattern);
          const reference: number[] = [];
          for (let k = 0; k < lines.length; k++) {
            if (re.test(lines[k]!)) {
              reference.push(k);
              if (firstOnly) break;
            }
          }
          expect(new BudgetedMatcher(re).test(lines, firstOnly)).toEqual(reference);
        },
      ),
      { seed: 1122, numRuns: 300 },
    );
  });

  it('a pattern with any metacharacter still runs budgeted: a catastrophic one times out', () => {
    const m = new BudgetedMatcher(new RegExp('^(a+)+$'), 200);
    expect(() => m.test([`${'a'.repeat(40)}!`])).toThrow(expect.objectContaining({ code: 1405 }));
    // Case-insensitive is not a literal search either.
    expect(new BudgetedMatcher(/served/i).test(['SERVED in 1 ms', 'x'])).toEqual([0]);
  });
});
