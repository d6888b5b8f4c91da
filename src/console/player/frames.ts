// A chunk's items (GET /REST/iolog?file=&start=&len=) as frames a terminal can play: output
// bytes (ttyout, stdout, stderr, written raw, as the server's screen model writes them) and
// window changes, each at its time in seconds since the session's start. Input streams are not
// shown (a terminal echoes what was typed into ttyout).

export interface ChunkItem {
  time?: number;
  blob?: string;
  blen?: number;
  cmd?: string;
  cols?: number;
  rows?: number;
}

export interface ChunkAnswer {
  file: string;
  bytes: number;
  start: number;
  len: number;
  log: ChunkItem[];
}

export type Frame = { t: number; data: Uint8Array } | { t: number; cols: number; rows: number };

const OUTPUT = new Set(['ttyout', 'stdout', 'stderr']);

function base64Bytes(b64: string): Uint8Array {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** Frames of a chunk; `startMs` is the session's start (Unix ms), the zero of `t`. */
export function chunkFrames(items: readonly ChunkItem[], startMs: number): Frame[] {
  const out: Frame[] = [];
  let t = 0;
  let pending: Uint8Array[] = [];
  let pendingT = 0;
  const flush = () => {
    if (!pending.length) return;
    const size = pending.reduce((n, b) => n + b.length, 0);
    const data = new Uint8Array(size);
    let o = 0;
    for (const b of pending) {
      data.set(b, o);
      o += b.length;
    }
    out.push({ t: pendingT, data });
    pending = [];
  };
  for (const it of items) {
    if (typeof it.time === 'number') {
      const next = (it.time - startMs) / 1000;
      if (next !== t) flush();
      t = next;
    } else if (it.cmd === 'CMD_WINCH' && typeof it.cols === 'number' && typeof it.rows === 'number') {
      flush();
      out.push({ t, cols: it.cols, rows: it.rows });
    } else if (typeof it.blob === 'string' && OUTPUT.has(it.cmd ?? '')) {
      if (!pending.length) pendingT = t;
      pending.push(base64Bytes(it.blob));
    }
  }
  flush();
  return out;
}

/** The first time item of a chunk (Unix ms), the fallback zero when the start is not known. */
export function firstTime(items: readonly ChunkItem[]): number | null {
  for (const it of items) if (typeof it.time === 'number') return it.time;
  return null;
}
