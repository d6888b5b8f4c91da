// Keyword search inside sessions: `query` = KEYWORD:REGEX, KEYWORD a stream name, `input`
// (ttyin + stdin), `output` (ttyout + stdout + stderr) or `any`. Each stream's bytes become
// text lines through a TextExtractor (control sequences removed, what the screen showed); the
// regex is tested against one line at a time, so it can never match across lines. One
// session is searched per worker task; the fan-out over many sessions is in service.ts.
// Completed lines are held and tested in batches (a vm entry with a watchdog per batch, not
// per timing record), in the order they completed, so the answer is the same as line by line.
// Input streams (ttyin, stdin) go through the typed-input line editor instead (src/replay/text/typed-input/):
// their lines are the lines a person entered. Lines typed at a no-echo prompt are left out
// unless the caller asks for them; judging echo needs ttyout, which is then read too.
import { atSeconds } from './moment.js';
import { evioError } from '../errors.js';
import { DETAIL_LINE_CHARS, DETAIL_LINES_PER_SESSION, REGEX_BATCH_CHARS, REGEX_BATCH_LINES } from './limits.js';
import { cachedMatcher, compileUserRegex } from './regex-budget.js';
import type { RegexBudget } from './request-budget.js';
import { checkAborted, type IologSession } from './session.js';
import { TypedInput, type TypedLine } from '../replay/text/typed-input/index.js';
import { stripperFactory, type TextExtractor, type TextExtractorFactory, type TextLine } from './text-factory.js';
import { STREAM_NAMES, type StreamName } from './timing.js';

export interface SearchQuery {
  streams: StreamName[];
  regex: string;
  /** '' or 'i' (case-insensitive: the query's REGEX began with `(?i)`). */
  flags?: string;
}

/** The prefix that makes a query case-insensitive (as in PCRE, RE2 and Go). */
const CASE_INSENSITIVE = '(?i)';

/** Streams whose lines are typed lines (the line editor), not screen text. */
const INPUT_STREAMS: ReadonlySet<StreamName> = new Set<StreamName>(['ttyin', 'stdin']);

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
  let regex = query.slice(colon + 1);
  let flags = '';
  if (regex.startsWith(CASE_INSENSITIVE)) {
    regex = regex.slice(CASE_INSENSITIVE.length);
    flags = 'i';
  }
  compileUserRegex(regex, 'IOLOG_BAD_QUERY', undefined, flags);
  return { streams, regex, flags };
}

export interface SearchMatch {
  stream: StreamName;
  /** Milliseconds since the session start at which the line began (rounded down). */
  time: number;
  /**
   * Seconds since the session start (rounded up to the microsecond) at which the line was complete:
   * the screen at this moment (`evio iolog screen --at`) shows it; for a typed line, its Enter.
   */
  at: number;
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
  /** The regex time of the whole request, shared with its other sessions and threads. */
  budget?: RegexBudget;
  /** Search lines typed at a no-echo prompt too (passwords; the searchHiddenInput setting). */
  hiddenInput?: boolean;
}

/** Searches one session. Throws IOLOG_REGEX_TIMEOUT when the regex exceeds a batch's or the request's budget. */
export async function searchSession(session: IologSession, q: SearchQuery, opts: SessionSearchOptions): Promise<SessionSearchResult> {
  const maxLines = opts.maxLines ?? DETAIL_LINES_PER_SESSION;
  const matcher = cachedMatcher(q.regex, 'IOLOG_BAD_QUERY', undefined, q.flags ?? '');
  const info = await session.info();
  const make = opts.extractor ?? stripperFactory;
  const extractors = new Map<StreamName, TextExtractor>();
  const wanted: ReadonlySet<StreamName> = new Set(q.streams);
  // Lines typed at a no-echo prompt are found by their missing echo: ttyin needs ttyout.
  const watchEcho = !opts.hiddenInput && wanted.has('ttyin');
  const read: ReadonlySet<StreamName> = watchEcho ? new Set([...wanted, 'ttyout']) : wanted;
  const extractorFor = (stream: StreamName): TextExtractor => {
    let x = extractors.get(stream);
    if (!x) {
      if (INPUT_STREAMS.has(stream)) {
        const typed = new TypedInput({ cols: info.cols, rows: info.rows, hidden: opts.hiddenInput ? 'keep' : 'drop', lazyOutput: true, editing: stream === 'ttyin' });
        if (stream === 'ttyin' && watchEcho) typed.watchOutput();
        x = typed;
      } else x = make({ cols: info.cols, rows: info.rows, stream });
      extractors.set(stream, x);
    }
    return x;
  };
  const matches: SearchMatch[] = [];
  let matched = false;

  // The held lines: text, start time and stream of each, in completion order. They are tested
  // once they fill a budgeted batch: each test is a vm entry with a watchdog thread, which
  // costs more than the regex on a few hundred lines (and much more on a loaded machine).
  const texts: string[] = [];
  const times: number[] = [];
  const ends: number[] = [];
  const streams: StreamName[] = [];
  /** The line each text is of: a typed line is held as typed, as shown and as continued (one match per line). */
  const lineIds: number[] = [];
  let lineId = 0;
  let chars = 0;
  /** Per input stream: the last typed line as run, when it ended in a backslash (the shell continues it). */
  const continued = new Map<StreamName, string>();
  const push = (stream: StreamName, l: TextLine, text: string): void => {
    texts.push(text);
    times.push(l.timeMs);
    ends.push(l.endMs ?? l.timeMs);
    streams.push(stream);
    lineIds.push(lineId);
    chars += text.length;
  };
  const hold = (stream: StreamName, lines: TextLine[]): void => {
    for (const l of lines) {
      lineId++;
      push(stream, l, l.text);
      if (!INPUT_STREAMS.has(stream)) continue;
      // A typed line is also found as the terminal showed it (what history, completion or
      // vi-mode commands made of the keys: the command run), and a line continued after a
      // backslash as the shell joins it (`echo one \` then `two` runs `echo one two`).
      const shown = (l as TypedLine).shown;
      if (shown !== undefined && shown !== l.text) push(stream, l, shown);
      const run = shown ?? l.text;
      const before = continued.get(stream);
      const joined = before !== undefined ? before + run : run;
      if (before !== undefined) push(stream, l, joined);
      if (/(^|[^\\])(\\\\)*\\$/.test(joined)) continued.set(stream, joined.slice(0, -1));
      else continued.delete(stream);
    }
  };
  const full = (): boolean => texts.length >= REGEX_BATCH_LINES || chars >= REGEX_BATCH_CHARS;

  /** Tests the held lines and drops them; true when this session's search is done. */
  const flush = (): boolean => {
    if (texts.length === 0) return false;
    const hits = matcher.test(texts, !opts.detail, opts.budget);
    let done = false;
    if (hits.length > 0) {
      matched = true;
      done = !opts.detail;
      let last = -1;
      for (const k of hits) {
        if (done || matches.length >= maxLines) break;
        const same = lineIds[k] === last;
        last = lineIds[k]!;
        if (same) continue;
        const line = texts[k]!;
        matches.push({ stream: streams[k]!, time: Math.floor(times[k]!), at: atSeconds(ends[k]!), line: line.length > DETAIL_LINE_CHARS ? line.slice(0, DETAIL_LINE_CHARS) : line });
      }
      done ||= matches.length >= maxLines;
    }
    texts.length = 0;
    times.length = 0;
    ends.length = 0;
    streams.length = 0;
    lineIds.length = 0;
    chars = 0;
    return done;
  };

  let done = false;
  let n = 0;
  const events = session.events({ signal: opts.signal, streams: read });
  try {
    for await (const ev of events) {
      if ((++n & 255) === 0) checkAborted(opts.signal);
      if (ev.kind === 'winch') {
        for (const x of extractors.values()) x.resize(ev.cols, ev.rows);
        continue;
      }
      if (ev.kind !== 'data') continue;
      // Exact milliseconds (a hit's `at` rounds up, so the screen at it includes this write).
      const t = ev.sec * 1000 + ev.nsec / 1e6;
      if (watchEcho && ev.stream === 'ttyout') {
        const typed = extractorFor('ttyin') as TypedInput;
        typed.observeOutput(ev.bytes, t);
        hold('ttyin', typed.takeLines());
        if (!wanted.has('ttyout')) continue;
      }
      if (!wanted.has(ev.stream)) continue;
      const x = extractorFor(ev.stream);
      if (x instanceof TypedInput) x.writeAt(ev.bytes, t, ev.pos);
      else x.write(ev.bytes, t, ev.first);
      hold(ev.stream, x.takeLines());
      if (full() && flush()) {
        done = true;
        break;
      }
    }
  } finally {
    await events.return(undefined);
  }
  if (!done) {
    for (const [stream, x] of extractors) {
      hold(stream, x.end());
      if (full() && flush()) {
        done = true;
        break;
      }
    }
    if (!done) flush();
  }
  matches.sort((a, b) => a.time - b.time);
  return { path: session.path, matched, matches, warnings: [...session.warnings] };
}
