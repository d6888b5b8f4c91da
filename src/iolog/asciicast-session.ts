// asciicast files (asciinema): v2 (NDJSON, header line then `[time, code, data]` with absolute
// times), v3 (header with a `term` object, interval times, `#` comment lines, `x` exit events)
// and v1 (one JSON object with `stdout: [[delay, data], ...]`, streamed: asciicast-v1.ts).
// Data bytes are the UTF-8 of the event strings: `o` is ttyout, `i` is ttyin; `r` "COLSxROWS"
// is a window change (columns first, the opposite of sudo's timing file).
import { lstat } from 'node:fs/promises';
import { ERRORS, evioError } from '../errors.js';
import { JSON_MAX_DEPTH, jsonTextTooDeep } from '../json-depth.js';
import { NotAsciicastV1, readV1, type V1Item } from './asciicast-v1.js';
import { BuildNeeded, buildV1Cache, cachedFrames, entryAtOrBefore, loadV1Cache, type V1Cache } from './cast-v1-cache.js';
import { decodedChunks } from './decoded-file.js';
import { CAST_LINE_MAX, INFO_MAX_BYTES, MAX_PIECE } from './limits.js';
import { LineSplitter } from './line-splitter.js';
import type { SessionInfo, Variables } from './log-info.js';
import { checkAborted, onceWarner, type EventOptions, type IologSession, type ScanResult, type SessionEvent } from './session.js';
import { parseDelay } from './timing.js';

type CastVersion = 1 | 2 | 3;

interface Header {
  version: CastVersion;
  variables: Variables;
  /** v1: the pass that read the header (it may follow the frames) also counted the frames. */
  scan?: ScanResult;
  /** v1 read through its cache (cast-v1-cache.ts): frames by offset, no parse. */
  cache?: V1Cache;
}

/** A parsed event line: time in integer ns (absolute for v2, interval for v3). */
interface CastEvent {
  ns: number;
  code: string;
  data: string;
}

const TIME_RE = /^\[\s*(\d+(?:\.\d*)?)\s*,/;

/** `[time, "c", "data"]`; the time is read from its text (no float rounding) when it is plain. */
export function parseCastEventLine(line: string): CastEvent | null {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return null;
  }
  if (!Array.isArray(v) || v.length < 3 || typeof v[0] !== 'number' || !(v[0] >= 0) || typeof v[1] !== 'string' || typeof v[2] !== 'string') return null;
  const m = TIME_RE.exec(line);
  const d = m ? parseDelay(m[1]!) : null;
  const ns = d ? d.sec * 1e9 + d.nsec : Math.round(v[0] * 1e9);
  if (!Number.isSafeInteger(ns)) return null;
  return { ns, code: v[1], data: v[2] };
}

const offsetOf = (ns: number): { sec: number; nsec: number } => ({ sec: Math.floor(ns / 1e9), nsec: ns % 1e9 });

function headerVersion(v: Variables): CastVersion | null {
  if (v.version === 2 && typeof v.width === 'number' && typeof v.height === 'number') return 2;
  if (v.version === 3 && v.term && typeof v.term === 'object') return 3;
  if (v.version === 1) return 1;
  return null;
}

export class AsciicastSession implements IologSession {
  readonly format = 'asciicast' as const;
  readonly resumable = false;
  readonly warnings: string[] = [];
  private readonly warn = onceWarner(this.warnings);
  private header: Promise<Header> | null = null;
  private v1Cache: { dir: string; build: boolean } | null = null;

  constructor(readonly path: string) {}

  /**
   * Reads a v1 file through its cache in `dir` (parsed once, then read by offset). Without
   * `build`, a missing or stale cache raises BuildNeeded instead of parsing the file (the
   * interactive lane: the caller builds it in the heavy lane and asks again).
   */
  useV1Cache(dir: string, build: boolean): void {
    this.v1Cache = { dir, build };
  }

  private readonly onGzipError = (msg: string) => this.warn('gzip', `${ERRORS.IOLOG_CORRUPT_STREAM.code} ${msg}`);

  /**
   * Lines of the file (comments and empty lines dropped), the header first, with their line
   * numbers; a line longer than CAST_LINE_MAX comes as null.
   */
  private async *lines(signal?: AbortSignal): AsyncGenerator<[string | null, number]> {
    const decoded = await decodedChunks(this.path, this.onGzipError);
    if (!decoded) throw evioError('NOT_FOUND', `${this.path} does not exist`);
    const splitter = new LineSplitter(CAST_LINE_MAX, 'utf8');
    const batch: Array<[string | null, number]> = [];
    let lineNo = 0;
    for await (const chunk of decoded.chunks) {
      checkAborted(signal);
      batch.length = 0;
      splitter.push(chunk, (line) => {
        lineNo++;
        if (line === null) {
          batch.push([null, lineNo]);
          return true;
        }
        const l = line.endsWith('\r') ? line.slice(0, -1) : line;
        if (l.trim() === '' || l.startsWith('#')) return true;
        batch.push([l, lineNo]);
        return true;
      });
      yield* batch;
    }
  }

  private readHeader(signal?: AbortSignal): Promise<Header> {
    this.header ??= (async () => {
      const it = this.lines(signal);
      const first = await it.next();
      await it.return(undefined);
      const line = first.done ? null : first.value[0];
      let why = 'the first line is not an asciicast v2/v3 header';
      let v: Variables | null = null;
      if (line !== null && line.length <= INFO_MAX_BYTES) {
        // Such a header could not be passed on from a worker nor serialised (json-depth.ts).
        if (jsonTextTooDeep(line)) why = `the first line nests deeper than ${JSON_MAX_DEPTH} levels`;
        else {
          try {
            const parsed: unknown = JSON.parse(line);
            if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) v = parsed as Variables;
          } catch {
            v = null;
          }
        }
      }
      if (v) {
        const version = headerVersion(v);
        if (version === 2 || version === 3) return { version, variables: v };
      }
      // v1: the whole file is one (usually pretty-printed) object.
      try {
        return await (this.v1Cache ? this.cachedV1Header(this.v1Cache, signal) : this.readV1Header(signal));
      } catch (err) {
        if (!(err instanceof NotAsciicastV1)) throw err;
        throw evioError('IOLOG_BAD_ASCIICAST', `${this.path}: ${why}, and the file is not asciicast v1 (${err.message})`);
      }
    })();
    return this.header;
  }

  /** One pass over a v1 file: every member but `stdout`, and the frames counted. */
  private async readV1Header(signal?: AbortSignal): Promise<Header> {
    const variables: Variables = {};
    let bytes = 0;
    let records = 0;
    let ns = 0;
    for await (const batch of readV1(this.path, { members: true, signal, onGzipError: this.onGzipError })) {
      for (const item of batch) {
        if (item.kind === 'frame') {
          records++;
          ns += item.delayNs;
          bytes += Buffer.byteLength(item.data, 'utf8');
        } else if (item.kind === 'member') {
          // As JSON.parse: the last of repeated keys wins, "__proto__" is an own property.
          Object.defineProperty(variables, item.key, { value: item.value, enumerable: true, writable: true, configurable: true });
        } else {
          this.badFrame(item);
        }
      }
    }
    if (variables.version !== 1) throw new NotAsciicastV1('it has no "version": 1');
    return { version: 1, variables, scan: { bytes, records, ...offsetOf(ns) } };
  }

  private async cachedV1Header(c: { dir: string; build: boolean }, signal?: AbortSignal): Promise<Header> {
    let cache = await loadV1Cache(c.dir, this.path);
    if (!cache) {
      if (!c.build) throw new BuildNeeded(`${this.path}: the asciicast v1 cache is missing or stale`);
      cache = await buildV1Cache(c.dir, this.path, { signal, onGzipError: this.onGzipError, badFrame: (item) => this.badFrameMessage(item) });
    }
    if (cache.meta.variables.version !== 1) throw new NotAsciicastV1('it has no "version": 1');
    for (const w of cache.meta.warnings) {
      if (w.key === 'gzip') this.onGzipError(w.text);
      else this.warn('bad-frame', w.text);
    }
    return { version: 1, variables: cache.meta.variables, scan: cache.meta.scan, cache };
  }

  private badFrameMessage(item: Extract<V1Item, { kind: 'bad-frame' }>): string {
    return `${ERRORS.IOLOG_BAD_TIMING.code} ${this.path}: stdout entry ${item.index + 1} ${item.why}; such entries are skipped`;
  }

  private badFrame(item: Extract<V1Item, { kind: 'bad-frame' }>): void {
    this.warn('bad-frame', this.badFrameMessage(item));
  }

  async variables(): Promise<Variables> {
    return (await this.readHeader()).variables;
  }

  async info(): Promise<SessionInfo> {
    const { version, variables: v } = await this.readHeader();
    const term = (version === 3 ? v.term : null) as { cols?: unknown; rows?: unknown; type?: unknown } | null;
    const env = (v.env && typeof v.env === 'object' ? v.env : {}) as Record<string, unknown>;
    const num = (x: unknown, d: number) => (typeof x === 'number' && Number.isInteger(x) && x > 0 && x <= 0x7fffffff ? x : d);
    let startSec = typeof v.timestamp === 'number' && Number.isFinite(v.timestamp) && v.timestamp >= 0 ? Math.floor(v.timestamp) : -1;
    if (startSec < 0) startSec = Math.floor((await lstat(this.path)).mtimeMs / 1000);
    const s = (x: unknown) => (typeof x === 'string' ? x : '');
    return {
      startSec,
      startNsec: 0,
      cols: num(term ? term.cols : v.width, 80),
      rows: num(term ? term.rows : v.height, 24),
      submituser: s(env.USER),
      submithost: '',
      runuser: s(env.USER),
      runhost: '',
      runcmd: s(v.command),
      runargv: s(v.command),
      cwd: '',
      ttyname: '',
      term: s(env.TERM) || (term ? s(term.type) : '') || 'xterm',
      uuid: '',
    };
  }

  async complete(): Promise<boolean> {
    return true;
  }

  /** Events of the file as (absolute ns, code, data), whatever the version. */
  private async *castEvents(signal?: AbortSignal): AsyncGenerator<CastEvent> {
    const { version, cache } = await this.readHeader(signal);
    if (cache) {
      yield* this.cachedEvents(cache, { pos: 0, off: 0, records: 0 }, signal);
      return;
    }
    if (version === 1) {
      yield* this.v1Events(signal);
      return;
    }
    let first = true;
    let abs = 0;
    for await (const [line, lineNo] of this.lines(signal)) {
      if (first) {
        first = false; // the header
        continue;
      }
      if (line === null) {
        this.warn(`long-${lineNo}`, `${ERRORS.IOLOG_BAD_TIMING.code} ${this.path}: line ${lineNo} is longer than ${CAST_LINE_MAX} bytes; skipped`);
        continue;
      }
      const ev = parseCastEventLine(line);
      if (!ev) {
        this.warn('bad-line', `${ERRORS.IOLOG_BAD_TIMING.code} ${this.path}: event line ${lineNo} is not [time, code, data]; such lines are skipped`);
        continue;
      }
      // v2 times are absolute, v3 intervals; a v2 time that goes back is held at the last one.
      abs = version === 3 ? abs + ev.ns : Math.max(abs, ev.ns);
      yield { ns: abs, code: ev.code, data: ev.data };
    }
  }

  private async *cachedEvents(cache: V1Cache, from: Parameters<typeof cachedFrames>[1], signal?: AbortSignal): AsyncGenerator<CastEvent> {
    for await (const f of cachedFrames(cache, from, signal)) yield { ns: f.ns, code: 'o', data: f.data };
  }

  /** v1 frames as output events; the header members are followed, not built. */
  private async *v1Events(signal?: AbortSignal): AsyncGenerator<CastEvent> {
    let ns = 0;
    try {
      for await (const batch of readV1(this.path, { members: false, signal, onGzipError: this.onGzipError })) {
        for (const item of batch) {
          if (item.kind === 'frame') {
            ns += item.delayNs;
            yield { ns, code: 'o', data: item.data };
          } else if (item.kind === 'bad-frame') {
            this.badFrame(item);
          }
        }
      }
    } catch (err) {
      if (!(err instanceof NotAsciicastV1)) throw err;
      // The header pass read it whole: the file changed since. Keep what was read.
      this.warn('v1-changed', `${ERRORS.IOLOG_BAD_TIMING.code} ${this.path}: ${err.message}; read up to there`);
    }
  }

  async scan(signal?: AbortSignal): Promise<ScanResult> {
    const header = await this.readHeader(signal);
    if (header.scan) return header.scan;
    let bytes = 0;
    let records = 0;
    let ns = 0;
    for await (const ev of this.castEvents(signal)) {
      records++;
      // The length is the time of the last event of any code (o, i, r, m, x, or one unknown).
      ns = ev.ns;
      if (ev.code === 'o' || ev.code === 'i') bytes += Buffer.byteLength(ev.data, 'utf8');
    }
    return { bytes, records, ...offsetOf(ns) };
  }

  async *events(opts: EventOptions = {}): AsyncGenerator<SessionEvent> {
    const from = opts.from ?? 0;
    const to = opts.to ?? Infinity;
    const maxRecords = opts.maxRecords ?? Infinity;
    const streams = opts.streams;
    let pos = 0;
    let records = 0;
    let source: AsyncGenerator<CastEvent>;
    const header = await this.readHeader(opts.signal);
    if (header.cache) {
      // Straight to the indexed frame at or before `from`: what comes before is not read.
      const e = entryAtOrBefore(header.cache.meta.index, from);
      pos = e.pos;
      records = e.records;
      source = this.cachedEvents(header.cache, e, opts.signal);
    } else source = this.castEvents(opts.signal);
    for await (const ev of source) {
      if (records++ >= maxRecords) return;
      if (pos > to) return;
      const { sec, nsec } = offsetOf(ev.ns);
      switch (ev.code) {
        case 'o':
        case 'i': {
          const len = Buffer.byteLength(ev.data, 'utf8');
          const start = pos;
          pos += len;
          const lo = Math.max(start, from);
          const hi = Math.min(pos, to);
          if (lo >= hi) break;
          const stream = ev.code === 'o' ? 'ttyout' : 'ttyin';
          if (streams && !streams.has(stream)) break;
          const all = Buffer.from(ev.data, 'utf8');
          for (let p = lo; p < hi; p += MAX_PIECE) {
            yield { kind: 'data', sec, nsec, pos: p, stream, bytes: all.subarray(p - start, Math.min(hi, p + MAX_PIECE) - start), first: p === lo };
          }
          break;
        }
        case 'r': {
          const m = /^(\d{1,9})x(\d{1,9})$/.exec(ev.data);
          if (m) yield { kind: 'winch', sec, nsec, pos, cols: Number(m[1]), rows: Number(m[2]) };
          break;
        }
        case 'm':
          yield { kind: 'marker', sec, nsec, pos, label: ev.data };
          break;
        case 'x':
          yield { kind: 'exit', sec, nsec, pos, status: ev.data };
          break;
        default:
          break; // unknown codes are ignored, as the format asks
      }
    }
  }
}
