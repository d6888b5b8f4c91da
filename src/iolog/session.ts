// One streaming interface over every recorded session kind (sudo directory, asciicast file).
// Events come in timing order with their time offset (integer seconds + nanoseconds since the
// start) and their position in the session's data stream (all recorded bytes, decompressed, in
// timing order). Data arrives in pieces of bounded size, so a session of any size is read with
// bounded memory.
import type { SessionInfo, Variables } from './log-info.js';
import type { StreamName } from './timing.js';

export type { StreamName } from './timing.js';

interface At {
  /** Offset from the session start. */
  readonly sec: number;
  readonly nsec: number;
  /** Data-stream position at which the event happens. */
  readonly pos: number;
}

export type SessionEvent =
  | (At & { readonly kind: 'data'; readonly stream: StreamName; readonly bytes: Uint8Array; readonly first: boolean })
  | (At & { readonly kind: 'winch'; readonly cols: number; readonly rows: number })
  | (At & { readonly kind: 'signal'; readonly signal: string })
  | (At & { readonly kind: 'marker'; readonly label: string })
  | (At & { readonly kind: 'exit'; readonly status: string });

export interface ScanResult {
  /** Total data bytes. */
  bytes: number;
  /** Records read (pass as maxRecords so a live session reads the same records twice). */
  records: number;
  /**
   * The session's length: the offset from the start of its last record of any kind (data,
   * window change, marker, exit), 0 when it has none. Every duration evio reports is this.
   */
  sec: number;
  nsec: number;
}

/** A scan's length in milliseconds (the cut the screen uses). */
export function scanEndMs(scan: Pick<ScanResult, 'sec' | 'nsec'>): number {
  return scan.sec * 1000 + scan.nsec / 1e6;
}

/**
 * Where reading a sudo session can resume: the state after a whole timing record. The seek
 * index stores one with each keyframe, so reading from it costs no pass over what came before
 * (a plain file is read from the offset; a gzip file is still inflated from its start).
 */
export interface ResumePoint {
  /** Decoded byte offset in the timing file just after the record. */
  timing: number;
  sec: number;
  nsec: number;
  /** Data-stream position after the record. */
  pos: number;
  /** Bytes consumed of each stream, in STREAM_NAMES order (stdin, stdout, stderr, ttyin, ttyout). */
  streams: number[];
  /** Timing records read. */
  records: number;
  /** The legacy type-6 adjustment in force (timing.ts). */
  adjust: number;
}

export function startPoint(): ResumePoint {
  return { timing: 0, sec: 0, nsec: 0, pos: 0, streams: [0, 0, 0, 0, 0], records: 0, adjust: 0 };
}

export interface EventOptions {
  /** sudo sessions: start reading at this point instead of the beginning. */
  resume?: ResumePoint;
  /**
   * sudo sessions: updated in place as records complete; while the consumer holds an event,
   * it is the point just before that event's record (the keyframe builder reads it).
   */
  track?: ResumePoint;
  /**
   * sudo sessions: stop before the first record later than this (ms from the start), leaving
   * `track` at the point before it: the position of a time without reading any data.
   */
  untilMs?: number;
  /**
   * Only data in [from, to) is read and yielded (cut to that range); other data is skipped
   * without being read where the file allows it. Non-data events are always yielded, and
   * iteration ends once the position passes `to`.
   */
  from?: number;
  to?: number;
  /** Stop after this many records. */
  maxRecords?: number;
  /**
   * Only data of these streams is yielded; the others' bytes are not read (a search for
   * `output` has no use for ttyin). Positions still count every stream's bytes, and non-data
   * events are yielded as always. Absent: every stream.
   */
  streams?: ReadonlySet<StreamName>;
  signal?: AbortSignal;
}

export interface IologSession {
  readonly path: string;
  readonly format: 'sudo' | 'asciicast';
  /** events() honours `resume` and `track` (sudo sessions). */
  readonly resumable: boolean;
  /** Every key of log.json / log / the asciicast header. */
  variables(): Promise<Variables>;
  info(): Promise<SessionInfo>;
  /** sudo: the timing file has no write bits left. asciicast: always true. */
  complete(): Promise<boolean>;
  /** A pass over the timing only: total data bytes, records and the time of the last one. */
  scan(signal?: AbortSignal): Promise<ScanResult>;
  /**
   * sudo sessions: the same pass from a resume point on (the point's counts plus what follows),
   * with the point after the last record — a live session's tail is read without passing over
   * what came before it again.
   */
  scanFrom?(from: ResumePoint, signal?: AbortSignal): Promise<ScanResult & { end: ResumePoint }>;
  events(opts?: EventOptions): AsyncGenerator<SessionEvent>;
  /** Problems met while reading (bad timing line, short stream file), each starting with its code. */
  readonly warnings: string[];
}

/** Unix milliseconds of an event offset. */
export function eventUnixMs(info: SessionInfo, sec: number, nsec: number): number {
  return (info.startSec + sec) * 1000 + Math.floor((info.startNsec + nsec) / 1_000_000);
}

/** Milliseconds since the start of an event offset. */
export function offsetMs(sec: number, nsec: number): number {
  return sec * 1000 + Math.floor(nsec / 1_000_000);
}

export function checkAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    const err = new Error('the request was cancelled');
    err.name = 'AbortError';
    throw err;
  }
}

/**
 * A `warn(key, text)` that records each kind of warning once into `into`: a damaged file would
 * otherwise repeat the same warning for every record.
 */
export function onceWarner(into: string[]): (key: string, text: string) => void {
  const seen = new Set<string>();
  return (key, text) => {
    if (seen.has(key)) return;
    seen.add(key);
    into.push(text);
  };
}
