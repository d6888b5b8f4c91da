// Filter-delete on a flat file = an atomic rewrite; the caller holds the writer lock (lock.ts).
// The old file is streamed into `<file>.tmp-<pid>` in the same directory without the deleted
// lines; the temp file is fsynced, renamed over the original, and the directory fsynced. A crash
// at any moment leaves either the old file or the new one under the name, never a mix; the temp
// file a crash leaves behind is removed by the next writer (cleanupStaleFiles).
//
// Which lines go (the same effect as MemoryStore.delete):
// - the records the filter matches (dump=1: as stored; dump=0: with the finish merge);
// - with dump=0, also the finish of every deleted accept (the first F after it with its
//   uniqueid). Finishes come after their accepts, so one pass suffices with a set of the
//   uniqueids of deleted accepts whose finish has not been seen yet;
// - with dump=0 and exit filters (exitstatus, exittime_*), whether an accept goes depends on
//   its finish, which may come after lines already copied. So a first pass decides: it keeps
//   the accepts waiting for their finish (at most maxOpenAccepts) and collects the byte offsets
//   of the lines to drop in a Float64Array — 8 bytes per deleted record — that the copying pass
//   walks in order.
// Kept lines are copied byte for byte, except lines without a recnum: their recnum is their line
// number, which deleting earlier lines would change, so they are written with it (recnums are
// never renumbered by a purge). Malformed lines are kept as they are.
//
// The store passes its directory held open (DirHandle): the source, the temp file, the rename
// and the cleanup all act in that directory inode, not in whatever the path names by then.
import { randomBytes } from 'node:crypto';
import { readdir, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { evioError, isEvioError } from '../../errors.js';
import { OPEN_CREATE_NEW, OPEN_READ, type DirHandle } from '../../safe-open.js';
import { admittedTypes, matchesExit, matchesRecord, mergedRow, storedRow, usesExitFilters } from '../filter.js';
import type { DeleteResult, EventFilter, StoredEvent } from '../types.js';
import { DEFAULT_MAX_LINE_BYTES, fileSource, LineReader } from './line-reader.js';
import { lacksRecnum, parseJsonLine, toStoredEvent } from './parse-line.js';
import { admittedTypeBytes, probeCanonicalPrefix, uniqueidHash, type PrefixProbe } from './prefilter.js';
import { FILE_MODE } from './append.js';
import { bomLength, UTF8_BOM } from './bom.js';
import { HOST_TAG } from '../../common/file-lock.js';

export interface RewriteOptions {
  maxOpenAccepts: number;
  signal?: AbortSignal | undefined;
  readSize?: number;
}

/** Temp files of rewrites: `<file>.tmp-<pid>-<random>`. */
export function tempPrefix(path: string): string {
  return `${basename(path)}.tmp-`;
}

/**
 * Removes what crashed writers left next to `path`: rewrite temp files (only a lock holder
 * creates one, and the caller holds the lock, so every one found is stale) and lock scratch
 * files of dead processes. With `held` (the directory of `path`, held open), in that directory.
 */
export async function cleanupStaleFiles(path: string, held?: DirHandle): Promise<string[]> {
  const base = basename(path);
  const nameIn = held ? (n: string) => held.at(n) : (n: string) => join(dirname(path), n);
  const removed: string[] = [];
  let names: string[];
  try {
    names = await readdir(held ? held.self : dirname(path));
  } catch {
    return removed;
  }
  for (const name of names) {
    let stale = name.startsWith(`${base}.tmp-`);
    // Lock scratch files (`<lock>...<pid>.<hostTag>.<token>.new`) of processes of this host
    // that no longer run; of other hosts (a shared directory) once an hour old.
    const m = !stale && name.startsWith(`${base}.lock.`) ? /\.(\d+)\.([0-9a-f]{8})\.[0-9a-f]{24}\.new$/.exec(name) : null;
    if (m) {
      if (m[2] === HOST_TAG) {
        try {
          process.kill(Number(m[1]), 0);
        } catch (err) {
          stale = (err as NodeJS.ErrnoException).code === 'ESRCH';
        }
      } else {
        const age = await stat(nameIn(name)).then(
          (st) => Date.now() - st.mtimeMs,
          () => 0,
        );
        stale = age > 3_600_000;
      }
    }
    if (stale) {
      await unlink(nameIn(name)).then(
        () => removed.push(name),
        () => undefined,
      );
    }
  }
  return removed;
}

/** A growable list of byte offsets (8 bytes each). */
class OffsetList {
  data = new Float64Array(1024);
  length = 0;
  push(v: number): void {
    if (this.length === this.data.length) {
      const d = new Float64Array(this.data.length * 2);
      d.set(this.data);
      this.data = d;
    }
    this.data[this.length++] = v;
  }
  sorted(): Float64Array {
    return this.data.subarray(0, this.length).sort();
  }
}

/** Line-by-line walk of a whole file (the rewrite has no jump mode: it copies every kept line). */
async function walkLines(
  fh: FileHandle,
  from: number,
  opts: RewriteOptions,
  onLine: (buf: Buffer, s: number, e: number, at: number, lineNumber: number) => void,
  onBuffer: (reader: LineReader) => Promise<void>,
): Promise<LineReader> {
  const { size } = await fh.stat();
  const reader = new LineReader(fileSource(fh), from, {
    sizeHint: size - from,
    signal: opts.signal,
    stopOnOversized: true,
    ...(opts.readSize === undefined ? {} : { readSize: opts.readSize }),
  });
  let lineNumber = 0;
  try {
    for (;;) {
      opts.signal?.throwIfAborted();
      const more = await reader.fill();
      if (reader.oversized) {
        // The reader drops such a line; a rewrite must not lose bytes it cannot read.
        throw evioError('STORE_LINE_TOO_LONG', `a line before byte ${reader.pos(reader.start)} of the file is longer than ${DEFAULT_MAX_LINE_BYTES} bytes; the delete was not done`);
      }
      if (!more) break;
      const buf = reader.buf;
      const ce = reader.complete;
      let s = reader.start;
      while (s < ce) {
        const e = buf.indexOf(10, s);
        lineNumber++;
        onLine(buf, s, e, reader.pos(s), lineNumber);
        s = e + 1;
      }
      await onBuffer(reader);
      reader.start = s;
    }
  } finally {
    await reader.settle();
  }
  return reader;
}

interface Decision {
  /** Lines to drop (absolute start offsets), decided before copying; null = decide while copying. */
  doomed: Float64Array | null;
}

function tooManyOpen(max: number): Error {
  return evioError(
    'STORE_TOO_MANY_OPEN',
    `more than ${max} deleted accepts wait for their finish records at once (maxOpenAccepts); narrow the delete (a time range, end=) or raise maxOpenAccepts`,
  );
}

/**
 * Pass 1 for dump=0 with exit filters: which lines go. An accept matching the record filters
 * waits (as its line offset) until its finish decides; a deleted accept takes its finish along.
 */
async function decideWithExitFilters(fh: FileHandle, from: number, f: EventFilter, opts: RewriteOptions): Promise<Float64Array> {
  const types = admittedTypes(f);
  const typeBytes = admittedTypeBytes(f);
  const waiting = new Map<string | undefined, number[]>();
  const waitingHashes = new Set<number>();
  let waitingCount = 0;
  const doomed = new OffsetList();
  const probe: PrefixProbe = { recnum: 0, etype: 0, uidHash: 0 };
  await walkLines(
    fh,
    from,
    opts,
    (buf, s, e, at, lineNumber) => {
      if (probeCanonicalPrefix(buf, s, e, probe)) {
        const candidate = typeBytes[probe.etype] === 1 && (f.recnumMin === null || probe.recnum >= f.recnumMin) && (f.recnumMax === null || probe.recnum <= f.recnumMax);
        const finish = probe.etype === 70 && (probe.uidHash === -1 || waitingHashes.has(probe.uidHash));
        if (!candidate && !finish) return;
      }
      const rec = parseEvent(buf, s, e, lineNumber);
      if (!rec) return;
      if (rec.etype === 'F') {
        const list = waiting.get(rec.uniqueid);
        if (list) {
          waiting.delete(rec.uniqueid);
          waitingCount -= list.length;
          let takesFinish = false;
          for (const acceptAt of list) {
            if (matchesExit({ rec, exitstatus: typeof rec.exitstatus === 'string' ? rec.exitstatus : null, exittime: rec.time }, f)) {
              doomed.push(acceptAt);
              takesFinish = true;
            }
          }
          if (takesFinish) doomed.push(at);
        }
      }
      if (!matchesRecord(rec, f, types)) return;
      if (rec.etype === 'A' || rec.etype === 'K') {
        const list = waiting.get(rec.uniqueid);
        if (list) list.push(at);
        else waiting.set(rec.uniqueid, [at]);
        if (typeof rec.uniqueid === 'string') {
          const h = uniqueidHash(rec.uniqueid);
          if (h !== -1) waitingHashes.add(h);
        }
        if (++waitingCount > opts.maxOpenAccepts) throw tooManyOpen(opts.maxOpenAccepts);
      } else if (matchesExit(mergedRow(rec, null), f)) {
        doomed.push(at);
      }
    },
    async () => {
      // Hashes of resolved accepts may linger in the set: they only cost a parse.
      if (waitingHashes.size > 4 * waitingCount + 1024) {
        waitingHashes.clear();
        for (const uid of waiting.keys()) {
          if (typeof uid === 'string') {
            const h = uniqueidHash(uid);
            if (h !== -1) waitingHashes.add(h);
          }
        }
      }
    },
  );
  // Accepts still waiting have no finish: merged exit values are null.
  for (const list of waiting.values()) {
    for (const acceptAt of list) {
      if (matchesExit({ rec: {} as StoredEvent, exitstatus: null, exittime: null }, f)) doomed.push(acceptAt);
    }
  }
  return doomed.sorted();
}

function parseEvent(buf: Buffer, s: number, e: number, lineNumber: number): StoredEvent | null {
  const v = parseJsonLine(buf, s, e);
  return v === undefined ? null : toStoredEvent(v, lineNumber);
}

/**
 * Deletes what `f` matches from the file at `path` by rewriting it; `dir` is its directory,
 * held open, and the caller holds the lock.
 */
export async function rewriteWithout(dir: DirHandle, path: string, f: EventFilter, opts: RewriteOptions): Promise<DeleteResult> {
  await cleanupStaleFiles(path, dir);
  const base = basename(path);
  let src: FileHandle;
  try {
    src = await dir.openFile(base, OPEN_READ);
  } catch (err) {
    if (isEvioError(err)) throw err;
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw evioError('STORE_NOT_FOUND', `${path} does not exist`);
    throw evioError('STORE_IO', `cannot open ${path}: ${(err as Error).message}`, err);
  }
  const tmp = `${tempPrefix(path)}${process.pid}-${randomBytes(4).toString('hex')}`;
  let out: FileHandle | null = null;
  let renamed = false;
  try {
    const st = await src.stat();
    // A byte order mark stays in front of the rewritten file; the lines are read after it (bom.ts).
    const bom = await bomLength(fileSource(src));
    const decision: Decision = { doomed: !f.dump && usesExitFilters(f) ? await decideWithExitFilters(src, bom, f, opts) : null };
    out = await dir.openFile(tmp, OPEN_CREATE_NEW, FILE_MODE);
    const deleted = await copyKept(src, bom, out, f, decision, opts);
    if (deleted === 0) return { deleted: 0 };
    await out.chmod(st.mode & 0o7777);
    await out.sync();
    await out.close();
    out = null;
    await rename(dir.at(tmp), dir.at(base));
    renamed = true;
    await dir.sync();
    return { deleted };
  } catch (err) {
    if (isEvioError(err) || (err as { name?: string }).name === 'AbortError') throw err;
    throw evioError('STORE_IO', `rewriting ${path} failed: ${(err as Error).message}`, err);
  } finally {
    await src.close();
    if (out) await out.close().catch(() => undefined);
    if (!renamed) await unlink(dir.at(tmp)).catch(() => undefined);
  }
}

/** Pass 2 (or the only pass): copies the kept lines into `out`; returns how many events went. */
async function copyKept(src: FileHandle, bom: number, out: FileHandle, f: EventFilter, decision: Decision, opts: RewriteOptions): Promise<number> {
  const types = admittedTypes(f);
  const typeBytes = admittedTypeBytes(f);
  const doomed = decision.doomed;
  let di = 0;
  // dump=0 without exit filters: uniqueids of deleted accepts whose finish is still to come.
  const openDeleted = new Map<string | undefined, true>();
  const openHashes = new Set<number>();
  const probe: PrefixProbe = { recnum: 0, etype: 0, uidHash: 0 };
  let deleted = 0;
  let droppedBefore = false;
  // What to write for the current buffer: runs of kept bytes and rewritten lines, in order.
  const chunks: Buffer[] = bom > 0 ? [UTF8_BOM] : [];
  let runStart = -1;
  let runEnd = -1;
  const keepBytes = (buf: Buffer, s: number, e: number) => {
    if (runStart >= 0 && runEnd === s) {
      runEnd = e;
      return;
    }
    if (runStart >= 0) chunks.push(buf.subarray(runStart, runEnd));
    runStart = s;
    runEnd = e;
  };
  const keepText = (buf: Buffer, text: string) => {
    if (runStart >= 0) chunks.push(buf.subarray(runStart, runEnd));
    runStart = -1;
    chunks.push(Buffer.from(text, 'utf8'));
  };
  const flush = async (buf: Buffer) => {
    if (runStart >= 0) chunks.push(buf.subarray(runStart, runEnd));
    runStart = -1;
    let list = chunks;
    while (list.length > 0) {
      const { bytesWritten } = await out.writev(list);
      list = advance(list, bytesWritten);
    }
    chunks.length = 0;
  };

  const scratch: ParsedLine = { rec: null, lackedRecnum: false };
  /** Keeps a line: byte for byte, or rewritten with its recnum once a line before it has gone. */
  const keep = (buf: Buffer, s: number, e: number, lineNumber: number, parsed: ParsedLine | null) => {
    if (droppedBefore && !probeCanonicalPrefix(buf, s, e, probe)) {
      const p = parsed ?? parseLine(buf, s, e, lineNumber, scratch);
      if (p.rec && p.lackedRecnum) {
        keepText(buf, JSON.stringify(withRecnumFirst(p.rec)) + '\n');
        return;
      }
    }
    keepBytes(buf, s, e + 1);
  };

  const reader = await walkLines(
    src,
    bom,
    opts,
    (buf, s, e, at, lineNumber) => {
      if (doomed) {
        while (di < doomed.length && doomed[di]! < at) di++;
        if (di < doomed.length && doomed[di] === at) {
          deleted++;
          droppedBefore = true;
        } else {
          keep(buf, s, e, lineNumber, null);
        }
        return;
      }
      if (probeCanonicalPrefix(buf, s, e, probe)) {
        const candidate = typeBytes[probe.etype] === 1 && (f.recnumMin === null || probe.recnum >= f.recnumMin) && (f.recnumMax === null || probe.recnum <= f.recnumMax);
        const finish = !f.dump && probe.etype === 70 && (probe.uidHash === -1 || openHashes.has(probe.uidHash));
        if (!candidate && !finish) {
          keepBytes(buf, s, e + 1);
          return;
        }
      }
      const parsed = parseLine(buf, s, e, lineNumber, scratch);
      const rec = parsed.rec;
      let drop = false;
      if (rec) {
        if (!f.dump && rec.etype === 'F' && openDeleted.has(rec.uniqueid)) {
          // The finish of a deleted accept goes with it.
          openDeleted.delete(rec.uniqueid);
          drop = true;
        } else if (matchesRecord(rec, f, types) && (!f.dump || matchesExit(storedRow(rec), f))) {
          // dump=0 without exit filters: the record filters decide alone.
          drop = true;
          if (!f.dump && (rec.etype === 'A' || rec.etype === 'K')) {
            openDeleted.set(rec.uniqueid, true);
            if (typeof rec.uniqueid === 'string') {
              const h = uniqueidHash(rec.uniqueid);
              if (h !== -1) openHashes.add(h);
            }
            if (openDeleted.size > opts.maxOpenAccepts) throw tooManyOpen(opts.maxOpenAccepts);
          }
        }
      }
      if (drop) {
        deleted++;
        droppedBefore = true;
      } else {
        keep(buf, s, e, lineNumber, parsed);
      }
    },
    async (r) => {
      await flush(r.buf);
      if (openHashes.size > 4 * openDeleted.size + 1024) {
        openHashes.clear();
        for (const uid of openDeleted.keys()) {
          if (typeof uid === 'string') {
            const h = uniqueidHash(uid);
            if (h !== -1) openHashes.add(h);
          }
        }
      }
    },
  );
  // A torn last line (no newline) is kept as it is; the next append seals it.
  const torn = reader.tornTail();
  if (torn) {
    chunks.push(reader.buf.subarray(torn.start, torn.end));
    await flush(reader.buf);
  }
  return deleted;
}

interface ParsedLine {
  rec: StoredEvent | null;
  /** The line had no recnum: rec.recnum is its line number. */
  lackedRecnum: boolean;
}

/** Parses a line into `into` (reused: no allocation per line beyond JSON.parse's). */
function parseLine(buf: Buffer, s: number, e: number, lineNumber: number, into: ParsedLine): ParsedLine {
  const v = parseJsonLine(buf, s, e);
  into.lackedRecnum = v !== undefined && lacksRecnum(v);
  into.rec = v === undefined ? null : toStoredEvent(v, lineNumber);
  return into;
}

function withRecnumFirst(rec: StoredEvent): StoredEvent {
  const { recnum, ...rest } = rec;
  return { recnum, ...rest } as StoredEvent;
}

/** The buffers left to write after `n` bytes of `list` were written. */
function advance(list: Buffer[], n: number): Buffer[] {
  let i = 0;
  while (i < list.length && n >= list[i]!.length) {
    n -= list[i]!.length;
    i++;
  }
  const rest = list.slice(i);
  if (n > 0 && rest.length > 0) rest[0] = rest[0]!.subarray(n);
  return rest;
}

