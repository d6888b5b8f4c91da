// Seeking in a session: "the screen at time T" and "the data stream from time T" in one keyframe
// restore plus the bytes since it. The keyframes (screen snapshots, src/replay/screen-snapshot.ts,
// with the point where reading resumes) are built by one pass over the session the first time
// it is seeked in, extended from the last keyframe when the session has grown since (a live
// session's timing file got longer), and rebuilt when it changed otherwise. Runs in a worker.
// Sessions that cannot resume reading in the middle (asciicast files) are replayed from the start.
import { stat } from 'node:fs/promises';
import { ERRORS, evioError, isEvioError } from '../errors.js';
import { join } from 'node:path';
import { renderScreen } from '../replay/render.js';
import { Screen } from '../replay/screen.js';
import { repaintScreen, screenCells, type ScreenCell } from '../replay/screen-repaint.js';
import { restoreScreen, SNAPSHOT_VERSION, snapshotScreen, SnapshotError } from '../replay/screen-snapshot.js';
import { writeSessionOutput } from '../replay/session-replay.js';
import { showsTtyOnly } from './screen.js';
import { buildChunk, type ChunkResult } from './chunk.js';
import { SCREEN_CELLS_MAX, SEEK_KEYFRAME_BYTES, SEEK_KEYFRAME_RECORDS, SEEK_KEYFRAMES_BUDGET, SEEK_WRITE_BATCH, SEEK_WRITE_BATCH_BYTES } from './limits.js';
import { openSession } from './locate.js';
import { redacted, type RedactView } from './redact/redacted-session.js';
import { AsciicastSession } from './asciicast-session.js';
import { BuildNeeded, castCacheDirForSeek } from './cast-v1-cache.js';
import {
  dropSeekSession,
  keyframeAtOrBefore,
  keyframeAtOrBeforePos,
  readSeekSession,
  seekDb,
  seekDbIfAny,
  writeKeyframes,
  writeSeekSession,
  type Keyframe,
  type SeekDb,
  type SeekSessionRow,
} from './seek-store.js';
import { scanEndMs, startPoint, type IologSession, type ResumePoint, type SessionEvent } from './session.js';
import type { StreamName } from './timing.js';

const OUTPUT: ReadonlySet<StreamName> = new Set<StreamName>(['ttyout', 'stdout', 'stderr']);
const NO_STREAMS: ReadonlySet<StreamName> = new Set<StreamName>();

/** Milliseconds from the session's start of an event or point (the cut the screen uses). */
const msOf = (p: { sec: number; nsec: number }): number => p.sec * 1000 + p.nsec / 1e6;

/** One event on the session's screen (ttyOnly: the session had a tty, see showsTtyOnly). */
function apply(screen: Screen, ev: SessionEvent, ttyOnly: boolean): void {
  if (ev.kind === 'winch') screen.resize(ev.cols, ev.rows);
  else if (ev.kind === 'data') writeSessionOutput(screen, ev.stream, ev.bytes, msOf(ev), ttyOnly);
}

const copyPoint = (p: ResumePoint): ResumePoint => ({ ...p, streams: [...p.streams] });

/**
 * What says whether a sudo session changed: the timing file's inode, size and mtime, and the
 * keyframes' format (a new snapshot version makes every index entry stale, so it is rebuilt).
 */
async function signature(session: IologSession): Promise<{ sig: string; ino: number; size: number }> {
  const st = await stat(join(session.path, 'timing'));
  return { sig: `${st.ino}:${st.size}:${st.mtimeMs}:s${SNAPSHOT_VERSION}`, ino: st.ino, size: st.size };
}

function sigParts(sig: string): { ino: number; size: number; snapshot: string } {
  const [ino, size, , snapshot] = sig.split(':');
  return { ino: Number(ino), size: Number(size), snapshot: snapshot ?? '' };
}

export interface SeekBuildStats {
  /** How the index was brought up to date: fresh (nothing to do), built, extended. */
  action: 'fresh' | 'built' | 'extended';
  keyframes: number;
}

/**
 * The session's seek index row, built or extended first when the session is new to the index
 * or has changed. Keyframes go to SQLite in batches while the pass runs (bounded memory).
 */
export async function ensureSeekIndex(db: SeekDb, session: IologSession, signal?: AbortSignal, stats?: SeekBuildStats, build = true): Promise<SeekSessionRow> {
  const info = await session.info();
  const ttyOnly = showsTtyOnly(info);
  const { sig, ino, size } = await signature(session);
  const row = readSeekSession(db, session.path);
  if (row && row.sig === sig) {
    if (stats) Object.assign(stats, { action: 'fresh', keyframes: row.keyframes });
    return row;
  }
  if (!build) throw new BuildNeeded(`${session.path}: the seek index is missing or stale`);
  let from: Keyframe | null = null;
  let keyframes = 0;
  if (row) {
    const old = sigParts(row.sig);
    // Grown in place (a live session): continue from the last keyframe. Anything else: anew.
    if (old.ino === ino && size > old.size && row.keyframes > 0 && old.snapshot === `s${SNAPSHOT_VERSION}`) {
      from = keyframeAtOrBefore(db, session.path, Infinity);
      keyframes = row.keyframes;
    }
    if (!from) dropSeekSession(db, session.path);
  }
  let screen: Screen;
  try {
    screen = from ? restoreScreen(from.snap) : new Screen({ cols: info.cols, rows: info.rows });
  } catch (err) {
    if (!(err instanceof SnapshotError)) throw err;
    dropSeekSession(db, session.path);
    from = null;
    keyframes = 0;
    screen = new Screen({ cols: info.cols, rows: info.rows });
  }
  const track = startPoint();
  let lastPos = from?.pos ?? 0;
  let lastRecords = from?.resume.records ?? 0;
  const frames: Keyframe[] = [];
  let pending = 0;
  // Keyframe bytes written by this build (an extension starts its count anew) and the size of
  // the last one: keyframes are spaced by at least their own size in data (SEEK_KEYFRAMES_BUDGET).
  let written = 0;
  let lastSnap = from?.snap.byteLength ?? 0;
  const flush = () => {
    if (!frames.length) return;
    writeKeyframes(db, session.path, frames);
    keyframes += frames.length;
    frames.length = 0;
    pending = 0;
  };
  for await (const ev of session.events({ ...(from ? { resume: from.resume } : {}), track, streams: OUTPUT, ...(signal ? { signal } : {}) })) {
    // A keyframe only where a record starts (track = the point before it) and the parser is idle.
    const scale = 2 ** Math.floor(written / SEEK_KEYFRAMES_BUDGET);
    const gap = track.pos - lastPos;
    if ((ev.kind !== 'data' || ev.first) && (gap >= SEEK_KEYFRAME_BYTES * scale || track.records - lastRecords >= SEEK_KEYFRAME_RECORDS * scale) && gap >= lastSnap * scale && screen.parserIdle) {
      const snap = snapshotScreen(screen);
      frames.push({ ms: msOf(track), pos: track.pos, resume: copyPoint(track), snap });
      lastPos = track.pos;
      lastRecords = track.records;
      lastSnap = snap.byteLength;
      written += snap.byteLength;
      pending += snap.byteLength;
      if (frames.length >= SEEK_WRITE_BATCH || pending >= SEEK_WRITE_BATCH_BYTES) flush();
    }
    apply(screen, ev, ttyOnly);
  }
  flush();
  const done: SeekSessionRow = { sig, bytes: track.pos, records: track.records, endMs: msOf(track), keyframes, endPoint: copyPoint(track) };
  writeSeekSession(db, session.path, done);
  if (stats) Object.assign(stats, { action: from ? 'extended' : 'built', keyframes });
  return done;
}

/**
 * Opens the session of a seek call. An asciicast v1 file is read through its cache; `build`
 * false (the interactive lane): a missing or stale seek index or v1 cache raises BuildNeeded
 * instead of being built here.
 */
async function openForSeek(roots: readonly string[], seekFile: string, file: string, build: boolean, redact: RedactView | undefined): Promise<IologSession> {
  const session = await openSession([...roots], file);
  if (session instanceof AsciicastSession) session.useV1Cache(castCacheDirForSeek(seekFile), build);
  // Masked on the way out over the cached read (the cache holds the recording as recorded).
  return redacted(session, redact);
}

export interface SeekScreenRequest {
  file: string;
  /** false: raise BuildNeeded rather than build the seek index or v1 cache (default true). */
  build?: boolean;
  /** With cells: the rows (0-based, inclusive) whose cells are wanted (default every row). */
  cellRows?: { first: number; last: number };
  /** Milliseconds from the session's start; Infinity = its end. */
  atMs: number;
  cells?: boolean;
  /** Read through these redaction rules (absent: as recorded). */
  redact?: RedactView;
  /**
   * A follower's read (GET /REST/iolog/follow) of a sudo session: `from`, when it is the point
   * where `start` is (an earlier answer's `tail`), spares the pass over the timing before it;
   * the answer then carries the `tail` point at its end, when the chunk reached the end.
   */
  follow?: { from: TailHint | null };
}

/** A resume point at the end of what a follower has read, valid while the timing file is the same (its inode). */
export interface TailHint {
  ino: number;
  point: ResumePoint;
}

export interface SeekScreenResult {
  file: string;
  /** Seconds from the start the screen is at (the end's time when none was asked for). */
  at: number;
  cols: number;
  rows: number;
  /** Session length in seconds (time of its last record). */
  duration: number;
  /** Data-stream position after every record up to `at` (a player continues from here). */
  offset: number;
  /** Data bytes of the whole session. */
  bytes: number;
  cursor: { x: number; y: number; visible: boolean };
  alternate: boolean;
  /** Every row as text (trailing empty cells left out). */
  lines: string[];
  /** Escape sequences that paint this screen into a reset terminal of cols × rows. */
  repaint: string;
  cells?: ScreenCell[][];
  /** The rows `cells` holds (0-based, inclusive): every row unless a window was asked for. */
  cellRows?: { first: number; last: number };
  /** Where the screen came from: the keyframe's position (null: the session's start). */
  keyframe: { at: number; offset: number } | null;
  warnings: string[];
}

interface Positioned {
  screen: Screen | null;
  /** -1: the end of a session that cannot resume (the caller knows its total). */
  offset: number;
  kf: Keyframe | null;
}

/**
 * Reads from the keyframe at or before atMs up to atMs: the screen (when `withScreen`) and the
 * data-stream position after the last record at or before atMs. Input streams are never read.
 */
async function position(session: IologSession, db: SeekDb | null, info: { cols: number; rows: number; ttyname: string }, atMs: number, withScreen: boolean, signal?: AbortSignal): Promise<Positioned> {
  const ttyOnly = showsTtyOnly(info);
  let kf = db ? keyframeAtOrBefore(db, session.path, atMs) : null;
  let screen: Screen | null = null;
  if (withScreen) {
    try {
      screen = kf ? restoreScreen(kf.snap) : new Screen({ cols: info.cols, rows: info.rows });
    } catch (err) {
      if (!(err instanceof SnapshotError)) throw err;
      kf = null;
      screen = new Screen({ cols: info.cols, rows: info.rows });
    }
  }
  const sig = signal ? { signal } : {};
  if (session.resumable) {
    const track = startPoint();
    const streams = withScreen ? OUTPUT : NO_STREAMS;
    for await (const ev of session.events({ ...(kf ? { resume: kf.resume } : {}), track, streams, untilMs: atMs, ...sig })) if (screen) apply(screen, ev, ttyOnly);
    return { screen, offset: track.pos, kf };
  }
  for await (const ev of session.events(sig)) {
    if (msOf(ev) > atMs) return { screen, offset: ev.pos, kf: null };
    if (screen) apply(screen, ev, ttyOnly);
  }
  return { screen, offset: -1, kf: null };
}

/**
 * A session's total bytes and length without a seek index (sessions that cannot resume): one
 * scan, whose length is the time of the last record of any kind — the same as the seek index
 * row's endMs for a sudo session (both add up every record's delay).
 */
async function totals(session: IologSession, signal?: AbortSignal): Promise<{ bytes: number; endMs: number }> {
  const scan = await session.scan(signal);
  return { bytes: scan.bytes, endMs: scanEndMs(scan) };
}

/** GET /REST/iolog/screen, `evio iolog screen`: the screen at a time, through the seek index. */
export async function seekScreen(roots: readonly string[], seekFile: string, r: SeekScreenRequest, signal?: AbortSignal): Promise<SeekScreenResult> {
  const build = r.build ?? true;
  const session = await openForSeek(roots, seekFile, r.file, build, r.redact);
  const info = await session.info();
  let db: SeekDb | null = null;
  let row: SeekSessionRow | null = null;
  if (session.resumable) {
    try {
      db = seekDb(seekFile);
      row = await ensureSeekIndex(db, session, signal, undefined, build);
    } catch (err) {
      // The index cannot be written (a read-only data folder, a full disk): the screen is still
      // answered, replayed from the start, with a warning.
      if (!isEvioError(err, 'IOLOG_SEEK_INDEX') && !(err instanceof Error && /SQLITE|database/i.test(err.message))) throw err;
      session.warnings.push(`${ERRORS.IOLOG_SEEK_INDEX.code} ${seekFile}: ${(err as Error).message}; replayed from the start`);
      db = null;
      row = null;
    }
  }
  const whole = row ? { bytes: row.bytes, endMs: row.endMs } : await totals(session, signal);
  // With the index, no pass reads the timing to its end: one over the timing alone checks a
  // finished session's timing against its stream files (IOLOG_TIMING_SHORT: cut short).
  if (row && (await session.complete())) await session.scan(signal);
  const p = await position(session, db, info, r.atMs, true, signal);
  const screen = p.screen!;
  screen.end();
  const cellRows = r.cells ? cellWindow(screen, r.cellRows) : null;
  const at = Number.isFinite(r.atMs) ? r.atMs / 1000 : whole.endMs / 1000;
  return {
    file: session.path,
    at,
    cols: screen.cols,
    rows: screen.rows,
    duration: whole.endMs / 1000,
    offset: p.offset < 0 ? whole.bytes : p.offset,
    bytes: whole.bytes,
    cursor: { x: screen.cursorX, y: screen.cursorY, visible: !screen.modes.cursorHidden },
    alternate: screen.isAlternate,
    lines: renderScreen(screen),
    repaint: repaintScreen(screen),
    ...(cellRows ? { cells: screenCells(screen, cellRows.first, cellRows.last), cellRows } : {}),
    keyframe: p.kf ? { at: p.kf.ms / 1000, offset: p.kf.pos } : null,
    warnings: [...session.warnings],
  };
}

/**
 * The rows whose cells a screen answer holds: at most SCREEN_CELLS_MAX cells (a 2000 × 1000
 * screen would make an answer of some 35 MB); a larger screen needs a window of rows.
 */
function cellWindow(screen: Screen, want: { first: number; last: number } | undefined): { first: number; last: number } {
  const first = Math.min(want?.first ?? 0, screen.rows - 1);
  const last = Math.min(want?.last ?? screen.rows - 1, screen.rows - 1);
  const cells = (last - first + 1) * screen.cols;
  if (cells > SCREEN_CELLS_MAX) {
    const fit = Math.max(1, Math.floor(SCREEN_CELLS_MAX / screen.cols));
    throw evioError('IOLOG_SCREEN_CELLS_TOO_MANY', `cells=1 on rows ${first}-${last} of this ${screen.cols} × ${screen.rows} screen makes ${cells} cells, more than ${SCREEN_CELLS_MAX}: ask for at most ${fit} rows at a time with cellrows=FIRST-LAST (e.g. cellrows=${first}-${first + fit - 1})`);
  }
  return { first, last };
}

export interface SeekChunkRequest {
  file: string;
  /** false: raise BuildNeeded rather than build the seek index or v1 cache (default true). */
  build?: boolean;
  /** Start at the data-stream position of this time (ms from the start), or at `start` bytes. */
  atMs?: number;
  start?: number;
  len: number;
  /** Read through these redaction rules (absent: as recorded). */
  redact?: RedactView;
  /**
   * A follower's read (GET /REST/iolog/follow) of a sudo session: `from`, when it is the point
   * where `start` is (an earlier answer's `tail`), spares the pass over the timing before it;
   * the answer then carries the `tail` point at its end, when the chunk reached the end.
   */
  follow?: { from: TailHint | null };
}

/** A resume point at the end of what a follower has read, valid while the timing file is the same (its inode). */
export interface TailHint {
  ino: number;
  point: ResumePoint;
}

/**
 * GET /REST/iolog?file=&at=&len= (and start=): a chunk, read from the nearest keyframe's resume
 * point when the session's seek index is current (a chunk far into a big session then costs no
 * pass over the timing before it). `at` brings the index up to date first.
 */
export async function seekChunk(roots: readonly string[], seekFile: string, r: SeekChunkRequest, signal?: AbortSignal): Promise<ChunkResult & { at?: number; tail?: TailHint }> {
  const build = r.build ?? true;
  const session = await openForSeek(roots, seekFile, r.file, build, r.redact);
  if (r.follow && r.atMs === undefined && session.scanFrom) return tailChunk(session, session.scanFrom.bind(session), r.start ?? 0, r.len, r.follow.from, signal);
  if (!session.resumable) {
    if (r.atMs === undefined) return buildChunk(session, r.start ?? 0, r.len, signal);
    const info = await session.info();
    const p = await position(session, null, info, r.atMs, false, signal);
    const start = p.offset < 0 ? (await session.scan(signal)).bytes : p.offset;
    return { ...(await buildChunk(session, start, r.len, signal)), at: r.atMs / 1000 };
  }
  let db: SeekDb | null;
  let row: SeekSessionRow | null = null;
  let start = r.start ?? 0;
  if (r.atMs !== undefined) {
    db = seekDbIfAny(seekFile) ?? seekDb(seekFile);
    row = await ensureSeekIndex(db, session, signal, undefined, build);
    const info = await session.info();
    start = (await position(session, db, info, r.atMs, false, signal)).offset;
  } else {
    db = seekDbIfAny(seekFile);
    row = db ? readSeekSession(db, session.path) : null;
    if (row && row.sig !== (await signature(session)).sig) row = null;
  }
  const kf = row && db ? keyframeAtOrBeforePos(db, session.path, start) : null;
  const chunk = await buildChunk(session, start, r.len, signal, row ? { total: row.bytes, records: row.records, ...(kf ? { resume: kf.resume } : {}) } : undefined);
  return r.atMs !== undefined ? { ...chunk, at: r.atMs / 1000 } : chunk;
}

/**
 * A follower's chunk: the timing is passed over from the hint's point on (or from the start
 * without one), the data read from `start`; the point at the end of the session as scanned is
 * given back when the chunk reached it, for the next read. (The seek index is stale while a
 * session grows, so this is what keeps a long live session's reads in proportion to what was
 * added, not to its length.)
 */
async function tailChunk(session: IologSession, scanFrom: NonNullable<IologSession['scanFrom']>, start: number, len: number, hint: TailHint | null, signal?: AbortSignal): Promise<ChunkResult & { tail?: TailHint }> {
  const ino = (await stat(join(session.path, 'timing'))).ino;
  const from = hint && hint.ino === ino && hint.point.pos === start ? hint.point : null;
  const scan = await scanFrom(from ?? startPoint(), signal);
  const chunk = await buildChunk(session, start, len, signal, { total: scan.bytes, records: scan.records, ...(from ? { resume: from } : {}) });
  return chunk.start + chunk.len === scan.bytes ? { ...chunk, tail: { ino, point: scan.end } } : chunk;
}

/** The seek index of one session brought up to date (`evio iolog seek-index`, the benchmark). */
export async function buildSeekIndex(roots: readonly string[], seekFile: string, file: string, signal?: AbortSignal): Promise<SeekBuildStats & { file: string; bytes: number; duration: number }> {
  const session = await openForSeek(roots, seekFile, file, true, undefined);
  const stats: SeekBuildStats = { action: 'fresh', keyframes: 0 };
  if (!session.resumable) {
    const whole = await totals(session, signal);
    return { ...stats, file: session.path, bytes: whole.bytes, duration: whole.endMs / 1000 };
  }
  const row = await ensureSeekIndex(seekDb(seekFile), session, signal, stats);
  return { ...stats, file: session.path, bytes: row.bytes, duration: row.endMs / 1000 };
}
