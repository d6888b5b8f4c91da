// Reads sudo's JSON event logs, streaming, in the three framings sudo writes (sudo-notes §3.2):
// - pretty (`log_format=json`, the only one of sudo 1.9.13): the whole file is ONE object whose
//   repeated keys "accept", "reject", "exit", "alert" are the events;
// - compact (`json_compact`, 1.9.16+): one `{"accept":{...}}` object per line;
// - syslog: `... sudo: @cee:{"sudo":{"accept":{...}}}` lines among other syslog lines.
// The framing is detected from the first non-empty line. Events are tied to the lines they came
// from, so a truncated or damaged file reports the byte offset and line where reading stopped.
import { ERRORS, evioError } from '../../errors.js';
import { JSON_MAX_DEPTH } from '../../json-depth.js';
import { MemberWalker, TOO_DEEP, tokenizer } from './json-tokens.js';
import { readLineBatches, type LineSourceOptions, type SourceLine } from './line-source.js';
import type { BadEvent, ReadStop, SourcePosition } from './types.js';

export type JsonFraming = 'pretty' | 'compact' | 'cee';

export interface SudoJsonEvent extends SourcePosition {
  /** The member key: accept, reject, exit, alert (or anything else sudo may add). */
  kind: string;
  body: Record<string, unknown>;
}

export interface SudoJsonReport {
  framing: JsonFraming | null;
  /** Byte offset just after the last whole event. */
  endOffset: number;
  /** Set when data after endOffset was not read as events (truncated or damaged). */
  stop: ReadStop | null;
  /** Compact and syslog framings: lines that were not a valid event (skipped). */
  badLines: number;
  firstBadLine: ReadStop | null;
  /** Syslog framing: lines without `@cee:` (other programs, other sudo messages). */
  otherLines: number;
  /** Members whose value is not an object, or nests deeper than JSON_MAX_DEPTH (skipped). */
  badEvents: number;
  firstBadEvent: BadEvent | null;
  /** Pretty framing: the top-level object was never closed (sudo still writing, or a crash between events). */
  unterminated: boolean;
}

export function emptyJsonReport(): SudoJsonReport {
  return { framing: null, endOffset: 0, stop: null, badLines: 0, firstBadLine: null, otherLines: 0, badEvents: 0, firstBadEvent: null, unterminated: false };
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** One line holding whole values (compact or @cee:): its events, or why it is not valid. */
function lineEvents(text: string, wrapperKey: string | null): { events: Array<[string, unknown]>; error: string | null } {
  const events: Array<[string, unknown]> = [];
  const tok = tokenizer({ jsonStreaming: true });
  const walker = new MemberWalker(wrapperKey);
  try {
    walker.feed(tok(text), (k, v) => events.push([k, v]));
    walker.feed(tok(null), (k, v) => events.push([k, v]));
  } catch (err) {
    return { events: [], error: errorText(err) };
  }
  if (walker.inValue) return { events: [], error: 'the line ends inside a JSON value' };
  return { events, error: null };
}

/**
 * Streams the events of a sudo JSON event log. `report` is filled as reading goes (framing,
 * where it stopped). Throws IMPORT_NOT_RECOGNISED when the file holds no sudo JSON events.
 */
export async function* readSudoJson(path: string, report: SudoJsonReport, opts: LineSourceOptions = {}): AsyncGenerator<SudoJsonEvent> {
  // Read by hand: leaving a for-await loop early would close the line generator.
  const batches = readLineBatches(path, opts)[Symbol.asyncIterator]();
  let first: SourceLine | undefined;
  let rest: SourceLine[] = [];
  outer: for (let r = await batches.next(); !r.done; r = await batches.next()) {
    for (let i = 0; i < r.value.length; i++) {
      const l = r.value[i]!;
      if (l.oversized || l.text.replace(/^\uFEFF/, '').trim() !== '') {
        first = l;
        rest = r.value.slice(i + 1);
        break outer;
      }
      report.endOffset = l.end;
    }
  }
  if (!first) return;
  const firstText = first.text.replace(/^\uFEFF/, '');
  if (!first.oversized && firstText.trimStart().startsWith('{')) {
    const probe = lineEvents(firstText, null);
    if (probe.error === null && probe.events.length > 0) {
      report.framing = 'compact';
      yield* perLine(prepend([first, ...rest], batches), report, null);
    } else {
      report.framing = 'pretty';
      yield* pretty(prepend([{ ...first, text: firstText }, ...rest], batches), report, path);
    }
    return;
  }
  report.framing = 'cee';
  yield* perLine(prepend([first, ...rest], batches), report, 'sudo');
}

async function* prepend(first: SourceLine[], rest: AsyncIterator<SourceLine[]>): AsyncGenerator<SourceLine[]> {
  yield first;
  for (let r = await rest.next(); !r.done; r = await rest.next()) yield r.value;
}

/** A member as an event; null (counted, the first one described) when its value is not one. */
function toEvent(kind: string, value: unknown, pos: SourcePosition, report: SudoJsonReport): SudoJsonEvent | null {
  if (isObject(value)) return { kind, body: value, ...pos };
  report.badEvents++;
  if (report.firstBadEvent === null) {
    // A too-deep value was never built (json-stream.ts): storing it would overflow the stack.
    const why = value === TOO_DEEP ? `nests deeper than ${JSON_MAX_DEPTH} levels` : 'is not a JSON object';
    const code = ERRORS.IMPORT_BAD_EVENT.code;
    report.firstBadEvent = { offset: pos.start, line: pos.line, code, reason: `${code} the "${kind}" event at line ${pos.line} (byte ${pos.start}) ${why}; it was skipped` };
  }
  return null;
}

/** The pretty framing: one streaming tokenizer over the whole file. */
async function* pretty(batches: AsyncIterable<SourceLine[]>, report: SudoJsonReport, path: string): AsyncGenerator<SudoJsonEvent> {
  const tok = tokenizer({ jsonStreaming: true });
  const walker = new MemberWalker(null);
  let eventStart: { start: number; line: number } | null = null;
  let events = 0;
  let last: SourceLine | null = null;
  const ready: SudoJsonEvent[] = [];
  const fail = (err: unknown, l: SourceLine, atEnd: boolean) => {
    const truncated = atEnd || !l.complete;
    if (events === 0 && !truncated) {
      throw evioError('IMPORT_NOT_RECOGNISED', `${path} is not a sudo JSON event log: line ${l.line} (byte ${l.start}): ${errorText(err)}`);
    }
    report.stop = {
      offset: report.endOffset,
      line: eventStart?.line ?? l.line,
      reason: truncated ? 'the file ends inside an event (truncated, or sudo is still writing it)' : `not valid JSON at line ${l.line}: ${errorText(err)}`,
      truncated,
    };
  };
  // Text after the last whole event that is more than structure ({ } , and blanks): the
  // beginning of an event, which a truncated file leaves incomplete.
  let begun = false;
  let cur: SourceLine | null = null;
  const onMember = (kind: string, value: unknown) => {
    const l = cur!;
    const start = eventStart ?? { start: l.start, line: l.line };
    eventStart = null;
    const ev = toEvent(kind, value, { start: start.start, end: l.end, line: start.line }, report);
    if (ev) ready.push(ev);
    events++;
    report.endOffset = l.end;
    begun = false;
  };
  for await (const batch of batches) {
    for (const l of batch) {
      last = cur = l;
      const before = ready.length;
      try {
        if (l.oversized) throw new Error(`line ${l.line} is longer than the reader's bound`);
        walker.feed(tok(`${l.text}\n`), onMember);
      } catch (err) {
        yield* ready.splice(0);
        fail(err, l, false);
        return;
      }
      if (walker.inMember && eventStart === null) eventStart = { start: l.start, line: l.line };
      if (ready.length === before && /[^\s{},]/.test(l.text)) begun = true;
      if (!walker.inValue) report.endOffset = l.end;
    }
    yield* ready.splice(0);
  }
  if (!last) return;
  try {
    walker.feed(tok(null), () => undefined);
  } catch (err) {
    if (walker.inMember || eventStart !== null || begun) return fail(err, last, true);
    report.unterminated = true;
    return;
  }
  if (walker.inMember || begun) fail(new Error('end of file'), last, true);
  else if (walker.inValue) report.unterminated = true;
}

/** Compact and syslog framings: every line stands alone, a bad line is skipped. */
async function* perLine(batches: AsyncIterable<SourceLine[]>, report: SudoJsonReport, wrapperKey: string | null): AsyncGenerator<SudoJsonEvent> {
  for await (const batch of batches) for (const l of batch) {
    let text = l.text;
    if (!l.oversized && wrapperKey !== null) {
      const at = text.indexOf('@cee:');
      if (at < 0) {
        if (!l.complete && text.trim() !== '') {
          // The data ends inside a line that may be a cut @cee: line.
          report.stop = { offset: l.start, line: l.line, reason: 'the last line is incomplete (truncated, or still being written)', truncated: true };
          return;
        }
        if (text.trim() !== '') report.otherLines++;
        if (l.complete) report.endOffset = l.end;
        continue;
      }
      text = text.slice(at + 5);
    }
    if (!l.oversized && text.trim() === '') {
      if (!l.complete && wrapperKey !== null) {
        report.stop = { offset: l.start, line: l.line, reason: 'the last line is incomplete (truncated, or still being written)', truncated: true };
        return;
      }
      if (l.complete) report.endOffset = l.end;
      continue;
    }
    const { events, error } = l.oversized ? { events: [], error: "the line is longer than the reader's bound" } : lineEvents(text, wrapperKey);
    if (error !== null || events.length === 0) {
      if (!l.complete) {
        report.stop = { offset: l.start, line: l.line, reason: 'the last line is incomplete (truncated, or sudo is still writing it)', truncated: true };
        return;
      }
      report.badLines++;
      report.firstBadLine ??= { offset: l.start, line: l.line, reason: error ?? 'no event in the line', truncated: false };
      report.endOffset = l.end;
      continue;
    }
    for (const [kind, value] of events) {
      const ev = toEvent(kind, value, { start: l.start, end: l.end, line: l.line }, report);
      if (ev) yield ev;
    }
    report.endOffset = l.end;
  }
}
