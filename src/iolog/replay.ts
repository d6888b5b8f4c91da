// A session's byte range as replay items (GET /REST/iolog/replay). Composes the session reader
// with the replay tokenizer (src/replay imports neither iolog nor eventlog: bytes in, tokens
// out). The tokenizing runs in the worker pool (DESIGN §4); a range is at most CHUNK_MAX_LEN
// bytes, so the items of one answer are bounded and cross the thread boundary as one array.
import { isEvioError } from '../errors.js';
import { REPLAY_WARMUP_BYTES, replayRange } from '../replay/session-replay.js';
import { Tokenizer } from '../replay/tokenizer.js';
import type { ReplayItem } from '../replay/types.js';
import { openSession, type CastCacheUse } from './locate.js';
import type { RedactView } from './redact/redacted-session.js';
import { eventUnixMs } from './session.js';

const DEFAULT_TERM = 'xterm-256color';

export interface ReplayResult {
  file: string;
  /** The terminfo entry used (its primary name). */
  term: string;
  start: number;
  /** Bytes the range covers (clamped to the data and to CHUNK_MAX_LEN). */
  len: number;
  /** Total data bytes of the session. */
  bytes: number;
  items: ReplayItem[];
  warnings: string[];
}

export interface ReplayRequest {
  file: string;
  term?: string;
  start: number;
  len: number;
  /** Read through these redaction rules (absent: as recorded). */
  redact?: RedactView;
  /** An asciicast v1 file: read from its cache here (see CastCacheUse). */
  cast?: CastCacheUse;
}

/**
 * A tokenizer for the asked terminal type; without one, the session's TERM (falling back to
 * xterm-256color when the system knows no such entry). An explicitly asked unknown term is an error.
 */
function tokenizerFor(asked: string | undefined, sessionTerm: string): Tokenizer {
  if (asked) return new Tokenizer({ term: asked });
  try {
    return new Tokenizer({ term: sessionTerm || DEFAULT_TERM });
  } catch (err) {
    if (isEvioError(err, 'REPLAY_TERM_UNKNOWN') || isEvioError(err, 'REPLAY_TERM_BAD_NAME') || isEvioError(err, 'REPLAY_TERMINFO_CORRUPT')) {
      return new Tokenizer({ term: DEFAULT_TERM });
    }
    throw err;
  }
}

/** The work itself (run inside a worker): open, scan, tokenize the range. */
export async function replaySessionRange(roots: string[], r: ReplayRequest, signal?: AbortSignal): Promise<ReplayResult> {
  const session = await openSession(roots, r.file, r.redact, r.cast);
  const info = await session.info();
  const tokenizer = tokenizerFor(r.term, info.term);
  const scan = await session.scan(signal);
  const from = Math.min(r.start, scan.bytes);
  const to = Math.min(from + r.len, scan.bytes);
  // Bytes just before the range are parsed but not reported, so a range that starts inside an
  // escape sequence reads correctly.
  const events = session.events({ from: Math.max(0, from - REPLAY_WARMUP_BYTES), to, maxRecords: scan.records, ...(signal ? { signal } : {}) });
  const items: ReplayItem[] = [];
  for await (const item of replayRange(events, tokenizer, { start: from, end: to, cols: info.cols, rows: info.rows, timeMs: (sec, nsec) => eventUnixMs(info, sec, nsec) })) {
    items.push(item);
  }
  return { file: session.path, term: tokenizer.term, start: r.start, len: to - from, bytes: scan.bytes, items, warnings: [...session.warnings] };
}
