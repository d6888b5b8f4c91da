// Search finds what was on screen: for every session of the recorded corpus
// (fixtures/iolog/screen-corpus, real sudo sessions of full-screen programs, resizes and pipes)
// and the hand-written casts of fixtures/iolog/screen-casts, xterm.js is replayed record by
// record; every distinct non-blank row it showed must be inside a line of the session's search
// text (found by a literal search), and no search line may hold text that was never on one
// screen row (rows are joined only where autowrap really continued them).
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSessionOfKind } from '../../src/iolog/locate.js';
import { searchSession } from '../../src/iolog/search.js';
import { textExtractorFactory } from '../../src/iolog/text-factory.js';
import { readAsciicast, readSudoSession } from '../replay/helpers/sample-sessions.js';
import { coverage, visibleText, type SessionCoverage } from './helpers/visible-rows.js';

const FIXTURES = join(import.meta.dirname, '../../fixtures/iolog');
const CORPUS = join(FIXTURES, 'screen-corpus');
const CASTS = join(FIXTURES, 'screen-casts');

function sudoDirs(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name === 'timing') out.push(dir);
    }
  };
  walk(root);
  return out;
}

async function searchLines(kind: 'sudo' | 'asciicast', path: string, streams: Array<'ttyout' | 'stdout' | 'stderr'>): Promise<string[]> {
  const r = await searchSession(openSessionOfKind(kind, path), { streams, regex: '^' }, { detail: true, maxLines: 1e7, extractor: await textExtractorFactory() });
  return r.matches.map((m) => m.line);
}

async function measure(kind: 'sudo' | 'asciicast', path: string): Promise<SessionCoverage> {
  const s = kind === 'sudo' ? readSudoSession(path) : readAsciicast(path);
  const seen = await visibleText(s.events, s.cols, s.rows);
  return coverage(path.slice(FIXTURES.length + 1), seen, await searchLines(kind, path, ['ttyout']));
}

const corpus = sudoDirs(CORPUS);
const casts = readdirSync(CASTS).filter((n) => n.endsWith('.cast')).sort();

describe('every row that was on screen is found by search, and nothing glued', () => {
  const results: SessionCoverage[] = [];
  for (const dir of corpus) {
    it(`corpus ${dir.slice(CORPUS.length + 1)}`, async () => {
      const c = await measure('sudo', dir);
      results.push(c);
      expect(c.missing).toEqual([]);
      expect(c.foreign).toEqual([]);
    }, 60_000);
  }
  for (const name of casts) {
    it(`cast ${name}`, async () => {
      const c = await measure('asciicast', join(CASTS, name));
      results.push(c);
      expect(c.missing).toEqual([]);
      expect(c.foreign).toEqual([]);
    }, 60_000);
  }
  it('reports the figures', () => {
    const rows = results.reduce((n, c) => n + c.rows, 0);
    const missing = results.reduce((n, c) => n + c.missing.length, 0);
    for (const c of results) console.log(`${c.name}: ${c.moments} moments, ${c.rows} rows, ${c.rows - c.missing.length} found, ${c.lines.length} search lines, ${c.foreign.length} foreign`);
    console.log(`total: ${rows - missing} of ${rows} visible rows found`);
    expect(results.length).toBe(corpus.length + casts.length);
  });
});
