// Opening what a request names without the race of "check a path, then open it by name".
//
// resolveInsideRoots (paths.ts) checks a resolved path; between that check and an open() by
// name a directory on the way can be swapped for a symlink, and O_NOFOLLOW guards only the last
// component. Node has no openat(), so on Linux the defence is:
// - open with O_NOFOLLOW | O_NONBLOCK | O_NOCTTY (libuv adds O_CLOEXEC): a FIFO or device node
//   never blocks the open (and so never a thread of the pool), a terminal never becomes ours;
// - ask the kernel where the descriptor lies (readlink of /proc/self/fd/N: the path of the very
//   inode opened, with no symlink in it) and refuse it unless that is the checked real path
//   (PATH_CHANGED). A file renamed over meanwhile reads as "P (deleted)": that open is retried;
// - fstat the descriptor and refuse anything but a regular file (or a directory where one is
//   expected) before a single byte is read (NOT_A_REGULAR_FILE);
// - names created, renamed or removed beside a file (scratch files, locks, tombstones) go
//   through a DirHandle: the directory opened and checked the same way, every name addressed as
//   /proc/self/fd/<dirfd>/<name>, which the kernel looks up in that directory inode instead of
//   walking the path again.
// All of this is per open, never per read. Without /proc (not Linux, or not mounted) the check
// falls back to realpath() of the name plus a dev/ino comparison with the descriptor, and
// DirHandle names are plain paths: that narrows the window to the time between those calls but
// does not close it (docs/security.md).
import { closeSync, constants as C, fstatSync, fsync, openSync, readlinkSync, realpathSync, statSync, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { evioError } from './errors.js';

const NOFOLLOW = C.O_NOFOLLOW ?? 0;
const NONBLOCK = C.O_NONBLOCK ?? 0;
const NOCTTY = C.O_NOCTTY ?? 0;
const DIRECTORY = C.O_DIRECTORY ?? 0;

/** Flags for openChecked (O_NOFOLLOW, O_NONBLOCK and O_NOCTTY are added by it). */
export const OPEN_READ = C.O_RDONLY;
/** fopen "a+": read, append, create. */
export const OPEN_APPEND = C.O_RDWR | C.O_APPEND | C.O_CREAT;
/** fopen "wx": a new file, never an existing one (nor a symlink's target). */
export const OPEN_CREATE_NEW = C.O_WRONLY | C.O_CREAT | C.O_EXCL;

const fsyncFd = promisify(fsync);

let procFd: boolean | null = null;

/** Whether /proc/self/fd tells where a descriptor lies (Linux with /proc mounted). */
export function hasProcFd(): boolean {
  if (procFd === null) {
    try {
      procFd = statSync('/proc/self/fd').isDirectory();
    } catch {
      procFd = false;
    }
  }
  return procFd;
}

export type OpenKind = 'file' | 'directory';

export interface OpenCheckedOptions {
  /** The real path the descriptor must lie at once open; null: no check (a path the local operator gave). */
  at: string | null;
  /** Follow a symlink as the last component (only for the operator's own paths). Default false. */
  follow?: boolean;
  mode?: number;
  /** The name in messages; default the path opened. */
  shown?: string;
}

function describeType(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

function notRegular(shown: string, what: string, kind: OpenKind): Error {
  return evioError('NOT_A_REGULAR_FILE', `${shown} is ${what}, not a ${kind === 'file' ? 'regular file' : 'directory'}; it is not opened`);
}

type Where = 'there' | 'deleted' | 'elsewhere';

/** Whether the open descriptor `fd` (with fstat `st`) lies at the real path `at`. */
function whereIs(fd: number, st: Stats, at: string): Where {
  if (hasProcFd()) {
    let p: string;
    try {
      p = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      return 'elsewhere';
    }
    if (p === at) return 'there';
    return p === `${at} (deleted)` ? 'deleted' : 'elsewhere';
  }
  try {
    if (realpathSync(at) !== at) return 'elsewhere';
    const now = statSync(at);
    return now.dev === st.dev && now.ino === st.ino ? 'there' : 'elsewhere';
  } catch {
    return 'deleted';
  }
}

/** Opens replaced by a rename between open and check are retried this many times. */
const REOPENS = 3;

function allFlags(flags: number, kind: OpenKind, follow: boolean | undefined): number {
  return flags | NONBLOCK | NOCTTY | (follow ? 0 : NOFOLLOW) | (kind === 'directory' ? DIRECTORY : 0);
}

/** An error of open() itself, as the caller should see it. */
function openError(err: unknown, kind: OpenKind, opts: OpenCheckedOptions, shown: string): unknown {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EISDIR') return notRegular(shown, 'a directory', kind);
  if (code === 'ENXIO') return notRegular(shown, 'a FIFO or socket', kind);
  // A directory checked at `at` that is a symlink or a file now was swapped since the check.
  if (kind === 'directory' && opts.at !== null && (code === 'ELOOP' || code === 'ENOTDIR')) {
    return evioError('PATH_CHANGED', `${shown} is no longer the directory that was checked (replaced by a symlink or a file); it was not used`);
  }
  return err;
}

/**
 * The checks on a freshly opened descriptor: 'reopen' when the file was renamed over meanwhile;
 * throws PATH_CHANGED or NOT_A_REGULAR_FILE. Only syscalls that never wait on I/O or a peer.
 */
function checkOpened(fd: number, kind: OpenKind, opts: OpenCheckedOptions, shown: string, attempt: number): 'ok' | 'reopen' {
  const st = fstatSync(fd);
  // Where first: the type of something outside the roots is none of the caller's business.
  if (opts.at !== null) {
    const where = whereIs(fd, st, opts.at);
    if (where === 'deleted' && attempt < REOPENS) return 'reopen';
    if (where !== 'there') {
      throw evioError('PATH_CHANGED', `${shown} was replaced or moved while it was opened (a directory on its path changed); it was not used`);
    }
  }
  if (kind === 'file' ? !st.isFile() : !st.isDirectory()) throw notRegular(shown, describeType(st), kind);
  return 'ok';
}

/**
 * Opens `path` with `flags` plus O_NOFOLLOW (unless `follow`), O_NONBLOCK and O_NOCTTY, checks
 * that the descriptor lies at `opts.at` (PATH_CHANGED) and is of `kind` (NOT_A_REGULAR_FILE),
 * and only then returns it. Errors of open() itself are thrown as they are (ENOENT, ELOOP for a
 * symlink, EACCES, ...), except EISDIR and ENXIO (a directory opened for writing, a socket, a
 * FIFO opened for writing without reader): NOT_A_REGULAR_FILE; and a checked directory that
 * turned into a symlink or file (ELOOP, ENOTDIR): PATH_CHANGED.
 */
export async function openChecked(path: string, flags: number, kind: OpenKind, opts: OpenCheckedOptions): Promise<FileHandle> {
  const shown = opts.shown ?? path;
  const all = allFlags(flags, kind, opts.follow);
  for (let attempt = 1; ; attempt++) {
    let fh: FileHandle;
    try {
      fh = await open(path, all, opts.mode);
    } catch (err) {
      throw openError(err, kind, opts, shown);
    }
    let keep = false;
    try {
      if (checkOpened(fh.fd, kind, opts, shown, attempt) === 'reopen') continue;
      keep = true;
      return fh;
    } finally {
      if (!keep) await fh.close().catch(() => undefined);
    }
  }
}

/**
 * openChecked for a directory, synchronously, as a plain descriptor. Opening a directory with
 * O_DIRECTORY | O_NONBLOCK cannot wait on a peer, and walks open one per directory: a pool
 * round trip for each would double a walk's time.
 */
function openDirectorySync(path: string, opts: OpenCheckedOptions): number {
  const shown = opts.shown ?? path;
  const all = allFlags(OPEN_READ, 'directory', opts.follow);
  for (let attempt = 1; ; attempt++) {
    let fd: number;
    try {
      fd = openSync(path, all);
    } catch (err) {
      throw openError(err, 'directory', opts, shown);
    }
    let keep = false;
    try {
      if (checkOpened(fd, 'directory', opts, shown, attempt) === 'reopen') continue;
      keep = true;
      return fd;
    } finally {
      if (!keep) closeSync(fd);
    }
  }
}

/**
 * A directory held open, so that names in it are created, renamed and removed in this very
 * directory inode even if its path is changed meanwhile (an openat() for Node). Close it.
 */
export class DirHandle {
  private constructor(
    /** The directory's path, for messages and the fallback without /proc. */
    readonly path: string,
    private fd: number,
    private readonly follow: boolean,
  ) {}

  /**
   * Opens the directory `path`; with `at`, it must lie exactly there (PATH_CHANGED). `follow`
   * lets the last component be a symlink (the local operator's own paths only).
   */
  static async open(path: string, opts: { at: string | null; follow?: boolean }): Promise<DirHandle> {
    const follow = opts.follow ?? false;
    return new DirHandle(path, openDirectorySync(path, { at: opts.at, follow }), follow);
  }

  /** This directory as a path that the kernel resolves to the held inode. */
  get self(): string {
    return hasProcFd() ? `/proc/self/fd/${this.fd}` : this.path;
  }

  /** `name` (one component) inside the held directory, as a path for fs calls. */
  at(name: string): string {
    return hasProcFd() ? `/proc/self/fd/${this.fd}/${name}` : join(this.path, name);
  }

  /** `name` as the user knows it, for messages. */
  shown(name: string): string {
    return join(this.path, name);
  }

  /** Opens `name` in this directory (see openChecked; no symlink followed unless the handle follows). */
  openFile(name: string, flags: number, mode?: number): Promise<FileHandle> {
    const opts: OpenCheckedOptions = { at: null, follow: this.follow, shown: this.shown(name) };
    if (mode !== undefined) opts.mode = mode;
    return openChecked(this.at(name), flags, 'file', opts);
  }

  /** The subdirectory `name`, opened through this one; a symlink there is refused (ELOOP/ENOTDIR). */
  async openDir(name: string): Promise<DirHandle> {
    return new DirHandle(this.shown(name), openDirectorySync(this.at(name), { at: null, shown: this.shown(name) }), false);
  }

  /** fsync of the directory, so that a rename in it is durable. */
  async sync(): Promise<void> {
    try {
      await fsyncFd(this.fd);
    } catch (err) {
      // Some filesystems refuse fsync on a directory; the rename itself is still atomic.
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EINVAL' && code !== 'EISDIR') throw err;
    }
  }

  async close(): Promise<void> {
    if (this.fd < 0) return;
    const fd = this.fd;
    this.fd = -1;
    closeSync(fd);
  }
}
