// The terminal player's use case (`evio iolog play`): a session's output as frames to write at
// their recorded pace, read chunk by chunk through the chunk call (from the seek index's
// nearest keyframe, so a long session starts at once), and the start at a time as a repaint of
// the screen there. The CLI does the terminal: pacing, speed, keys.
import type { Engine } from '../engine.js';
import { iologChunk, iologEventSession, iologScreen, type Params } from './iolog.js';

/** Output streams a terminal shows. */
const SHOWN = new Set(['ttyout', 'stdout', 'stderr']);

export interface PlayFrame {
  /** Recorded milliseconds since the previous frame (the first: since the start point). */
  gapMs: number;
  /** Bytes to write (output streams only). */
  bytes: Buffer;
  /** Data-stream position after this frame. */
  pos: number;
}

export interface PlayStart {
  /** Escape sequences showing the screen at the start time (empty from the beginning). */
  repaint: string;
  /** Data-stream position to play from. */
  offset: number;
  cols: number;
  rows: number;
  duration: number;
}

/** Where playing starts: the screen at `at` seconds (absent: the start, nothing to repaint). */
export async function playStart(engine: Engine, file: string, at: string | undefined, signal?: AbortSignal): Promise<PlayStart> {
  const s = await iologScreen(engine, { file, at: at ?? '0' }, signal);
  if (at === undefined) return { repaint: '', offset: 0, cols: s.cols, rows: s.rows, duration: s.duration };
  return { repaint: s.repaint, offset: s.offset, cols: s.cols, rows: s.rows, duration: s.duration };
}

/** The frames from data-stream position `start` to the end, 256 KiB of data per chunk call. */
export async function* playFrames(engine: Engine, file: string, start: number, signal?: AbortSignal): AsyncGenerator<PlayFrame> {
  let pos = start;
  let lastMs: number | null = null;
  for (;;) {
    const params: Params = { file, start: String(pos), len: String(256 * 1024) };
    const c = await iologChunk(engine, params, signal);
    let time: number | null = null;
    let p = c.start;
    for (const item of c.items) {
      if ('time' in item) {
        time = item.time;
        continue;
      }
      if (!('blob' in item)) continue;
      p += item.blen;
      if (!SHOWN.has(item.cmd)) continue;
      const gapMs: number = lastMs === null || time === null ? 0 : Math.max(0, time - lastMs);
      if (time !== null) lastMs = time;
      yield { gapMs, bytes: Buffer.from(item.blob, 'base64'), pos: p };
    }
    pos = c.start + c.len;
    if (c.len === 0 || pos >= c.bytes) return;
  }
}

/** A command of the session's timeline: when it was entered (seconds from the start) and where. */
export interface PlayCommand {
  at: number;
  offset?: number;
}

/**
 * The session's commands, when this evio has a command timeline (`iologCommands`); null
 * otherwise. The player's "next command" key uses it.
 */
export async function playCommands(engine: Engine, file: string, signal?: AbortSignal): Promise<PlayCommand[] | null> {
  const app = (await import('./iolog.js')) as Record<string, unknown>;
  const fn = app.iologCommands;
  if (typeof fn !== 'function') return null;
  try {
    const res: unknown = await (fn as (e: Engine, p: Params, s?: AbortSignal) => Promise<unknown>)(engine, { file }, signal);
    const list: unknown[] = [];
    if (Array.isArray(res)) list.push(...res);
    else if (res && typeof res === 'object') {
      const r = res as Record<string, unknown>;
      const inner = r.commands ?? r.items ?? r.result;
      if (Array.isArray(inner)) list.push(...inner);
      else if (inner && typeof inner === 'object' && Symbol.asyncIterator in inner) for await (const c of inner as AsyncIterable<unknown>) list.push(c);
      else if (Symbol.asyncIterator in r) for await (const c of r as unknown as AsyncIterable<unknown>) list.push(c);
    }
    // Times may be seconds from the start, or Unix seconds or milliseconds.
    const startSec = (await iologEventSession(engine, { iolog: file })).start;
    const out: PlayCommand[] = [];
    for (const c of list) {
      if (!c || typeof c !== 'object') continue;
      const o = c as Record<string, unknown>;
      let at = [o.at, o.time, o.start, o.seconds].find((v) => typeof v === 'number') as number | undefined;
      if (at === undefined) continue;
      if (at > 1e11) at = at / 1000 - startSec;
      else if (at > 1e8) at -= startSec;
      out.push({ at: Math.max(0, at), ...(typeof o.offset === 'number' ? { offset: o.offset } : {}) });
    }
    return out.sort((a, b) => a.at - b.at);
  } catch {
    return null;
  }
}
