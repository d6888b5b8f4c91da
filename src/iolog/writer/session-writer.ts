// One sudo I/O log session being written by the log server, as sudo_logsrvd 1.9.13 writes it
// (logsrvd/iolog_writer.c, logsrvd_local.c), so that sudoreplay lists and replays it:
// - at Accept (createIologSession): the directory from the templates (templates.ts, seq.ts),
//   claimed by creating `timing` with O_EXCL in an empty directory (two writers never share
//   one; an existing session is never written into), then log.json and log (log-files.ts), then
//   stdout, stderr and ttyout, which logsrvd creates at once "for sudoreplay"; stdin and ttyin
//   are created when their first record comes, as logsrvd does;
// - each record: its data appended to the stream file and its timing line (timing-line.ts) to
//   `timing`, into buffers (output-file.ts); nothing is durable before flush();
// - flush(): every file written and fdatasync'ed (gzip sync-flushed first); it answers the
//   elapsed time as of the call, which is what a commit point may report;
// - finish(): the files ended (gzip trailers), the exit appended to log.json, then the write bits
//   of `timing` cleared: the completion marker sudoreplay -F and restarts look at;
// - close(): the files ended and closed without that marker (a lost connection): the session can
//   be reopened at a commit point (reopenIologSession, resume.ts).
// A session open here is known to this process: reopening it meanwhile is refused.
import { chmodSync, closeSync, constants as C, fchmodSync, fstatSync, openSync, rmdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { evioError, isEvioError, type EvioError } from '../../errors.js';
import { resolveInsideRoots, inside, realOrNull } from '../../paths.js';
import { DirHandle } from '../../safe-open.js';
import { STREAM_NAMES } from '../timing.js';
import { readAcceptInfo, type AcceptInfo } from './accept-info.js';
import { descend, enterDir, isEmptyDir, openRoot } from './dirs.js';
import { legacyLog, logJson, readSessionFile, withExit, writeFileAtomic, writeNewFiles } from './log-files.js';
import { writerSettings, type WriterSettings } from './options.js';
import { OutputFile } from './output-file.js';
import { findCut, prepareCut, type PreparedCut } from './resume.js';
import { nextSeq, splitSeq } from './seq.js';
import { brokenDown } from './strftime.js';
import { expandTemplate, fillTrailingX, pathComponents, type TemplateValues } from './templates.js';
import { addInto, checkTimeSpec } from './time-spec.js';
import { checkWinsize, putIoLine, putSuspendLine, putWinsizeLine, timingSignal } from './timing-line.js';
import type { ExitInfo, InfoValue, IologSession, IologWriterOptions, IoStream, TimeSpec } from './types.js';

const NOFOLLOW = C.O_NOFOLLOW ?? 0;
const NONBLOCK = C.O_NONBLOCK ?? 0;

/** Streams logsrvd creates at Accept (iolog_init): stdout, stderr, ttyout. */
const CREATED_AT_ACCEPT: readonly IoStream[] = [1, 2, 4];
/** Names a %{seq} template tries before giving up (IDs taken after a wrap or a lost seq update). */
const SEQ_ATTEMPTS = 1000;
/** The longest I/O record in the timing file: sudoreplay's read buffer (sudoreplay.c, iobuf). */
export const MAX_RECORD = 64 * 1024;
const NO_DELAY: TimeSpec = { sec: 0, nsec: 0 };
/** Names a XXXXXX template tries. */
const RANDOM_ATTEMPTS = 100;

/** Session directories open for writing in this process (real paths). */
const openSessions = new Set<string>();

type State = 'open' | 'ending' | 'finished' | 'closed';

class SessionWriter implements IologSession {
  private readonly now: TimeSpec;
  private readonly scratch: TimeSpec = { sec: 0, nsec: 0 };
  private state: State = 'open';
  private failure: EvioError | null = null;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly handle: DirHandle,
    readonly dir: string,
    readonly relPath: string,
    private readonly s: WriterSettings,
    private readonly timing: OutputFile,
    private readonly streams: (OutputFile | null)[],
    elapsed: TimeSpec,
    /** log.json as written at Accept (null for a reopened session: read at finish). */
    private readonly logJsonBytes: Buffer | null,
  ) {
    this.now = { ...elapsed };
    // A timing line must not reach a reader before the bytes it names: when the timing buffer
    // goes to the kernel, the plain stream buffers go first (gzip data reaches the file when
    // zlib has deflated it, so for compressed sessions this holds only at flush()).
    timing.beforeSpill = () => {
      for (const f of this.streams) if (f && !f.gzip) f.spill();
    };
  }

  get tsid(): string {
    return /^[0-9A-Za-z]{2}\/[0-9A-Za-z]{2}\/[0-9A-Za-z]{2}$/.test(this.relPath) ? this.relPath.replaceAll('/', '') : this.relPath;
  }

  get elapsed(): TimeSpec {
    return { sec: this.now.sec, nsec: this.now.nsec };
  }

  get buffered(): number {
    let n = this.timing.buffered;
    for (const f of this.streams) if (f) n += f.buffered;
    return n;
  }

  /** The stream files, then timing (drained in that order). */
  private files(): OutputFile[] {
    const out: OutputFile[] = [];
    for (const f of this.streams) if (f) out.push(f);
    out.push(this.timing);
    return out;
  }

  private usable(): void {
    if (this.state !== 'open') throw evioError('IOLOG_WRITER_CLOSED', `${this.dir}: the session is ${this.state === 'ending' ? 'being finished' : this.state}; nothing more is written to it`);
    if (this.failure) throw this.failure;
  }

  /** An error of a write: an I/O failure stops the session for good. */
  private failed(err: unknown): unknown {
    if (isEvioError(err, 'IOLOG_WRITE')) this.failure ??= err;
    return err;
  }

  private stream(i: IoStream): OutputFile {
    let f = this.streams[i];
    if (!f) {
      try {
        f = this.streams[i] = createStreamFile(this.handle, STREAM_NAMES[i]!, this.s);
      } catch (err) {
        throw this.failed(err);
      }
    }
    return f;
  }

  /** The elapsed time after `delay`, checked before anything is written. */
  private after(delay: TimeSpec): TimeSpec {
    checkTimeSpec(delay, 'delay');
    return addInto(this.scratch, this.now, delay);
  }

  private advanceTo(t: TimeSpec): void {
    this.now.sec = t.sec;
    this.now.nsec = t.nsec;
  }

  writeIo(stream: IoStream, delay: TimeSpec, data: Uint8Array): void {
    this.usable();
    if (stream !== 0 && stream !== 1 && stream !== 2 && stream !== 3 && stream !== 4) {
      throw evioError('IOLOG_BAD_RECORD', `stream ${String(stream)} is not 0-4 (stdin, stdout, stderr, ttyin, ttyout)`);
    }
    if (!(data instanceof Uint8Array)) throw evioError('IOLOG_BAD_RECORD', 'the data of an I/O record must be bytes');
    const t = this.after(delay);
    const file = this.stream(stream);
    try {
      if (data.length <= MAX_RECORD) {
        file.append(data);
        putIoLine(this.timing, stream, delay, data.length);
      } else {
        // sudoreplay (1.9.13) reads a record through one 64 KiB buffer and loses the rest of a
        // longer one; sudo never sends one (its I/O buffers are 64 KiB). A longer one is written
        // as 64 KiB records, the first with the delay, the others with none: same bytes, same sum.
        for (let off = 0; off < data.length; off += MAX_RECORD) {
          const piece = data.subarray(off, Math.min(off + MAX_RECORD, data.length));
          file.append(piece);
          putIoLine(this.timing, stream, off === 0 ? delay : NO_DELAY, piece.length);
        }
      }
    } catch (err) {
      throw this.failed(err);
    }
    this.advanceTo(t);
  }

  writeWinsize(delay: TimeSpec, rows: number, cols: number): void {
    this.usable();
    checkWinsize(rows, cols);
    const t = this.after(delay);
    try {
      putWinsizeLine(this.timing, delay, rows, cols);
    } catch (err) {
      throw this.failed(err);
    }
    this.advanceTo(t);
  }

  writeSuspend(delay: TimeSpec, signal: string): void {
    this.usable();
    const name = timingSignal(signal);
    const t = this.after(delay);
    try {
      putSuspendLine(this.timing, delay, name);
    } catch (err) {
      throw this.failed(err);
    }
    this.advanceTo(t);
  }

  /** Writes and syncs every file; flushes run one after another. */
  private queue<T>(work: () => Promise<T>): Promise<T> {
    const run = this.chain.then(work);
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async writeAll(): Promise<void> {
    const files = this.files();
    await Promise.all(files.map((f) => f.drain()));
    await Promise.all(files.map((f) => f.sync()));
  }

  /**
   * Hands everything written so far to the kernel without syncing it: readers of a session that
   * is still being received (a follower, the screen at a time) see it at once. Not a commit point.
   */
  writeOut(): Promise<void> {
    try {
      this.usable();
    } catch (err) {
      return Promise.reject(err);
    }
    return this.queue(async () => {
      if (this.failure) throw this.failure;
      await Promise.all(this.files().map((f) => f.drain()));
    });
  }

  flush(): Promise<TimeSpec> {
    try {
      this.usable();
    } catch (err) {
      return Promise.reject(err);
    }
    const point = this.elapsed;
    return this.queue(async () => {
      if (this.failure) throw this.failure;
      try {
        await this.writeAll();
      } catch (err) {
        if (isEvioError(err, 'IOLOG_WRITE')) this.failure ??= err;
        throw err;
      }
      return point;
    });
  }

  async finish(exit: ExitInfo): Promise<void> {
    this.usable();
    checkExit(exit);
    this.state = 'ending';
    try {
      await this.queue(async () => {
        await Promise.all(this.files().map((f) => f.end()));
        const json = this.logJsonBytes ?? readSessionFile(this.handle, 'log.json');
        if (json !== null) {
          await writeFileAtomic(this.handle, 'log.json', withExit(json, exit, this.handle.shown('log.json')), this.s.fileMode);
          await this.handle.sync();
        }
        // The completion marker, last: every write bit of timing cleared (logsrvd: iolog_mode & ~0222).
        try {
          fchmodSync(this.timing.descriptor, this.s.fileMode & ~0o222);
        } catch (err) {
          throw evioError('IOLOG_WRITE', `cannot mark ${this.handle.shown('timing')} complete: ${(err as Error).message}`, err);
        }
        await this.timing.fsyncAll();
      });
      this.state = 'finished';
    } catch (err) {
      this.state = 'closed';
      throw err;
    } finally {
      await this.release();
    }
  }

  async close(): Promise<void> {
    if (this.state !== 'open') return;
    this.state = 'ending';
    try {
      await this.queue(async () => {
        if (this.failure) return;
        await Promise.all(this.files().map((f) => f.end()));
      });
    } finally {
      this.state = 'closed';
      await this.release();
    }
  }

  private async release(): Promise<void> {
    for (const f of this.files()) f.close();
    await this.handle.close();
    openSessions.delete(this.dir);
  }
}

function checkExit(exit: ExitInfo): void {
  if (!exit || typeof exit !== 'object' || !Number.isInteger(exit.exitValue)) throw evioError('IOLOG_BAD_RECORD', `exit value ${String(exit?.exitValue)} is not a whole number`);
  if (exit.runTime !== undefined) checkTimeSpec(exit.runTime, 'run time');
  if (exit.signal !== undefined && typeof exit.signal !== 'string') throw evioError('IOLOG_BAD_RECORD', 'the exit signal must be a string');
  if (exit.error !== undefined && typeof exit.error !== 'string') throw evioError('IOLOG_BAD_RECORD', 'the exit error must be a string');
}

/** A new stream file (O_EXCL, no symlink followed) as a writer. */
function createStreamFile(dir: DirHandle, name: string, s: WriterSettings): OutputFile {
  let fd: number;
  try {
    fd = openSync(dir.at(name), C.O_WRONLY | C.O_CREAT | C.O_EXCL | NOFOLLOW | NONBLOCK, s.fileMode);
  } catch (err) {
    throw evioError('IOLOG_WRITE', `cannot create ${dir.shown(name)}: ${(err as Error).message}`, err);
  }
  try {
    fchmodSync(fd, s.fileMode);
  } catch (err) {
    closeSync(fd);
    throw evioError('IOLOG_WRITE', `cannot set the mode of ${dir.shown(name)}: ${(err as Error).message}`, err);
  }
  return new OutputFile(dir.shown(name), fd, s.compress, 0, s.level);
}

/** The root whose path is a prefix of `comps` (the longest; the path as configured or its real path). */
function pickRoot(roots: readonly string[], comps: readonly string[]): { root: string; depth: number } | null {
  let best: { root: string; depth: number } | null = null;
  for (const root of roots) {
    for (const form of new Set([root, realOrNull(root) ?? root])) {
      const rc = form.split('/').filter(Boolean);
      if (rc.length <= comps.length && rc.every((c, i) => comps[i] === c) && (!best || rc.length > best.depth)) best = { root, depth: rc.length };
    }
  }
  return best;
}

function templateValues(a: AcceptInfo): TemplateValues {
  const slash = a.command.lastIndexOf('/');
  return {
    user: a.submituser,
    group: a.submitgroup,
    runas_user: a.runuser,
    // logsrvd fails the session when a template names %{runas_group} and sudo sent no rungroup; evio says "unknown".
    runas_group: a.rungroup ?? 'unknown',
    hostname: a.submithost,
    command: slash >= 0 ? a.command.slice(slash + 1) : a.command,
  };
}

/**
 * Claims `name` in `parent` as a new session directory: created, or an existing empty one, in
 * which `timing` is then created with O_EXCL (of two writers racing for it, one wins). Null when
 * it is taken (not empty, not a directory, a symlink, or lost to a racing writer).
 */
async function claim(parent: DirHandle, name: string, s: WriterSettings): Promise<{ dir: DirHandle; timingFd: number } | null> {
  let entered;
  try {
    entered = await enterDir(parent, name, s.dirMode);
  } catch (err) {
    if (isEvioError(err, 'IOLOG_PATH_UNSAFE')) return null;
    throw err;
  }
  const dir = entered.handle;
  let ok = false;
  try {
    if (!entered.created && !isEmptyDir(dir)) return null;
    let fd: number;
    try {
      fd = openSync(dir.at('timing'), C.O_WRONLY | C.O_CREAT | C.O_EXCL | NOFOLLOW | NONBLOCK, s.fileMode);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return null;
      throw evioError('IOLOG_WRITE', `cannot create ${dir.shown('timing')}: ${(err as Error).message}`, err);
    }
    try {
      fchmodSync(fd, s.fileMode);
      if (!entered.created) chmodSync(dir.self, s.dirMode);
    } catch (err) {
      closeSync(fd);
      throw evioError('IOLOG_WRITE', `cannot set the mode of ${dir.shown('timing')}: ${(err as Error).message}`, err);
    }
    ok = true;
    return { dir, timingFd: fd };
  } finally {
    if (!ok) await dir.close();
  }
}

export async function createIologSession(opts: IologWriterOptions, submitTime: TimeSpec, info: ReadonlyMap<string, InfoValue>, extra?: Record<string, unknown>): Promise<IologSession> {
  const s = writerSettings(opts);
  checkTimeSpec(submitTime, 'submit time');
  const accept = readAcceptInfo(info);
  const values = templateValues(accept);
  const time = brokenDown(submitTime.sec, s.timeZone);
  const dirPath = expandTemplate(s.dirTemplate, values, time);
  const dirComps = pathComponents(dirPath, dirPath);
  const picked = pickRoot(s.roots, dirComps);
  if (!picked) throw evioError('IOLOG_TEMPLATE_INVALID', `the I/O log directory ${JSON.stringify(dirPath)} (template ${JSON.stringify(s.dirTemplate.source)}) is not inside iologdirs (${s.roots.join(', ')})`);
  const relDir = dirComps.slice(picked.depth);
  const { real: rootReal, handle: rootHandle } = await openRoot(picked.root, s.dirMode);
  let ioDir: DirHandle | null = null;
  try {
    ioDir = await descend(rootHandle, relDir, s.dirMode);
    const ioDirReal = join(rootReal, ...relDir);
    const t = s.fileTemplate;
    const attempts = t.trailingX > 0 ? RANDOM_ATTEMPTS : t.usesSeq ? Math.min(SEQ_ATTEMPTS, s.maxSeq - 1) : 1;
    for (let attempt = 0; attempt < attempts; attempt++) {
      const seq = t.usesSeq ? await nextSeq(ioDir, ioDirReal, { maxSeq: s.maxSeq, fileMode: s.fileMode, lockTimeoutMs: s.lockTimeoutMs, reserve: s.seqReserve }) : undefined;
      const expanded = expandTemplate(t, { ...values, seq: seq === undefined ? undefined : splitSeq(seq) }, time);
      const filePath = fillTrailingX(expanded, t.trailingX);
      const comps = pathComponents(filePath, `${dirPath}/${filePath}`);
      if (comps.length === 0) throw evioError('IOLOG_PATH_UNSAFE', `the file template ${JSON.stringify(t.source)} gives an empty session path for this session`);
      const parent = await descend(ioDir, comps.slice(0, -1), s.dirMode);
      let claimed;
      try {
        claimed = await claim(parent, comps[comps.length - 1]!, s);
      } finally {
        if (parent !== ioDir) await parent.close();
      }
      if (claimed) {
        const relPath = [...relDir, ...comps].join('/');
        return await setUp(claimed.dir, claimed.timingFd, join(rootReal, relPath), relPath, s, submitTime, accept, extra);
      }
      if (!t.usesSeq && t.trailingX === 0) break;
    }
    throw evioError('IOLOG_SESSION_EXISTS', t.usesSeq || t.trailingX > 0 ? `no free session directory under ${ioDirReal} after ${attempts} names (template ${JSON.stringify(t.source)})` : `${join(ioDirReal, expandTemplate(t, values, time))} already exists and is not empty; evio never writes into an existing session (add %{seq} or XXXXXX to the file template)`);
  } finally {
    if (ioDir && ioDir !== rootHandle) await ioDir.close();
    await rootHandle.close();
  }
}

/** Writes log.json and log, creates the streams logsrvd creates at Accept; undoes the claim on failure. */
async function setUp(dir: DirHandle, timingFd: number, real: string, relPath: string, s: WriterSettings, submitTime: TimeSpec, accept: AcceptInfo, extra: Record<string, unknown> | undefined): Promise<IologSession> {
  const timing = new OutputFile(dir.shown('timing'), timingFd, s.compress, 0, s.level);
  const streams: (OutputFile | null)[] = [null, null, null, null, null];
  openSessions.add(real);
  try {
    const json = Buffer.from(logJson(submitTime, accept, extra), 'utf8');
    // The directory was just claimed (its timing file created with O_EXCL): its files are new.
    await writeNewFiles(dir, [{ name: 'log.json', data: json }, { name: 'log', data: Buffer.from(legacyLog(submitTime, accept), 'utf8') }], s.fileMode);
    for (const i of CREATED_AT_ACCEPT) streams[i] = createStreamFile(dir, STREAM_NAMES[i]!, s);
    await dir.sync();
    return new SessionWriter(dir, real, relPath, s, timing, streams, { sec: 0, nsec: 0 }, json);
  } catch (err) {
    timing.close();
    for (const f of streams) f?.close();
    for (const name of ['log', 'log.json', 'timing', ...STREAM_NAMES]) {
      try {
        unlinkSync(dir.at(name));
      } catch {
        // not created
      }
    }
    await dir.close();
    try {
      rmdirSync(real);
    } catch {
      // something else is in it: leave it
    }
    openSessions.delete(real);
    throw err;
  }
}

export async function reopenIologSession(opts: IologWriterOptions, dir: string, resumePoint: TimeSpec): Promise<IologSession> {
  const s = writerSettings(opts);
  checkTimeSpec(resumePoint, 'resume point');
  const real = resolveInsideRoots(s.roots, dir, 'I/O log session');
  const root = s.roots.map((r) => realOrNull(r) ?? r).filter((r) => inside(r, real) && r !== real).sort((a, b) => b.length - a.length)[0];
  if (root === undefined) throw evioError('IOLOG_NOT_A_SESSION', `${dir} is an I/O log root, not a session directory`);
  if (openSessions.has(real)) throw evioError('IOLOG_SESSION_IN_USE', `${real} is still open for writing in this process`);
  openSessions.add(real);
  let handle: DirHandle | null = null;
  const fds: number[] = [];
  const writers: OutputFile[] = [];
  const prepared: PreparedCut[] = [];
  let committed = false;
  try {
    handle = await DirHandle.open(real, { at: real });
    const h = handle;
    const open = (name: string): number | null => {
      try {
        const fd = openSync(h.at(name), C.O_RDWR | NOFOLLOW | NONBLOCK);
        fds.push(fd);
        return fd;
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') return null;
        if (code === 'ELOOP') throw evioError('IOLOG_PATH_UNSAFE', `${h.shown(name)} is a symbolic link; the session is not resumed`);
        throw evioError('IOLOG_WRITE', `cannot open ${h.shown(name)}: ${(err as Error).message}`, err);
      }
    };
    const timingFd = open('timing');
    if (timingFd === null) throw evioError('IOLOG_NOT_A_SESSION', `${real} has no timing file`);
    if ((fstatSync(timingFd).mode & 0o200) === 0) throw evioError('IOLOG_SESSION_COMPLETE', `${real} is complete (its timing file has no write bit); it cannot be resumed`);
    const cut = await findCut(join(real, 'timing'), resumePoint);
    const cutOpts = { compress: s.compress, level: s.level, fileMode: s.fileMode };
    // Every file checked (and gzip ones deflated again) before any is cut: a refusal cuts nothing.
    prepared.push(await prepareCut(h, real, 'timing', timingFd, cut.timing, cutOpts));
    const streamAt: number[] = [];
    for (let i = 0; i < STREAM_NAMES.length; i++) {
      const name = STREAM_NAMES[i]!;
      const fd = open(name);
      if (fd === null) {
        if (cut.streams[i]! > 0) throw evioError('IOLOG_RESUME_POINT', `${h.shown(name)} is missing, but the records up to the resume point use ${cut.streams[i]} bytes of it`);
        continue;
      }
      streamAt[prepared.length] = i;
      prepared.push(await prepareCut(h, real, name, fd, cut.streams[i]!, cutOpts));
    }
    // timing first: what it no longer names, readers ignore.
    const streams: (OutputFile | null)[] = [null, null, null, null, null];
    let timing: OutputFile | null = null;
    for (let k = 0; k < prepared.length; k++) {
      const w = prepared[k]!.commit();
      writers.push(w);
      if (k === 0) timing = w;
      else streams[streamAt[k]!] = w;
    }
    committed = true;
    await h.sync();
    // Descriptors now belong to the writers (a rewritten gzip file has a new one; its old one is closed here).
    const kept = new Set(writers.map((w) => w.descriptor));
    for (const fd of fds) if (!kept.has(fd)) closeSync(fd);
    const relPath = real.slice(root.length + 1);
    return new SessionWriter(h, real, relPath, s, timing!, streams, cut.elapsed, null);
  } catch (err) {
    if (!committed) for (const p of prepared) p.abort();
    const kept = new Set(writers.map((w) => w.descriptor));
    for (const w of writers) w.close();
    for (const fd of fds) if (!kept.has(fd)) closeSync(fd);
    await handle?.close();
    openSessions.delete(real);
    throw err;
  }
}
