// The sequential scan that answers a query on a flat file: reads the file from the query's byte
// offset through one buffer (line-reader.ts), drops lines by their bytes where it safely can
// (prefilter.ts), parses the rest, applies the filter semantics of filter.ts and the finish merge
// (finish-merge.ts), and yields rows in file order as soon as they are resolved: the rows
// resolved in one buffer make one batch (row-batches.ts).
//
// Two ways through a buffer:
// - jump: when every wanted line must contain the pattern literal (or a hazard byte string),
//   Buffer.indexOf runs over the whole buffer and only the lines around its hits are looked at;
// - walk: line by line (indexOf('\n')), reading the canonical prefix of each line; used when
//   there is no literal, or while accepts wait for their finish records (a finish need not
//   contain the literal).
import { evioError } from '../../errors.js';
import { admittedTypes, matchesRecord } from '../filter.js';
import type { EventQuery, EventRow, ScanStats } from '../types.js';
import { bomLength } from './bom.js';
import { FinishMerge } from './finish-merge.js';
import { LineCounter } from './line-counter.js';
import { LineReader, type ByteSource, type LineReaderOptions } from './line-reader.js';
import { ByteNeedle, byteFrequencies, NeedleCursor } from './needle.js';
import { lacksRecnum, parseJsonText, toStoredEvent } from './parse-line.js';
import { admittedTypeBytes, literalPlan, probeCanonicalPrefix, VALID_ETYPE, type PrefixProbe } from './prefilter.js';

export interface ScanOptions extends LineReaderOptions {
  maxOpenAccepts: number;
  signal?: AbortSignal | undefined;
  /** Counters of this scan (malformed lines), updated as it goes. */
  stats: ScanStats;
  /** Turns the byte-level prefilter off (tests compare both ways). */
  noPrefilter?: boolean;
  /** Held rows beyond which rows are packed (finish-merge.ts; tests use small values). */
  packAfter?: number;
  /**
   * A finish merge shared with other parts of the same answer (the other files of a log family,
   * the blocks an index scan read). The scan then neither ends the merge at its end of input nor
   * yields the rows still waiting: the caller does.
   */
  merge?: FinishMerge;
  /** Where the scan starts (default the query's byteOffset). */
  start?: number;
  /** The offset a row carries, from the position after its line (default that position); `numberedByLine`: the line has no recnum. */
  offsetOf?: (end: number, recnum: number, numberedByLine?: boolean) => number;
  /** Byte frequencies for the needle search, shared between the parts of one answer. */
  freq?: { value: Uint32Array | null };
}

/** Checks a query's byte offset: 0, or a line start within the file (the offset of some record). */
export async function checkByteOffset(source: ByteSource, size: number, offset: number, name: string): Promise<void> {
  if (offset === 0) return;
  if (!Number.isSafeInteger(offset) || offset < 0 || offset > size) {
    throw evioError('QUERY_BAD_OFFSET', `offset=${offset} is past the end of ${name} (${size} bytes)`);
  }
  const b = Buffer.alloc(1);
  const n = await source.read(b, 0, 1, offset - 1);
  if (n !== 1 || b[0] !== 10) {
    throw evioError('QUERY_BAD_OFFSET', `offset=${offset} is not the start of a line in ${name}; resume only from a returned record's offset`);
  }
}

const enum Step {
  /** The buffer's complete lines are consumed: read more. */
  More,
  /** The answer is complete. */
  Done,
  /** A line needs its line number and the count lags behind the buffer: catch up, then resume. */
  NeedLineCount,
}

export async function* scanRows(source: ByteSource, q: EventQuery, opts: ScanOptions): AsyncGenerator<EventRow[]> {
  if (q.order !== 'recnum' || q.direction !== 'asc') {
    throw evioError('QUERY_ORDER_ON_FLATFILE', 'flat files are read in recnum order; order and orderdirection are refused');
  }
  const shared = opts.merge !== undefined;
  const merge = opts.merge ?? new FinishMerge(q, q.skip, q.limit, opts.maxOpenAccepts, opts.packAfter);
  if (merge.done) return;
  const startAt = opts.start ?? q.byteOffset;
  const offsetOf = opts.offsetOf;
  const stats = opts.stats;
  const signal = opts.signal;
  // A scan from the start steps over a byte order mark (bom.ts); a later offset is after a '\n'.
  const reader = new LineReader(source, startAt === 0 ? await bomLength(source) : startAt, opts);
  const counter = new LineCounter(source);
  const types = admittedTypes(q);
  const typeBytes = admittedTypeBytes(q);
  const plan = opts.noPrefilter ? null : literalPlan(q);
  const usePrefix = !opts.noPrefilter;
  const recnumMin = q.recnumMin;
  // `end` (recnumMax) is a bound like every filter, not a place where the scan stops: files evio
  // writes have increasing recnums, but other writers' files need not, and a line above `end`
  // may be followed by lines below it. Stopping there would answer differently from the
  // reference store (memory-store.ts), from the databases and from a delete with the same `end`
  // (rewrite.ts). Lines above it cost a prefix probe, no parse.
  const recnumMax = q.recnumMax;
  /** Cursors of the literal and its hazards: every candidate line holds a hit. */
  let literalCursors: NeedleCursor[] | null = null;
  const probe: PrefixProbe = { recnum: 0, etype: 0, uidHash: 0 };
  /** Rows resolved in the buffer at hand: yielded as one batch once it is handled. */
  let out: EventRow[] = [];
  /** The line at reader.start needs its line number, and the count lags behind the buffer. */
  let needLineCount = false;

  /** Earliest hit of a cursor group at or after `from` (Infinity when none in this buffer). */
  const nextHit = (group: NeedleCursor[], view: Buffer, from: number): number => {
    let h = Infinity;
    for (const c of group) {
      const i = c.at(view, from);
      if (i < h) h = i;
    }
    return h;
  };

  /** Handles the complete lines of the buffer from reader.start; synchronous: no await per line. */
  const processBuffer = (): Step => {
    const buf = reader.buf;
    const ce = reader.complete;
    // Needle searches run to the end of the buffer they are given: bound them at the last
    // complete line, not at the buffer's capacity (stale bytes, up to 7/8 of it).
    const view = literalCursors !== null ? buf.subarray(0, ce) : buf;
    /** The literal group's next hit, cached while the walk has not reached it. */
    let litNext = -1;
    let s = reader.start;
    while (s < ce) {
      const admitting = merge.admitting;
      const waiting = merge.pendingCount > 0;
      if (!admitting && !waiting) {
        merge.drain(out);
        reader.start = s;
        return Step.Done;
      }
      let e: number;
      let hasNeedle: boolean;
      if (literalCursors !== null && !waiting) {
        // Jump to the next line holding the literal or a hazard.
        const h = nextHit(literalCursors, view, s);
        if (h >= ce) {
          s = ce;
          break;
        }
        if (h > s) s = Math.max(s, buf.lastIndexOf(10, h - 1) + 1);
        e = buf.indexOf(10, h);
        hasNeedle = true;
      } else {
        // Walk: a finish line need not hold the literal (and without one, every line may be wanted).
        // (Finish lines could be found by `"etype":"F"` plus hazards — whitespace, \u — but with
        // half the lines finishes, as in generated logs, jumping between them measured slower.)
        e = buf.indexOf(10, s);
        if (admitting && literalCursors !== null && litNext < s) litNext = nextHit(literalCursors, view, s);
        hasNeedle = admitting && (literalCursors === null || litNext < e);
      }

      let wantCandidate = merge.admitting && hasNeedle;
      let wantFinish = merge.pendingCount > 0;
      if (usePrefix && probeCanonicalPrefix(buf, s, e, probe, wantFinish)) {
        if (VALID_ETYPE[probe.etype] !== 1) {
          // Not an event whatever the rest says: malformed, without parsing.
          stats.malformed++;
          s = e + 1;
          continue;
        }
        // `end` bounds the recnum; it does not end the scan (see recnumMax above).
        if (wantCandidate && (typeBytes[probe.etype] !== 1 || (recnumMin !== null && probe.recnum < recnumMin) || (recnumMax !== null && probe.recnum > recnumMax))) {
          wantCandidate = false;
        }
        // A uniqueid the hash cannot stand for (uidHash -1) is parsed.
        if (wantFinish) wantFinish = probe.etype === 70 && (probe.uidHash === -1 || merge.pendingHashes.has(probe.uidHash));
      }
      if (wantCandidate || wantFinish) {
        const text = buf.toString('utf8', s, e);
        const v = parseJsonText(text);
        let lineNumber: number | null = null;
        if (v !== undefined && lacksRecnum(v)) {
          if (counter.pos < reader.base) {
            // Count the bytes before this buffer first (read again), then come back to this line.
            reader.start = s;
            needLineCount = true;
            return Step.NeedLineCount;
          }
          counter.active = true;
          counter.advanceInBuffer(buf, counter.pos - reader.base, s);
          lineNumber = counter.newlines + 1;
        }
        const rec = v === undefined ? null : toStoredEvent(v, lineNumber);
        if (rec === null) {
          stats.malformed++;
        } else {
          if (rec.etype === 'F' && merge.pendingCount > 0) merge.offerFinish(rec);
          if (merge.admitting && hasNeedle && matchesRecord(rec, q, types)) merge.addCandidate(rec, offsetOf ? offsetOf(reader.pos(e + 1), rec.recnum, lineNumber !== null) : reader.pos(e + 1), text);
          merge.drain(out);
        }
        if (merge.done) {
          reader.start = e + 1;
          return Step.Done;
        }
      }
      s = e + 1;
    }
    reader.start = s;
    if (counter.active && counter.pos >= reader.base) counter.advanceInBuffer(buf, counter.pos - reader.base, s);
    return Step.More;
  };

  try {
    for (;;) {
      signal?.throwIfAborted();
      if (!needLineCount) {
        const more = await reader.fill();
        stats.malformed += reader.oversized;
        reader.oversized = 0;
        if (!more) break;
        if (plan !== null) {
          if (literalCursors === null) {
            let freq = opts.freq?.value ?? null;
            if (freq === null) {
              freq = byteFrequencies(reader.buf, reader.start, reader.complete);
              if (opts.freq) opts.freq.value = freq;
            }
            literalCursors = [plan.needle, ...plan.hazards].map((b) => new NeedleCursor(new ByteNeedle(b, freq)));
          } else {
            for (const c of literalCursors) c.reset();
          }
        }
      } else {
        await counter.catchUp(reader.base, signal);
        counter.active = true;
        needLineCount = false;
      }
      const step = processBuffer();
      if (out.length > 0) {
        yield out;
        out = [];
      }
      if (step === Step.Done) return;
    }
    // End of file: a torn last line (no newline) is malformed; waiting accepts have no finish.
    if (reader.tornTail()) stats.malformed++;
    if (shared) return;
    merge.endOfInput();
    merge.drain(out);
    if (out.length > 0) yield out;
  } finally {
    await reader.settle();
  }
}
