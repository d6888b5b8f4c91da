// A sudo I/O log session directory: `timing` drives the replay, each I/O record takes its
// byte count from its stream file's cursor (missing or 0-byte files are empty streams). A
// timing line that cannot be parsed ends the readable part, as in sudoreplay; the last line
// without `\n` is held back (still being written). A finished session (its timing read-only)
// whose timing ends before its stream files do, or ends inside a line, was cut short: a full
// pass warns IOLOG_TIMING_SHORT (the session is read up to the cut, as sudoreplay would).
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { ERRORS } from '../errors.js';
import { decodedChunks, isGzip, openNoFollow } from './decoded-file.js';
import { MAX_PIECE, TIMING_LINE_MAX } from './limits.js';
import { readSudoVariables, sudoInfo, type SessionInfo, type Variables } from './log-info.js';
import { checkAborted, onceWarner, startPoint, type EventOptions, type IologSession, type ResumePoint, type ScanResult, type SessionEvent } from './session.js';
import { StreamCursor } from './stream-cursor.js';
import { LineSplitter } from './line-splitter.js';
import { STREAM_NAMES, TimingParser, type StreamName, type TimingRecord } from './timing.js';

export class SudoSession implements IologSession {
  readonly format = 'sudo' as const;
  readonly resumable = true;
  readonly warnings: string[] = [];
  private readonly warn = onceWarner(this.warnings);
  private vars: Promise<Variables> | null = null;

  constructor(readonly path: string) {}

  variables(): Promise<Variables> {
    this.vars ??= readSudoVariables(this.path).then((l) => {
      if (l.problem) this.warn('log.json', `${ERRORS.IOLOG_BAD_LOG_JSON.code} ${join(this.path, 'log.json')}: ${l.problem}; the legacy log file was read instead (fewer variables)`);
      return l.variables;
    });
    return this.vars;
  }

  async info(): Promise<SessionInfo> {
    return sudoInfo(await this.variables());
  }

  async complete(): Promise<boolean> {
    try {
      const st = await lstat(join(this.path, 'timing'));
      return (st.mode & 0o222) === 0;
    } catch {
      return false;
    }
  }

  /**
   * The timing records in order; stops at the first invalid line (with a warning). `from`
   * resumes after a record (decoded timing offset and type-6 state); `at` receives, while a
   * record is being handled, the timing offset after it and the type-6 state in force.
   */
  private async *records(signal: AbortSignal | undefined, maxRecords = Infinity, from?: { timing: number; adjust: number }, at?: { end: number; adjust: number; exhausted?: boolean }): AsyncGenerator<TimingRecord> {
    const file = join(this.path, 'timing');
    // A complete session's gzip timing must end with its trailer: one cut short warns, as a short stream file does.
    const complete = await this.complete();
    let gzipDamaged = false;
    const decoded = await decodedChunks(file, (msg) => {
      gzipDamaged = true;
      this.warn('timing-gzip', `${ERRORS.IOLOG_CORRUPT_STREAM.code} ${msg}`);
    }, from?.timing ?? 0, complete);
    if (!decoded) return;
    const parser = new TimingParser();
    if (from) parser.adjust = from.adjust;
    const splitter = new LineSplitter(TIMING_LINE_MAX, 'latin1');
    let lineNo = 0;
    let count = 0;
    let stop = false;
    let offset = from?.timing ?? 0;
    const batch: TimingRecord[] = [];
    const ends: number[] = [];
    const adjusts: number[] = [];
    const it = decoded.chunks[Symbol.asyncIterator]();
    try {
      while (!stop) {
        checkAborted(signal);
        const r = await it.next();
        if (r.done) {
          // (A timing whose gzip data is cut or damaged has said so: 1411 covers the rest.)
          if (complete && !gzipDamaged && splitter.hasPartial) {
            this.warn('timing-cut', `${ERRORS.IOLOG_TIMING_SHORT.code} ${file}: its last line is cut off (no newline) though the session is finished; the session is read up to it`);
          }
          if (at) at.exhausted = complete && !gzipDamaged;
          break;
        }
        batch.length = 0;
        ends.length = 0;
        adjusts.length = 0;
        splitter.push(r.value, (line) => {
          lineNo++;
          const rec = line === null ? null : parser.parse(line);
          if (!rec) {
            const shown = line === null ? '(longer than 2048 bytes)' : JSON.stringify(line.slice(0, 80));
            this.warn('timing', `${ERRORS.IOLOG_BAD_TIMING.code} ${file}: line ${from ? `${lineNo} after offset ${from.timing}` : lineNo} is not a valid timing record: ${shown}; the session is read up to it`);
            stop = true;
            return false;
          }
          if (count >= maxRecords) {
            stop = true;
            return false;
          }
          count++;
          offset += line!.length + 1; // latin1: one character per byte
          batch.push(rec);
          ends.push(offset);
          adjusts.push(parser.adjust);
          return true;
        });
        for (let i = 0; i < batch.length; i++) {
          if (at) {
            at.end = ends[i]!;
            at.adjust = adjusts[i]!;
          }
          yield batch[i]!;
        }
      }
    } finally {
      await it.return?.();
    }
  }

  async scan(signal?: AbortSignal): Promise<ScanResult> {
    const { bytes, records, sec, nsec } = await this.scanFrom(startPoint(), signal);
    return { bytes, records, sec, nsec };
  }

  async scanFrom(from: ResumePoint, signal?: AbortSignal): Promise<ScanResult & { end: ResumePoint }> {
    let bytes = from.pos;
    let records = from.records;
    let sec = from.sec;
    let nsec = from.nsec;
    const used = [...from.streams];
    const at: { end: number; adjust: number; exhausted?: boolean } = { end: from.timing, adjust: from.adjust };
    for await (const rec of this.records(signal, Infinity, from.timing > 0 ? from : undefined, at)) {
      records++;
      if (rec.type === 'io') {
        bytes += rec.nbytes;
        used[STREAM_NAMES.indexOf(rec.stream)]! += rec.nbytes;
      }
      // As events() adds the delays.
      sec += rec.sec;
      nsec += rec.nsec;
      if (nsec >= 1_000_000_000) {
        sec += Math.floor(nsec / 1_000_000_000);
        nsec %= 1_000_000_000;
      }
    }
    if (at.exhausted) await this.checkStreamSizes(used);
    return { bytes, records, sec, nsec, end: { timing: at.end, adjust: at.adjust, sec, nsec, pos: bytes, streams: used, records } };
  }

  /**
   * The cheap form of checkStreamsEnd for a scan (no stream is inflated): a plain stream file
   * larger than the timing's byte count, or a gzip one whose trailer (ISIZE, the decoded length
   * mod 2^32) says so, means the timing of this finished session was cut short.
   */
  private async checkStreamSizes(used: readonly number[]): Promise<void> {
    const left: string[] = [];
    for (let i = 0; i < STREAM_NAMES.length; i++) {
      const fh = await openNoFollow(join(this.path, STREAM_NAMES[i]!));
      if (!fh) continue;
      try {
        const size = (await fh.stat()).size;
        let decoded = size;
        if (await isGzip(fh)) {
          if (size < 18 || used[i]! >= 2 ** 32) continue;
          const tail = Buffer.alloc(4);
          await fh.read(tail, 0, 4, size - 4);
          decoded = tail.readUInt32LE(0);
          // A gzip file cut short (no trailer: a short stream, reported as such when read) ends in
          // deflate data, not ISIZE; deflate cannot expand past about 1032:1, so a larger
          // "decoded length" is not a trailer and proves nothing.
          if (decoded > size * 1032 + 64) continue;
        }
        if (decoded > used[i]!) left.push(STREAM_NAMES[i]!);
      } finally {
        await fh.close();
      }
    }
    if (left.length) this.warnTimingShort(left);
  }

  private warnTimingShort(left: readonly string[]): void {
    this.warn('timing-short', `${ERRORS.IOLOG_TIMING_SHORT.code} ${join(this.path, 'timing')}: the timing file ends before the stream file(s) ${left.join(', ')} do, though the session is finished (the timing was cut short); the session is read up to the end of its timing`);
  }

  /** After the last timing record: a stream file with bytes left means the timing was cut short. */
  private async checkStreamsEnd(cursor: (s: StreamName) => StreamCursor): Promise<void> {
    const left: string[] = [];
    for (const s of STREAM_NAMES) {
      const c = cursor(s);
      if (c.damage) continue;
      let more = false;
      for await (const piece of c.take(1, 1)) more = piece.length > 0;
      if (more) left.push(s);
    }
    if (left.length) this.warnTimingShort(left);
  }

  async *events(opts: EventOptions = {}): AsyncGenerator<SessionEvent> {
    const from = opts.from ?? 0;
    const to = opts.to ?? Infinity;
    const streams = opts.streams;
    const resume = opts.resume;
    const cursors = new Map<StreamName, StreamCursor>();
    const cursor = (s: StreamName) => {
      let c = cursors.get(s);
      if (!c) {
        c = new StreamCursor(join(this.path, s));
        // Resumed: the stream's bytes before the point are skipped (free for a plain file).
        if (resume) c.skip(resume.streams[STREAM_NAMES.indexOf(s)] ?? 0);
        cursors.set(s, c);
      }
      return c;
    };
    let sec = resume?.sec ?? 0;
    let nsec = resume?.nsec ?? 0;
    let pos = resume?.pos ?? 0;
    const track = opts.track;
    if (track) Object.assign(track, resume ? { ...resume, streams: [...resume.streams] } : startPoint());
    // The record being handled: committed to `track` when the next one starts.
    const at: { end: number; adjust: number; exhausted?: boolean } = { end: resume?.timing ?? 0, adjust: resume?.adjust ?? 0 };
    let prev: TimingRecord | null = null;
    let prevEnd = 0;
    let prevAdjust = 0;
    const commit = () => {
      if (!track || !prev) return;
      track.timing = prevEnd;
      track.adjust = prevAdjust;
      track.sec = sec;
      track.nsec = nsec;
      track.pos = pos;
      track.records++;
      if (prev.type === 'io') track.streams[STREAM_NAMES.indexOf(prev.stream)]! += prev.nbytes;
    };
    const maxRecords = opts.maxRecords === undefined ? Infinity : Math.max(0, opts.maxRecords - (resume?.records ?? 0));
    try {
      for await (const rec of this.records(opts.signal, maxRecords, resume, at)) {
        commit();
        let nextSec = sec + rec.sec;
        let nextNsec = nsec + rec.nsec;
        if (nextNsec >= 1_000_000_000) {
          nextSec += Math.floor(nextNsec / 1_000_000_000);
          nextNsec %= 1_000_000_000;
        }
        if (opts.untilMs !== undefined && nextSec * 1000 + nextNsec / 1e6 > opts.untilMs) return;
        prev = rec;
        prevEnd = at.end;
        prevAdjust = at.adjust;
        sec = nextSec;
        nsec = nextNsec;
        if (pos > to) return;
        if (rec.type === 'winch') {
          yield { kind: 'winch', sec, nsec, pos, cols: rec.cols, rows: rec.rows };
          continue;
        }
        if (rec.type === 'signal') {
          yield { kind: 'signal', sec, nsec, pos, signal: rec.signal };
          continue;
        }
        const start = pos;
        const end = pos + rec.nbytes;
        pos = end;
        if (rec.nbytes === 0) continue;
        // An unwanted stream's file is never opened: nothing reads it, so no cursor needs the skip.
        if (streams && !streams.has(rec.stream)) continue;
        const c = cursor(rec.stream);
        const lo = Math.max(start, from);
        const hi = Math.min(end, to);
        if (lo >= hi) {
          c.skip(rec.nbytes);
          continue;
        }
        c.skip(lo - start);
        let p = lo;
        for await (const bytes of c.take(hi - lo, MAX_PIECE)) {
          yield { kind: 'data', sec, nsec, pos: p, stream: rec.stream, bytes, first: p === lo };
          p += bytes.length;
        }
        if (p < hi) {
          const why = c.damage ? `its gzip data is damaged (${c.damage})` : 'it is shorter than the timing file says (premature EOF)';
          this.warn(`short-${rec.stream}`, `${ERRORS.IOLOG_CORRUPT_STREAM.code} ${join(this.path, rec.stream)}: ${why}`);
        }
        c.skip(end - p);
      }
      commit();
      // The whole timing of a finished session was read: its stream files must end there too.
      if (at.exhausted && !streams) await this.checkStreamsEnd(cursor);
    } finally {
      await Promise.all([...cursors.values()].map((c) => c.close()));
    }
  }
}

/** The stream names a sudo session may hold, for callers listing files. */
export const SUDO_FILES: readonly string[] = ['timing', 'log', 'log.json', 'uuid', ...STREAM_NAMES];
