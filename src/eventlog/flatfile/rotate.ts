// Rotation of a flat-file event log (`evio events rotate`), under the file's writer lock (the
// lock appends and deletes hold, src/eventlog/flatfile/lock.ts).
//
// The log is renamed to `<file>.<UTC yyyymmddThhmmssZ>` and a new `<file>` starts. Recnums must
// stay unique across the rotated files, and the appender numbers a record after the last recnum
// it finds at the end of the file; so the newest record moves into the new file: the rotated
// file holds recnums 1..N-1, the new one starts with N and grows from there. Every record is in
// exactly one file. Rotated files are ordinary flat files next to the log (so under
// eventlogdirs when the log is): queries name them with file=.
//
// Crash safety: the steps are 1 write the new file's first line to a temp file, 2 journal the
// plan (`<file>.rotating`), 3 hard-link the log to its rotated name, 4 rename the temp file over
// the log, 5 cut the moved record off the rotated file, 6 remove the journal. Appends and
// deletes wait on the lock meanwhile; a query sees the old file or the new one. After a kill,
// the next rotate (which any later lock holder may precede) reads the journal and either
// undoes step 3 (the rename never happened) or finishes step 5 (it did), deciding by the
// inodes and by the first recnum of the live file.
import { randomBytes } from 'node:crypto';
import { link, lstat, open, readdir, rename, stat, truncate, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { evioError } from '../../errors.js';
// From their own modules, not ./index.js: the store imports this file (family-snapshot.ts).
import { FileLock } from '../../common/file-lock.js';
import { cleanupStaleFiles } from './rewrite.js';
import { compressRotated } from './compress.js';
import { readLines } from '../import/line-source.js';
import { isStoredEvent } from '../record.js';
import { readJson, removeDurableScratch, removeFile, syncDir, writeJsonDurably } from '../../common/job-files.js';
import { readAt } from './read-at.js';

export interface RotateOptions {
  /** The flat-file event log. */
  path: string;
  /** Rotate only when the log has at least this many bytes. */
  maxSize?: number | null;
  lockTimeoutMs?: number;
  /** The clock that names the rotated file (tests). */
  now?: () => Date;
  signal?: AbortSignal;
  /** Test hook: called after each step (1-5); the kill test stops the process there. */
  onStep?: (step: number) => Promise<void> | void;
  /** Compress the rotated file into gzip members with its skip index (compress.ts), after the lock is released. */
  compress?: boolean;
  /** Where skip indexes live (settings): null = beside the files. */
  index?: { enabled: boolean; cacheDir: string | null };
}

export interface RotateResult {
  path: string;
  rotated: boolean;
  /** Why it was not rotated, or "rotated". */
  reason: string;
  rotatedTo: string | null;
  /** Bytes of the log before the rotation. */
  size: number;
  /** The record that moved into the new file; numbering continues after it. */
  carriedRecnum: number | null;
  /** What an interrupted earlier rotation needed, if one was found. */
  recovered: string | null;
  /** With compress: the .gz the rotated file became. */
  compressedTo?: string | null;
}

/** The plan a rotation journals before it renames anything (family-snapshot.ts reads it too). */
export interface RotateJournal {
  rotated: string;
  cut: number;
  carriedRecnum: number;
  tmpIno: string;
  startedAt: string;
  pid: number;
}

/** Where a rotation of `path` keeps its journal while it runs. */
export const journalPathOf = (path: string): string => `${path}.rotating`;

const ROTATED_SUFFIX = /^\d{8}T\d{6}Z(?:-\d+)?(?:\.gz)?$/;

function stampOf(d: Date): string {
  return d.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
}


async function lastNewlineBefore(fh: FileHandle, before: number): Promise<number> {
  const BLOCK = 64 * 1024;
  let end = before;
  while (end > 0) {
    const start = Math.max(0, end - BLOCK);
    const buf = await readAt(fh, end - start, start);
    const i = buf.lastIndexOf(10);
    if (i !== -1) return start + i;
    end = start;
  }
  return -1;
}

async function countLinesBefore(path: string, pos: number): Promise<number> {
  let n = 0;
  for await (const l of readLines(path, { limit: pos })) if (l.complete) n++;
  return n;
}

/** The record a line holds (recnum rule of flat files: none = its line number), or null. */
function parseEventLine(text: string, lineNumber: () => Promise<number>): Promise<{ recnum: number; lacksRecnum: boolean; value: Record<string, unknown> } | null> {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return Promise.resolve(null);
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return Promise.resolve(null);
  const rec = v as Record<string, unknown>;
  if (rec.recnum === undefined || rec.recnum === null) {
    return lineNumber().then((n) => {
      const withNum = { recnum: n, ...rec };
      return isStoredEvent(withNum) ? { recnum: n, lacksRecnum: true, value: rec } : null;
    });
  }
  return Promise.resolve(isStoredEvent(rec) ? { recnum: rec.recnum as number, lacksRecnum: false, value: rec } : null);
}

/** The last event line among the first `size` bytes: its start, the newline ending it, its record. */
async function findLastEvent(fh: FileHandle, size: number, lineNumber: (start: number) => Promise<number>): Promise<{ start: number; nl: number; ev: NonNullable<Awaited<ReturnType<typeof parseEventLine>>> } | null> {
  let nl = await lastNewlineBefore(fh, size); // a torn tail after it is not an event
  while (nl >= 0) {
    const prev = await lastNewlineBefore(fh, nl);
    const start = prev + 1;
    if (nl - start > 0 && nl - start <= 16 * 1024 * 1024) {
      let text = (await readAt(fh, nl - start, start)).toString('utf8');
      // The file's first line may follow a byte order mark, which moves along with it.
      if (start === 0 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      const ev = await parseEventLine(text, () => lineNumber(start));
      if (ev) return { start, nl, ev };
    }
    nl = prev;
  }
  return null;
}

/**
 * Where a rotation of a log whose first `size` bytes are these would cut it (the start of the
 * last event line), or null when it holds no event. Appends only add lines after it, so a later
 * rotation never cuts below this point (family-snapshot.ts relies on it).
 */
export async function lastEventStart(fh: FileHandle, size: number): Promise<number | null> {
  // Whether a line without recnum is an event does not depend on its number: no count needed.
  return (await findLastEvent(fh, size, async () => 1))?.start ?? null;
}

/** The last event line of the file: where it starts and what moves with it. */
async function lastEvent(path: string, fh: FileHandle, size: number): Promise<{ start: number; recnum: number; carried: Buffer } | null> {
  const found = await findLastEvent(fh, size, async (start) => (await countLinesBefore(path, start)) + 1);
  if (!found) return null;
  const { start, nl, ev } = found;
  const tail = await readAt(fh, size - (nl + 1), nl + 1);
  // A legacy line (no recnum) is numbered by its line: in the new file it must carry it.
  const line = ev.lacksRecnum ? Buffer.from(`${JSON.stringify({ recnum: ev.recnum, ...ev.value })}\n`) : await readAt(fh, nl + 1 - start, start);
  return { start, recnum: ev.recnum, carried: Buffer.concat([line, tail]) };
}

/** The recnum of the first event of a file, or null when it has none. */
async function firstRecnum(path: string): Promise<number | null> {
  let lineNo = 0;
  for await (const l of readLines(path)) {
    lineNo++;
    if (!l.complete || l.oversized) continue;
    const ev = await parseEventLine(l.text, async () => lineNo);
    if (ev) return ev.recnum;
  }
  return null;
}

async function inode(path: string): Promise<string | null> {
  try {
    return String((await stat(path, { bigint: true })).ino);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

async function cutFile(path: string, size: number): Promise<void> {
  await truncate(path, size);
  const fh = await open(path, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Reconciles what an interrupted rotation left (the journal names the plan). */
async function recover(path: string, jpath: string): Promise<string | null> {
  const j = await readJson<RotateJournal>(jpath);
  if (!j) return null;
  const rotIno = await inode(j.rotated);
  let what: string;
  if (rotIno === null) {
    what = `an interrupted rotation had not renamed anything; nothing to undo`;
  } else if (rotIno === (await inode(path))) {
    await unlink(j.rotated);
    await syncDir(dirname(path));
    what = `an interrupted rotation had not started the new file; ${basename(j.rotated)} was removed again (it was a second name of the log)`;
  } else if ((await stat(j.rotated)).size <= j.cut) {
    what = `an interrupted rotation to ${basename(j.rotated)} had completed`;
  } else {
    const liveIno = await inode(path);
    const first = liveIno === null ? null : await firstRecnum(path);
    if (liveIno === j.tmpIno || (first !== null && first >= j.carriedRecnum)) {
      await cutFile(j.rotated, j.cut);
      what = `an interrupted rotation to ${basename(j.rotated)} was completed (record ${j.carriedRecnum} cut off the rotated file)`;
    } else if (first !== null && first < j.carriedRecnum) {
      await unlink(j.rotated);
      await syncDir(dirname(path));
      what = `an interrupted rotation had not started the new file; ${basename(j.rotated)} was removed again`;
    } else {
      throw evioError('ROTATE_UNFINISHED', `an interrupted rotation left ${j.rotated} and ${path}, and ${path} holds no record to tell which step was reached; compare them, keep the right one and remove ${jpath}`);
    }
  }
  await removeFile(jpath);
  return what;
}

async function taken(name: string): Promise<boolean> {
  try {
    await lstat(name);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

async function freeName(path: string, d: Date): Promise<string> {
  const base = `${path}.${stampOf(d)}`;
  for (let i = 1; ; i++) {
    const name = i === 1 ? base : `${base}-${i}`;
    // Taken also when a compressed one has the name (a plain file beside it would hide it).
    if (!(await taken(name)) && !(await taken(`${name}.gz`))) return name;
  }
}

export async function rotateFlatFile(opts: RotateOptions): Promise<RotateResult> {
  const res = await rotateUnderLock(opts);
  if (!opts.compress || !res.rotated || !res.rotatedTo) return res;
  // The rotated file is no writer's any more: compressing it needs no lock.
  const c = await compressRotated(res.rotatedTo, { ...(opts.index ? { index: opts.index } : {}), ...(opts.signal ? { signal: opts.signal } : {}) });
  return { ...res, compressedTo: c.path };
}

async function rotateUnderLock(opts: RotateOptions): Promise<RotateResult> {
  const path = resolve(opts.path);
  const jpath = journalPathOf(path);
  const lock = new FileLock(path, { timeoutMs: opts.lockTimeoutMs ?? 10_000 });
  const step = async (n: number) => opts.onStep?.(n);
  return lock.withLock(async (held) => {
    if (held.tookOver) await cleanupStaleFiles(path);
    await removeDurableScratch(jpath);
    const recovered = await recover(path, jpath);
    const result: RotateResult = { path, rotated: false, reason: '', rotatedTo: null, size: 0, carriedRecnum: null, recovered };
    let fh: FileHandle;
    try {
      fh = await open(path, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { ...result, reason: 'the log does not exist' };
      throw evioError('STORE_IO', `cannot open ${path}: ${(err as Error).message}`, err);
    }
    let last: Awaited<ReturnType<typeof lastEvent>>;
    let mode: number;
    try {
      const st = await fh.stat();
      result.size = st.size;
      mode = st.mode & 0o777;
      if (opts.maxSize && result.size < opts.maxSize) return { ...result, reason: `the log has ${result.size} bytes, less than ${opts.maxSize}` };
      last = await lastEvent(path, fh, result.size);
    } finally {
      await fh.close();
    }
    if (!last) return { ...result, reason: 'the log holds no record' };
    if (last.start === 0) return { ...result, reason: 'the log holds a single record (it would move to the new file)' };
    opts.signal?.throwIfAborted();

    // 1. The new file's content, under a temp name a dead rotation's successor cleans up.
    const tmp = join(dirname(path), `${basename(path)}.tmp-rotate-${process.pid}-${randomBytes(4).toString('hex')}`);
    let renamed = false;
    let rotated: string;
    try {
      const out = await open(tmp, 'wx', 0o600);
      let tmpIno: string;
      try {
        await out.chmod(mode); // the new log keeps the old one's permissions
        await out.writeFile(last.carried);
        await out.sync();
        tmpIno = String((await out.stat({ bigint: true })).ino);
      } finally {
        await out.close();
      }
      await step(1);
      rotated = await freeName(path, opts.now?.() ?? new Date());
      // 2. The plan, before anything is renamed.
      await writeJsonDurably(jpath, { rotated, cut: last.start, carriedRecnum: last.recnum, tmpIno, startedAt: new Date().toISOString(), pid: process.pid } satisfies RotateJournal);
      await step(2);
      // 3. A second name for the log; 4. the new file takes the log's name.
      await link(path, rotated);
      await step(3);
      await rename(tmp, path);
      renamed = true;
      await syncDir(dirname(path));
      await step(4);
    } finally {
      // Recovery never needs the temp file (the journal and the rotated name say everything).
      if (!renamed) await unlink(tmp).catch(() => undefined);
    }
    // 5. The moved record off the rotated file; 6. done.
    await cutFile(rotated, last.start);
    await step(5);
    await removeFile(jpath);
    return { ...result, rotated: true, reason: 'rotated', rotatedTo: rotated, carriedRecnum: last.recnum };
  }, opts.signal);
}

/** Rotated files of a log, oldest first (their names sort by time). */
export async function listRotated(path: string): Promise<Array<{ path: string; size: number }>> {
  const abs = resolve(path);
  const base = `${basename(abs)}.`;
  let names: string[];
  try {
    names = await readdir(dirname(abs));
  } catch {
    return [];
  }
  const out: Array<{ path: string; size: number }> = [];
  // Oldest first: by time stamp, then by the -N of rotations within one second (-10 after -9).
  const order = (n: string): [string, number] => {
    const [stamp, k] = n.slice(base.length).replace(/\.gz$/, '').split('-');
    return [stamp!, k === undefined ? 1 : Number(k)];
  };
  const rotated = names.filter((n) => n.startsWith(base) && ROTATED_SUFFIX.test(n.slice(base.length)));
  rotated.sort((a, b) => {
    const [sa, ka] = order(a);
    const [sb, kb] = order(b);
    return sa < sb ? -1 : sa > sb ? 1 : ka - kb;
  });
  for (const n of rotated) {
    const p = join(dirname(abs), n);
    out.push({ path: p, size: (await stat(p)).size });
  }
  return out;
}
