// The asciicast v1 cache: a v1 file is one JSON object whose header may follow its frames, so
// reading it means parsing it whole. It is parsed once, by the heavy lane, into two files under
// the cache folder (beside the cached list: iologcache with `-cast-v1` for its `.sqlite`, 0700,
// files 0600): `<id>.json` (the file's identity, header members, totals, warnings and a sparse
// index of frame offsets) and `<id>.frames` (the frames as records: u32 data length, f64 time in
// ns from the start, the data's UTF-8 bytes). Later calls read the header from the JSON and the
// frames from the nearest indexed offset at or before the position they want: no parse, and
// memory bounded by one frame. The id is a hash of the file's real path; the identity (device,
// inode, size, mtime) says whether the cache is still the file's. It is a cache: deleting the
// folder only costs a parse at the next call.
import { createHash, randomBytes } from 'node:crypto';
import { open, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { mkdirPrivate, PRIVATE_FILE_MODE } from '../private-files.js';
import { readV1, type V1Item } from './asciicast-v1.js';
import { CAST_LINE_MAX } from './limits.js';
import type { Variables } from './log-info.js';
import { checkAborted, type ScanResult } from './session.js';

/** Raised by a read that may not build (the interactive lane): the caller builds in the heavy lane, then asks again. */
export class BuildNeeded extends Error {
  override name = 'BuildNeeded';
}

const FORMAT = 1;
/** An index entry every this many data bytes or frames: a read starts at most this far before its position. */
const INDEX_EVERY_BYTES = 256 * 1024;
const INDEX_EVERY_FRAMES = 4096;
/** Frame records written in one write while building (bounded memory). */
const WRITE_BUFFER = 1024 * 1024;
const RECORD_HEAD = 12;
const READ_AHEAD = 64 * 1024;

export interface V1IndexEntry {
  /** Data-stream position at the frame's start. */
  pos: number;
  /** Offset of the frame's record in the frames file. */
  off: number;
  /** Frames before it. */
  records: number;
}

export interface V1CacheMeta {
  format: number;
  /** The cast file's real path (the purge finds the caches of what it removed by it). */
  path: string;
  sig: string;
  variables: Variables;
  scan: ScanResult;
  /** The build's warnings (a damaged gzip stream: its message; bad frames: their warning). */
  warnings: Array<{ key: 'gzip' | 'bad-frame'; text: string }>;
  index: V1IndexEntry[];
}

export interface V1Cache {
  meta: V1CacheMeta;
  frames: string;
}

export { castCacheDirForSeek } from './cast-v1-store.js';

async function signatureOf(path: string): Promise<string> {
  const st = await stat(path);
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:f${FORMAT}`;
}

function files(dir: string, path: string): { meta: string; frames: string } {
  const id = createHash('sha256').update(path).digest('hex').slice(0, 40);
  return { meta: join(dir, `${id}.json`), frames: join(dir, `${id}.frames`) };
}

/** The cache of `path` when it is current; null when missing or stale. */
export async function loadV1Cache(dir: string, path: string): Promise<V1Cache | null> {
  const f = files(dir, path);
  let meta: V1CacheMeta;
  try {
    meta = JSON.parse(await readFile(f.meta, 'utf8')) as V1CacheMeta;
  } catch {
    return null;
  }
  if (meta.format !== FORMAT || meta.sig !== (await signatureOf(path))) return null;
  return { meta, frames: f.frames };
}

/**
 * One pass over the v1 file: the frames written to the cache, the header members kept. Throws
 * what readV1 throws (NotAsciicastV1, NOT_FOUND); `badFrame` gives the warning of a bad entry.
 */
export async function buildV1Cache(dir: string, path: string, opts: { signal?: AbortSignal | undefined; onGzipError: (msg: string) => void; badFrame: (item: Extract<V1Item, { kind: 'bad-frame' }>) => string }): Promise<V1Cache> {
  const sig = await signatureOf(path);
  mkdirPrivate(dir);
  const f = files(dir, path);
  const tmp = `.${randomBytes(6).toString('hex')}.tmp`;
  const framesTmp = f.frames + tmp;
  const metaTmp = f.meta + tmp;
  const fh = await open(framesTmp, 'wx', PRIVATE_FILE_MODE);
  const variables: Variables = {};
  const warnings: V1CacheMeta['warnings'] = [];
  const index: V1IndexEntry[] = [];
  let off = 0;
  let pos = 0;
  let records = 0;
  let ns = 0;
  let last: V1IndexEntry | null = null;
  let parts: Buffer[] = [];
  let buffered = 0;
  const flush = async () => {
    if (!buffered) return;
    await fh.write(parts.length === 1 ? parts[0]! : Buffer.concat(parts, buffered));
    parts = [];
    buffered = 0;
  };
  try {
    const gzip = (msg: string) => {
      opts.onGzipError(msg);
      if (warnings.length < 10) warnings.push({ key: 'gzip', text: msg });
    };
    for await (const batch of readV1(path, { members: true, signal: opts.signal, onGzipError: gzip })) {
      for (const item of batch) {
        if (item.kind === 'frame') {
          if (!last || pos - last.pos >= INDEX_EVERY_BYTES || records - last.records >= INDEX_EVERY_FRAMES) {
            last = { pos, off, records };
            index.push(last);
          }
          ns += item.delayNs;
          const data = Buffer.from(item.data, 'utf8');
          const head = Buffer.allocUnsafe(RECORD_HEAD);
          head.writeUInt32LE(data.length, 0);
          head.writeDoubleLE(ns, 4);
          parts.push(head, data);
          buffered += RECORD_HEAD + data.length;
          off += RECORD_HEAD + data.length;
          pos += data.length;
          records++;
          if (buffered >= WRITE_BUFFER) await flush();
        } else if (item.kind === 'member') {
          // As JSON.parse: the last of repeated keys wins, "__proto__" is an own property.
          Object.defineProperty(variables, item.key, { value: item.value, enumerable: true, writable: true, configurable: true });
        } else if (warnings.length < 10) {
          warnings.push({ key: 'bad-frame', text: opts.badFrame(item) });
        }
      }
    }
    await flush();
    await fh.close();
    const meta: V1CacheMeta = { format: FORMAT, path, sig, variables, scan: { bytes: pos, records, sec: Math.floor(ns / 1e9), nsec: ns % 1e9 }, warnings, index };
    const mh = await open(metaTmp, 'wx', PRIVATE_FILE_MODE);
    try {
      await mh.writeFile(JSON.stringify(meta));
    } finally {
      await mh.close();
    }
    // The frames first: a meta file always describes the frames file beside it.
    await rename(framesTmp, f.frames);
    await rename(metaTmp, f.meta);
    return { meta, frames: f.frames };
  } catch (err) {
    await fh.close().catch(() => undefined);
    await rm(framesTmp, { force: true });
    await rm(metaTmp, { force: true });
    throw err;
  }
}

/** The index entry to start reading at for data position `from`. */
export function entryAtOrBefore(index: readonly V1IndexEntry[], from: number): V1IndexEntry {
  let lo = 0;
  let hi = index.length - 1;
  let best: V1IndexEntry = { pos: 0, off: 0, records: 0 };
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const e = index[mid]!;
    if (e.pos <= from) {
      best = e;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best;
}

/** Frames of the cache from an index entry on: absolute ns and the data as text. */
export async function* cachedFrames(cache: V1Cache, from: V1IndexEntry, signal?: AbortSignal): AsyncGenerator<{ ns: number; data: string }> {
  const fh = await open(cache.frames, 'r');
  try {
    let off = from.off;
    let buf = Buffer.alloc(0);
    let bufStart = off;
    /** The bytes [off, off + n) (fewer at the end of the file). */
    const need = async (n: number): Promise<Buffer> => {
      if (off - bufStart + n > buf.length) {
        const b = Buffer.allocUnsafe(Math.max(n, READ_AHEAD));
        const { bytesRead } = await fh.read(b, 0, b.length, off);
        buf = b.subarray(0, bytesRead);
        bufStart = off;
      }
      return buf.subarray(off - bufStart, off - bufStart + n);
    };
    for (;;) {
      checkAborted(signal);
      const head = await need(RECORD_HEAD);
      if (head.length < RECORD_HEAD) return;
      const len = head.readUInt32LE(0);
      const ns = head.readDoubleLE(4);
      if (len > CAST_LINE_MAX * 4) return; // not a record: a damaged cache ends the frames
      const rec = await need(RECORD_HEAD + len);
      if (rec.length < RECORD_HEAD + len) return;
      off += RECORD_HEAD + len;
      yield { ns, data: rec.toString('utf8', RECORD_HEAD) };
    }
  } finally {
    await fh.close();
  }
}

