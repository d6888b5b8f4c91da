// Chunking (GET /REST/iolog?file=&start=&len=): the items of one byte range of the session's
// data stream. Items: {time} (Unix ms, before the first item and whenever the millisecond
// advances), {cols, rows, cmd:"CMD_WINCH"}, {blob (base64), blen, cmd: stream}. A blob that
// straddles the range is cut to it, so the blobs of consecutive chunks concatenate to exactly
// the session's bytes. A window change belongs to the chunk whose range holds its position;
// one at the very end of the data goes with the last chunk. Runs in a worker.
import { CHUNK_MAX_ITEMS } from './limits.js';
import { checkAborted, eventUnixMs, type IologSession, type ResumePoint } from './session.js';

export type ChunkItem =
  | { time: number }
  | { cols: number; rows: number; cmd: 'CMD_WINCH' }
  | { blob: string; blen: number; cmd: string };

export interface ChunkResult {
  file: string;
  /** Total data bytes of the session. */
  bytes: number;
  start: number;
  /** Bytes this chunk covers (the requested len, clamped to the data and the item limit). */
  len: number;
  items: ChunkItem[];
  warnings: string[];
}

/** What the seek index already knows: the totals, and a point to resume reading at or before `start`. */
export interface ChunkShortcut {
  total: number;
  records: number;
  resume?: ResumePoint;
}

export async function buildChunk(session: IologSession, start: number, len: number, signal?: AbortSignal, known?: ChunkShortcut): Promise<ChunkResult> {
  const info = await session.info();
  const scan = known ? { bytes: known.total, records: known.records } : await session.scan(signal);
  const total = scan.bytes;
  const from = Math.min(start, total);
  let to = Math.min(from + len, total);
  const items: ChunkItem[] = [];
  let lastMs = Number.NaN;
  // Window changes with no data between them: only the last one matters to a player.
  let pendingWinch: { item: ChunkItem; sec: number; nsec: number } | null = null;
  const at = (sec: number, nsec: number) => {
    const ms = eventUnixMs(info, sec, nsec);
    if (ms !== lastMs) {
      items.push({ time: ms });
      lastMs = ms;
    }
  };
  const flushWinch = () => {
    if (pendingWinch === null) return;
    at(pendingWinch.sec, pendingWinch.nsec);
    items.push(pendingWinch.item);
    pendingWinch = null;
  };
  let n = 0;
  for await (const ev of session.events({ from, to, maxRecords: scan.records, ...(known?.resume ? { resume: known.resume } : {}), ...(signal ? { signal } : {}) })) {
    if ((++n & 1023) === 0) checkAborted(signal);
    if (ev.kind === 'data') {
      // The item limit ends a chunk only between records, so every chunk makes progress.
      if (ev.first && items.length >= CHUNK_MAX_ITEMS && ev.pos > from) {
        to = ev.pos;
        pendingWinch = null;
        break;
      }
      flushWinch();
      at(ev.sec, ev.nsec);
      const b64 = Buffer.from(ev.bytes.buffer, ev.bytes.byteOffset, ev.bytes.byteLength).toString('base64');
      items.push({ blob: b64, blen: ev.bytes.length, cmd: ev.stream });
      continue;
    }
    if (ev.kind !== 'winch') continue; // signals, markers and exits are not chunk items
    const inside = (ev.pos >= from && ev.pos < to) || (ev.pos === to && to === total);
    if (!inside) continue;
    pendingWinch = { item: { cols: ev.cols, rows: ev.rows, cmd: 'CMD_WINCH' }, sec: ev.sec, nsec: ev.nsec };
  }
  flushWinch();
  return { file: session.path, bytes: total, start, len: to - from, items, warnings: [...session.warnings] };
}
