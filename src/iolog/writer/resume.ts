// Resuming an incomplete session after a restart (sudo_sendlog -r; logsrvd's store_restart_local,
// iolog_seekto and iolog_rewrite): the records kept are those whose running sum of delays is at
// most the resume point, and the point must be such a sum exactly (a point between two records,
// or past the last one, is refused). Records of zero delay right after the point are kept too:
// sudo_sendlog skips every record whose sum does not pass the point, so it will not send them
// again (logsrvd 1.9.13 cuts them, and loses them). {0,0} keeps nothing: sendlog then sends
// everything again.
//
// Cutting: `timing` first (what it no longer names is ignored by readers), then each stream file
// to the bytes the kept records use. A plain file is truncated in place. A gzip file cannot be
// cut, so, as logsrvd does, its kept bytes are inflated and deflated again into a scratch file
// that is renamed over it; the deflate stream that wrote it goes on taking the new records.
import { closeSync, constants as C, fchmodSync, fstatSync, ftruncateSync, openSync, readSync, renameSync, unlinkSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { evioError, isEvioError } from '../../errors.js';
import type { DirHandle } from '../../safe-open.js';
import { decodedChunks } from '../decoded-file.js';
import { TIMING_LINE_MAX } from '../limits.js';
import { LineSplitter } from '../line-splitter.js';
import { STREAM_NAMES, TimingParser } from '../timing.js';
import { OutputFile } from './output-file.js';
import { addInto, compareTime, formatTime, isZero } from './time-spec.js';
import type { TimeSpec } from './types.js';

const NOFOLLOW = C.O_NOFOLLOW ?? 0;
const NONBLOCK = C.O_NONBLOCK ?? 0;

export interface CutPoint {
  /** Decoded bytes of `timing` kept. */
  timing: number;
  /** Bytes kept of each stream, in STREAM_NAMES order. */
  streams: number[];
  /** Sum of the kept records' delays (= the resume point). */
  elapsed: TimeSpec;
  records: number;
}

function refuse(why: string): never {
  throw evioError('IOLOG_RESUME_POINT', why);
}

/** Where the records of the timing file at real path `timingPath` reach `target` (see above). */
export async function findCut(timingPath: string, target: TimeSpec): Promise<CutPoint> {
  if (isZero(target)) return { timing: 0, streams: [0, 0, 0, 0, 0], elapsed: { sec: 0, nsec: 0 }, records: 0 };
  let damage: string | null = null;
  const decoded = await decodedChunks(timingPath, (msg) => (damage ??= msg));
  if (!decoded) refuse(`${timingPath} does not exist`);
  const parser = new TimingParser();
  const splitter = new LineSplitter(TIMING_LINE_MAX, 'latin1');
  const sum: TimeSpec = { sec: 0, nsec: 0 };
  const next: TimeSpec = { sec: 0, nsec: 0 };
  const sizes = [0, 0, 0, 0, 0];
  let offset = 0;
  let records = 0;
  let found: CutPoint | null = null;
  let problem: string | null = null;
  let done = false;
  const onLine = (line: string | null): boolean => {
    const rec = line === null ? null : parser.parse(line);
    if (!rec) {
      if (!found) problem = `line ${records + 1} of ${timingPath} is not a valid timing record, before the resume point ${formatTime(target)} (the records before it reach ${formatTime(sum)})`;
      done = true;
      return false;
    }
    addInto(next, sum, rec);
    if (compareTime(next, target) > 0) {
      if (!found) problem = `the resume point ${formatTime(target)} falls between two records of the session (${formatTime(sum)} after record ${records}, ${formatTime(next)} after the next one)`;
      done = true;
      return false;
    }
    offset += line!.length + 1; // latin1: one character per byte
    sum.sec = next.sec;
    sum.nsec = next.nsec;
    records++;
    if (rec.type === 'io') sizes[STREAM_NAMES.indexOf(rec.stream)]! += rec.nbytes;
    if (compareTime(sum, target) === 0) found = { timing: offset, streams: sizes.slice(), elapsed: { ...sum }, records };
    return true;
  };
  for await (const chunk of decoded.chunks) {
    splitter.push(chunk, onLine);
    if (done) break;
  }
  if (problem) refuse(problem);
  if (!found) {
    if (damage) refuse(`${damage}, before the resume point ${formatTime(target)}`);
    refuse(`the resume point ${formatTime(target)} is past the end of the session: its ${records} records reach ${formatTime(sum)}`);
  }
  return found;
}

function isGzipFd(fd: number, size: number): boolean {
  if (size < 2) return false;
  const magic = Buffer.alloc(2);
  return readSync(fd, magic, 0, 2, 0) === 2 && magic[0] === 0x1f && magic[1] === 0x8b;
}

export interface CutOptions {
  compress: boolean;
  level: number;
  fileMode: number;
}

/** A file's cut, checked and made ready but not yet applied. */
export interface PreparedCut {
  /** Applies the cut; returns the writer that continues the file (it owns the descriptor). */
  commit(): OutputFile;
  /** Gives up: nothing of the file is changed. */
  abort(): void;
}

/**
 * Prepares cutting the session file `name` (open as `fd`, read-write, in `dir` at real path
 * `real`) to `keep` decoded bytes, changing nothing yet: a plain file is checked to hold them, a
 * gzip file has them deflated again into a scratch file. IOLOG_RESUME_POINT when it holds less.
 * The caller commits every file's cut once all are prepared, so a refused reopen cuts nothing.
 */
export async function prepareCut(dir: DirHandle, real: string, name: string, fd: number, keep: number, opts: CutOptions): Promise<PreparedCut> {
  const shown = dir.shown(name);
  const st = fstatSync(fd);
  if (!st.isFile()) throw evioError('NOT_A_REGULAR_FILE', `${shown} is not a regular file; the session is not resumed`);
  if (isGzipFd(fd, st.size)) return rewriteGzip(dir, real, name, keep, opts);
  if (st.size < keep) refuse(`${shown} holds ${st.size} bytes, but the records up to the resume point use ${keep}`);
  return {
    commit: () => {
      try {
        ftruncateSync(fd, keep);
      } catch (err) {
        throw evioError('IOLOG_WRITE', `cannot cut ${shown}: ${(err as Error).message}`, err);
      }
      return new OutputFile(shown, fd, keep === 0 ? opts.compress : false, keep, opts.level);
    },
    abort: () => undefined,
  };
}

async function rewriteGzip(dir: DirHandle, real: string, name: string, keep: number, opts: CutOptions): Promise<PreparedCut> {
  const shown = dir.shown(name);
  const tmp = `${name}.restart-${randomBytes(6).toString('hex')}`;
  let tfd = -1;
  let out: OutputFile | null = null;
  const abort = () => {
    if (tfd >= 0) closeSync(tfd);
    tfd = -1;
    out?.close();
    try {
      unlinkSync(dir.at(tmp));
    } catch {
      // renamed or never made
    }
  };
  try {
    tfd = openSync(dir.at(tmp), C.O_RDWR | C.O_CREAT | C.O_EXCL | NOFOLLOW | NONBLOCK, opts.fileMode);
    fchmodSync(tfd, opts.fileMode);
    out = new OutputFile(shown, tfd, true, 0, opts.level);
    tfd = -1; // the writer owns it now
    let damage: string | null = null;
    const decoded = await decodedChunks(join(real, name), (msg) => (damage ??= msg));
    let got = 0;
    if (decoded && keep > 0) {
      for await (const chunk of decoded.chunks) {
        const take = Math.min(chunk.length, keep - got);
        out.append(chunk.subarray(0, take));
        got += take;
        if (got >= keep) break;
      }
    }
    if (got < keep) refuse(`${shown} decodes to ${got} bytes${damage ? ` (${damage})` : ''}, but the records up to the resume point use ${keep}`);
    await out.drain();
    await out.sync();
  } catch (err) {
    abort();
    throw isEvioError(err) ? err : evioError('IOLOG_WRITE', `cannot rewrite ${shown}: ${(err as Error).message}`, err);
  }
  const ready = out;
  return {
    commit: () => {
      try {
        renameSync(dir.at(tmp), dir.at(name));
      } catch (err) {
        throw evioError('IOLOG_WRITE', `cannot replace ${shown}: ${(err as Error).message}`, err);
      }
      return ready;
    },
    abort,
  };
}
