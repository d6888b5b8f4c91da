// The writer lock of a flat-file event log: appends, filter-deletes and rotation of `<file>` all
// hold `<file>.lock`. It works across processes on local filesystems, with no daemon:
// - acquire = create the lock file atomically with its whole content (written to a private file,
//   then link()ed into place, which fails if the lock exists), so a lock file is never seen
//   half-written;
// - the content names the holder: pid, hostname, the process's start time (pid reuse) and a
//   unique token; the private file's name carries pid and a tag of the host, so that what a
//   killed process leaves can be cleaned (rewrite.ts, cleanupStaleFiles);
// - a waiter retries with backoff until lockTimeoutMs, then STORE_LOCK_TIMEOUT naming the holder;
// - a lock whose holder is dead on this host is taken over. Taking over must not remove a live
//   lock that replaced the dead one meanwhile, so the remover first wins `<lock>.<token>.steal`
//   (created the same atomic way: only one process can steal a given generation), re-reads the
//   lock, and unlinks it only if it still carries the dead holder's token. A stealer that dies
//   holding its steal file is taken over the same way, one level up.
// Within one process, holders of the same path also queue on a promise chain (no polling).
// A writer that holds its log's directory open passes it (DirHandle): every lock file is then
// created, read and removed in that directory inode, never through a path that may have been
// swapped for a symlink since (safe-open.ts). A lock file is read without following a symlink
// and without blocking: anything but a regular file there is an unreadable lock.
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { link, lstat, open, unlink, type FileHandle } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, resolve } from 'node:path';
import { evioError, isEvioError } from '../errors.js';
import { openChecked, OPEN_READ, type DirHandle } from '../safe-open.js';

export interface LockInfo {
  pid: number;
  host: string;
  /** When the lock was taken, ms since the epoch (for messages). */
  since: number;
  /** The holder's process start time (Linux /proc/PID/stat field 22), to tell a reused pid. */
  procStart: string | null;
  token: string;
}

export interface HeldLock {
  readonly info: LockInfo;
  /** The lock of a dead holder was taken over to get this one. */
  readonly tookOver: boolean;
  release(): Promise<void>;
}

export interface FileLockOptions {
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

const STEAL_DEPTH = 3;
const MAX_BACKOFF_MS = 100;
/** A lock file whose content cannot be read is stale after this long (not written by evio). */
const UNREADABLE_STALE_MS = 10_000;

const host = hostname();
/** Names this host in scratch file names (`<lock>.<pid>.<hostTag>.<token>.new`). */
export const HOST_TAG = createHash('sha256').update(host).digest('hex').slice(0, 8);

/** Start time of a process on this host, or null when unknown (not Linux, or no such process). */
export function processStartTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null; // field 22 overall; fields after "pid (comm)" start at field 3
  } catch {
    return null;
  }
}

/** True while a process with this pid exists (EPERM: it exists, owned by someone else). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** True when the holder is a process of this host that no longer runs. */
export function holderIsDead(info: LockInfo): boolean {
  if (info.host !== host) return false;
  if (!pidAlive(info.pid)) return true;
  if (info.procStart === null) return false;
  const now = processStartTime(info.pid);
  return now !== null && now !== info.procStart;
}

function newInfo(): LockInfo {
  return { pid: process.pid, host, since: Date.now(), procStart: processStartTime(process.pid), token: randomBytes(12).toString('hex') };
}

function parseInfo(text: string): LockInfo | null {
  try {
    const v = JSON.parse(text) as Partial<LockInfo>;
    if (typeof v.pid === 'number' && typeof v.host === 'string' && typeof v.token === 'string') {
      return { pid: v.pid, host: v.host, since: typeof v.since === 'number' ? v.since : 0, procStart: typeof v.procStart === 'string' ? v.procStart : null, token: v.token };
    }
  } catch {
    // fall through
  }
  return null;
}

type ReadResult = { kind: 'missing' } | { kind: 'held'; info: LockInfo } | { kind: 'unreadable'; token: string; ageMs: number };

/** Lock files are small; a bigger one was not written by evio (read as unreadable). */
const LOCK_MAX_BYTES = 4096;

async function readLock(path: string, shown = path): Promise<ReadResult> {
  let fh: FileHandle;
  try {
    fh = await openChecked(path, OPEN_READ, 'file', { at: null });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { kind: 'missing' };
    if (code === 'ELOOP' || isEvioError(err, 'NOT_A_REGULAR_FILE')) return notALockFile(path, shown);
    throw evioError('STORE_IO', `cannot read the lock ${shown}: ${(err as Error).message}`, err);
  }
  try {
    const st = await fh.stat();
    const buf = Buffer.alloc(Math.min(st.size, LOCK_MAX_BYTES));
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    const text = buf.toString('utf8', 0, bytesRead);
    const info = st.size <= LOCK_MAX_BYTES ? parseInfo(text) : null;
    if (info) return { kind: 'held', info };
    return { kind: 'unreadable', token: `unreadable-${st.ino}-${st.mtimeMs}-${text.length}`, ageMs: Date.now() - st.mtimeMs };
  } catch (err) {
    throw evioError('STORE_IO', `cannot read the lock ${shown}: ${(err as Error).message}`, err);
  } finally {
    await fh.close();
  }
}

/** A symlink, FIFO, directory ... where the lock should be: unreadable, stale after UNREADABLE_STALE_MS. */
async function notALockFile(path: string, shown: string): Promise<ReadResult> {
  try {
    const st = await lstat(path);
    return { kind: 'unreadable', token: `unreadable-${st.ino}-${st.mtimeMs}-0`, ageMs: Date.now() - st.mtimeMs };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
    throw evioError('STORE_IO', `cannot read the lock ${shown}: ${(err as Error).message}`, err);
  }
}

function tokenOf(r: ReadResult): string | null {
  return r.kind === 'held' ? r.info.token : r.kind === 'unreadable' ? r.token : null;
}

/** Creates `path` holding `info`, atomically; false when it already exists. */
async function createAtomically(path: string, info: LockInfo): Promise<boolean> {
  const text = JSON.stringify(info) + '\n';
  const tmp = `${path}.${process.pid}.${HOST_TAG}.${info.token}.new`;
  const fh = await open(tmp, 'wx', 0o644);
  try {
    await fh.writeFile(text);
  } finally {
    await fh.close();
  }
  try {
    await link(tmp, path);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'ENOSYS' || code === 'EOPNOTSUPP') return createExclusive(path, text);
    throw err;
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
}

/** Fallback where hard links are not supported: O_EXCL create, then write (a crash in between leaves an unreadable lock, stale after UNREADABLE_STALE_MS). */
async function createExclusive(path: string, text: string): Promise<boolean> {
  let fh;
  try {
    fh = await open(path, 'wx', 0o644);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    await fh.writeFile(text);
  } finally {
    await fh.close();
  }
  return true;
}

/**
 * Removes the lock at `path` if it still carries `token` (a dead or unreadable holder's), racing
 * safely with other processes doing the same. Returns whether this call removed it.
 */
async function removeStale(path: string, token: string, depth: number): Promise<boolean> {
  const stealPath = `${path}.${token}.steal`;
  const mine = newInfo();
  if (!(await createAtomically(stealPath, mine))) {
    // Another process is removing this generation; if it died doing so, take its steal over.
    const other = await readLock(stealPath);
    if (depth < STEAL_DEPTH && ((other.kind === 'held' && holderIsDead(other.info)) || (other.kind === 'unreadable' && other.ageMs > UNREADABLE_STALE_MS))) {
      await removeStale(stealPath, tokenOf(other)!, depth + 1);
    }
    return false;
  }
  try {
    const now = await readLock(path);
    if (tokenOf(now) !== token) return false;
    await unlink(path).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
    return true;
  } finally {
    await unlink(stealPath).catch(() => undefined);
  }
}

const localQueues = new Map<string, Promise<void>>();

/** Waits for this process's earlier holders of `key`; returns the function that lets the next one in. */
function localTurn(key: string): { ready: Promise<void>; done: () => void } {
  const prev = localQueues.get(key) ?? Promise.resolve();
  let done!: () => void;
  const mine = new Promise<void>((r) => (done = r));
  const tail = prev.then(() => mine);
  localQueues.set(key, tail);
  return {
    ready: prev,
    done: () => {
      done();
      if (localQueues.get(key) === tail) localQueues.delete(key);
    },
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function describe(r: ReadResult): string {
  if (r.kind === 'held') {
    const age = Math.max(0, Math.round((Date.now() - r.info.since) / 1000));
    return `pid ${r.info.pid} on ${r.info.host}, held for ${age} s`;
  }
  return r.kind === 'unreadable' ? 'a lock file that cannot be read' : 'nobody';
}

export class FileLock {
  /** The lock file: `<file>.lock`. */
  readonly lockPath: string;

  constructor(
    file: string,
    private readonly opts: FileLockOptions,
  ) {
    this.lockPath = `${resolve(file)}.lock`;
  }

  /**
   * Takes the lock, waiting up to timeoutMs; STORE_LOCK_TIMEOUT when it stays held. With `dir`
   * (the held directory of the file), the lock files live in that directory inode.
   */
  async acquire(signal?: AbortSignal, dir?: DirHandle): Promise<HeldLock> {
    const deadline = Date.now() + this.opts.timeoutMs;
    const turn = localTurn(this.lockPath);
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        turn.ready,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(evioError('STORE_LOCK_TIMEOUT', `${this.lockPath} is held by another writer of this process for more than ${this.opts.timeoutMs} ms`)), this.opts.timeoutMs);
        }),
      ]);
    } catch (err) {
      // Give our place in the queue up once it comes, so later waiters are not stuck behind us.
      void turn.ready.then(turn.done);
      throw err;
    } finally {
      clearTimeout(timer);
    }
    try {
      return await this.acquireFile(deadline, turn.done, signal ?? this.opts.signal, dir);
    } catch (err) {
      turn.done();
      throw err;
    }
  }

  /** Runs `fn` holding the lock. */
  async withLock<T>(fn: (held: HeldLock) => Promise<T>, signal?: AbortSignal, dir?: DirHandle): Promise<T> {
    const held = await this.acquire(signal, dir);
    try {
      return await fn(held);
    } finally {
      await held.release();
    }
  }

  private async acquireFile(deadline: number, localDone: () => void, signal: AbortSignal | undefined, dir: DirHandle | undefined): Promise<HeldLock> {
    const shown = this.lockPath;
    const path = dir ? dir.at(basename(shown)) : shown;
    let backoff = 2;
    let tookOver = false;
    for (;;) {
      signal?.throwIfAborted();
      const info = newInfo();
      let created: boolean;
      try {
        created = await createAtomically(path, info);
      } catch (err) {
        if (isEvioError(err)) throw err;
        throw evioError('STORE_IO', `cannot create the lock ${shown}: ${(err as Error).message}`, err);
      }
      if (created) {
        let released = false;
        return {
          info,
          tookOver,
          release: async () => {
            if (released) return;
            released = true;
            try {
              const now = await readLock(path, shown);
              if (tokenOf(now) === info.token) await unlink(path);
            } finally {
              localDone();
            }
          },
        };
      }
      const holder = await readLock(path, shown);
      if (holder.kind === 'missing') continue;
      const stale = holder.kind === 'held' ? holderIsDead(holder.info) : holder.ageMs > UNREADABLE_STALE_MS;
      if (stale) {
        if (await removeStale(path, tokenOf(holder)!, 0)) tookOver = true;
        continue;
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        throw evioError('STORE_LOCK_TIMEOUT', `${shown} is held by ${describe(holder)}; waited ${this.opts.timeoutMs} ms (lockTimeoutMs)`);
      }
      await sleep(Math.min(left, backoff + Math.random() * backoff));
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    }
  }
}
