// The %{seq} counter: `<iolog dir>/seq`, exactly 7 bytes, six base-36 upper-case digits and
// "\n", holding the last ID used (sudo's iolog_nextid in lib/iolog/iolog_nextid.c). Taking the
// next ID: lock, read (missing or empty: 0; unreadable as base 36, or >= maxSeq: 0, as sudo),
// add one, wrap past maxSeq - 1 to 1, write. Differences from sudo, for evio never losing data:
// - the lock is evio's file lock (src/common/file-lock.ts: `seq.lock` beside it, held across
//   processes, taken over from a dead holder), not an fcntl lock on seq itself, so evio and a
//   sudo_logsrvd must not share a directory;
// - the new value is written to a scratch file, fdatasync'ed and renamed over seq, so a crash
//   leaves the old or the new value, never a broken one (a broken one would restart the count);
// - wrapping never reuses a session: the caller skips IDs whose directory is taken;
// - with `reserve` (the log server: 15), a process takes that many IDs ahead under one lock and
//   one write (seq then holds the last ID taken, not yet used) and hands them out in order from
//   memory: a lock round trip and an fsync per session were most of a session's creation time
//   (8 ms of 10 measured). A process that ends leaves the IDs it had not used as a gap in the
//   numbering; IDs stay unique across processes.
import { closeSync, constants as C, fdatasync, fstatSync, openSync, readSync, renameSync, unlinkSync, writeSync, fchmodSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FileLock } from '../../common/file-lock.js';
import { evioError, isEvioError } from '../../errors.js';
import type { DirHandle } from '../../safe-open.js';

const fdatasyncAsync = promisify(fdatasync);
const NOFOLLOW = C.O_NOFOLLOW ?? 0;
const NONBLOCK = C.O_NONBLOCK ?? 0;

/** sudo's default and largest maxseq: 36^6 (IDs 000001 ... ZZZZZZ). */
export const MAX_SEQ = 36 ** 6;

/** Six base-36 upper-case digits. */
export function formatSeq(id: number): string {
  return (id % MAX_SEQ).toString(36).toUpperCase().padStart(6, '0');
}

/** "000001" -> "00/00/01", what %{seq} expands to. */
export function splitSeq(id6: string): string {
  return `${id6.slice(0, 2)}/${id6.slice(2, 4)}/${id6.slice(4, 6)}`;
}

/** The last ID a seq file's bytes hold: 0 when empty, not base 36, or not below maxSeq. */
export function parseSeq(bytes: Uint8Array, maxSeq: number): number {
  let text = Buffer.from(bytes).toString('latin1');
  if (text.endsWith('\n')) text = text.slice(0, -1);
  if (!/^[0-9A-Za-z]{1,12}$/.test(text)) return 0;
  const v = parseInt(text, 36);
  return Number.isSafeInteger(v) && v < maxSeq ? v : 0;
}

/** The ID after `last`: last + 1, wrapping to 1 at maxSeq. */
export function seqAfter(last: number, maxSeq: number): number {
  const next = last + 1;
  return next >= maxSeq ? 1 : next;
}

function readSeq(dir: DirHandle): Buffer {
  let fd: number;
  try {
    fd = openSync(dir.at('seq'), C.O_RDONLY | NOFOLLOW | NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return Buffer.alloc(0);
    throw evioError('IOLOG_WRITE', `cannot read ${dir.shown('seq')}: ${(err as Error).message}`, err);
  }
  try {
    if (!fstatSync(fd).isFile()) throw evioError('IOLOG_WRITE', `${dir.shown('seq')} is not a regular file`);
    const buf = Buffer.alloc(32);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

async function writeSeq(dir: DirHandle, id6: string, mode: number): Promise<void> {
  const tmp = `seq.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  let fd = -1;
  try {
    fd = openSync(dir.at(tmp), C.O_WRONLY | C.O_CREAT | C.O_EXCL | NOFOLLOW, mode);
    fchmodSync(fd, mode);
    const data = Buffer.from(`${id6}\n`, 'latin1');
    let off = 0;
    while (off < data.length) off += writeSync(fd, data, off, data.length - off, off);
    await fdatasyncAsync(fd);
    closeSync(fd);
    fd = -1;
    renameSync(dir.at(tmp), dir.at('seq'));
  } catch (err) {
    if (fd >= 0) closeSync(fd);
    try {
      unlinkSync(dir.at(tmp));
    } catch {
      // not there
    }
    throw isEvioError(err) ? err : evioError('IOLOG_WRITE', `cannot write ${dir.shown('seq')}: ${(err as Error).message}`, err);
  }
}

export interface SeqOptions {
  maxSeq: number;
  fileMode: number;
  lockTimeoutMs: number;
  /** IDs to take ahead per lock (0: seq holds the last ID used, as sudo keeps it). */
  reserve: number;
}

/**
 * Takes `n` IDs under one lock: read the last, count on, write the new last once (one fsync for
 * the lot).
 */
async function allocate(dir: DirHandle, dirPath: string, n: number, opts: SeqOptions): Promise<string[]> {
  const lock = new FileLock(join(dirPath, 'seq'), { timeoutMs: opts.lockTimeoutMs });
  let held;
  try {
    held = await lock.acquire(undefined, dir);
  } catch (err) {
    if (isEvioError(err, 'STORE_LOCK_TIMEOUT')) throw evioError('IOLOG_SEQ_LOCK_TIMEOUT', err.message.replace(/^\d+ /, ''), err);
    throw isEvioError(err) ? err : evioError('IOLOG_WRITE', `cannot lock ${dir.shown('seq')}: ${(err as Error).message}`, err);
  }
  try {
    const ids: string[] = [];
    let id = parseSeq(readSeq(dir), opts.maxSeq);
    for (let i = 0; i < n; i++) {
      id = seqAfter(id, opts.maxSeq);
      ids.push(formatSeq(id));
    }
    await writeSeq(dir, ids[ids.length - 1]!, opts.fileMode);
    return ids;
  } finally {
    await held.release();
  }
}

interface Waiter {
  dir: DirHandle;
  resolve: (id6: string) => void;
  reject: (err: unknown) => void;
}

/** Callers of this process waiting for an ID, per counter; served in batches. */
const queues = new Map<string, Waiter[]>();

/** IDs taken beyond a batch's need, per counter, handed out in order before the counter is locked again. */
const reserved = new Map<string, string[]>();

/** Serves the queue of `key` until it is empty: each batch is every caller that came meanwhile. */
async function serve(key: string, queue: Waiter[], opts: SeqOptions): Promise<void> {
  while (queue.length > 0) {
    // IDs taken ahead earlier go first, in order.
    const pool = reserved.get(key) ?? [];
    while (queue.length > 0 && pool.length > 0) queue.shift()!.resolve(pool.shift()!);
    if (queue.length === 0) break;
    const batch = queue.splice(0, queue.length);
    try {
      // A directory handle of this batch: its owner awaits the answer, so it is still open.
      const ids = await allocate(batch[0]!.dir, key, batch.length + opts.reserve, opts);
      batch.forEach((w, i) => w.resolve(ids[i]!));
      reserved.set(key, [...(reserved.get(key) ?? []), ...ids.slice(batch.length)]);
    } catch (err) {
      for (const w of batch) w.reject(err);
    }
  }
  queues.delete(key);
}

/**
 * Takes the next ID of the counter in `dir` (held open at real path `dirPath`): six base-36
 * digits. Concurrent callers, in this process or others, get distinct IDs; those of this
 * process that come while the counter is locked are served together, under one lock and one
 * write of seq, so a burst of sessions does not queue on one fsync each.
 */
export function nextSeq(dir: DirHandle, dirPath: string, opts: SeqOptions): Promise<string> {
  const pool = reserved.get(dirPath);
  const ready = queues.has(dirPath) ? undefined : pool?.shift();
  if (ready !== undefined) return Promise.resolve(ready);
  return new Promise((resolve, reject) => {
    let queue = queues.get(dirPath);
    const start = queue === undefined;
    if (!queue) {
      queue = [];
      queues.set(dirPath, queue);
    }
    queue.push({ dir, resolve, reject });
    if (start) void serve(dirPath, queue, opts);
  });
}
