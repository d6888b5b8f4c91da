// Keyword search inside sessions: `query` = KEYWORD:REGEX, KEYWORD a stream name, `input`
// (ttyin + stdin), `output` (ttyout + stdout + stderr) or `any`. Each stream's bytes become
// text lines through a TextExtractor (control sequences removed, what the screen showed); the
// regex is tested against one line at a time, so it can never match across lines. One
// session is searched per worker task; the fan-out over many sessions is in service.ts.
import { evioError } from '../errors.js';
import { DETAIL_LINE_CHARS, DETAIL_LINES_PER_SESSION } from './limits.js';
import { BudgetedMatcher, compileUserRegex } from './regex-budget.js';
import { checkAborted, offsetMs, type IologSession } from './session.js';
import { stripperFactory, type TextExtractor, type TextExtractorFactory, type TextLine } from './text.js';
import { STREAM_NAMES, type StreamName } from './timing.js';

export interface SearchQuery {
  streams: StreamName[];
  regex: string;
}

const KEYWORDS: Record<string, StreamName[]> = {
  stdin: ['stdin'],
  stdout: ['stdout'],
  stderr: ['stderr'],
  ttyin: ['ttyin'],
  ttyout: ['ttyout'],
  input: ['ttyin', 'stdin'],
  output: ['ttyout', 'stdout', 'stderr'],
  any: [...STREAM_NAMES],
};

/** Parses and validates `keyword:regex` (the regex is compiled once here to report errors early). */
export function parseSearchQuery(query: string): SearchQuery {
  const colon = query.indexOf(':');
  if (colon <= 0) throw evioError('IOLOG_BAD_QUERY', `query "${query.slice(0, 100)}" is not KEYWORD:REGEX (keywords: ${Object.keys(KEYWORDS).join(', ')})`);
  const keyword = query.slice(0, colon).trim().toLowerCase();
  const streams = KEYWORDS[keyword];
  if (!streams) throw evioError('IOLOG_BAD_QUERY', `unknown search keyword "${keyword.slice(0, 40)}" (use ${Object.keys(KEYWORDS).join(', ')})`);
  const regex = query.slice(colon + 1);
  compileUserRegex(regex, 'IOLOG_BAD_QUERY');
  return { streams, regex };
}

export interface SearchMatch {
  stream: StreamName;
  /** Milliseconds since the session start at which the line began. */
  time: number;
  line: string;
}

export interface SessionSearchResult {
  path: string;
  matched: boolean;
  matches: SearchMatch[];
  warnings: string[];
}

export interface SessionSearchOptions {
  /** Collect matching lines (else stop at the first match). */
  detail: boolean;
  maxLines?: number;
  extractor?: TextExtractorFactory;
  signal?: AbortSignal;
}

/** Searches one session. Throws IOLOG_REGEX_TIMEOUT when the regex exceeds its budget. */
export async function searchSession(session: IologSession, q: SearchQuery, opts: SessionSearchOptions): Promise<SessionSearchResult> {
  const maxLines = opts.maxLines ?? DETAIL_LINES_PER_SESSION;
  const matcher = new BudgetedMatcher(compileUserRegex(q.regex, 'IOLOG_BAD_QUERY'));
  const info = await session.info();
  const make = opts.extractor ?? stripperFactory;
  const extractors = new Map<StreamName, TextExtractor>();
  const wanted = new Set(q.streams);
  const matches: SearchMatch[] = [];
  let matched = false;

  const check = (stream: StreamName, lines: TextLine[]): boolean => {
    if (lines.length === 0) return false;
    const texts = lines.map((l) => l.text);
    const hits = matcher.test(texts, !opts.detail);
    if (hits.length === 0) return false;
    matched = true;
    if (!opts.detail) return true;
    for (const k of hits) {
      if (matches.length >= maxLines) return true;
      const l = lines[k]!;
      matches.push({ stream, time: l.timeMs, line: l.text.length > DETAIL_LINE_CHARS ? l.text.slice(0, DETAIL_LINE_CHARS) : l.text });
    }
    return matches.length >= maxLines;
  };

  let done = false;
  let n = 0;
  const events = session.events({ signal: opts.signal });
  try {
    for await (const ev of events) {
      if ((++n & 255) === 0) checkAborted(opts.signal);
      if (ev.kind === 'winch') {
        for (const x of extractors.values()) x.resize(ev.cols, ev.rows);
        continue;
      }
      if (ev.kind !== 'data' || !wanted.has(ev.stream)) continue;
      let x = extractors.get(ev.stream);
      if (!x) {
        x = make({ cols: info.cols, rows: info.rows });
        extractors.set(ev.stream, x);
      }
      x.write(ev.bytes, offsetMs(ev.sec, ev.nsec));
      if (check(ev.stream, x.takeLines())) {
        done = true;
        break;
      }
    }
  } finally {
    await events.return(undefined);
  }
  if (!done) {
    for (const [stream, x] of extractors) if (check(stream, x.end())) break;
  }
  matches.sort((a, b) => a.time - b.time);
  return { path: session.path, matched, matches, warnings: [...session.warnings] };
}
