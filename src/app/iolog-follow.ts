// Following a session while it is written (GET /REST/iolog/follow; the console's live session
// page and wall): what is appended to the session after a data-stream position, as it arrives,
// then an end mark once the session is complete (its timing file loses its write bits, as
// sudoreplay -F and `evio iolog play --follow` decide).
//
// Event-driven without re-reading: one watch per session, however many follow it — a stat of
// its timing file every FOLLOW_POLL_MS (every record sudo or the log server writes appends to
// it) — wakes its watchers when the file changes; each then reads only from its own position
// on, through the chunk call (the seek index's nearest keyframe). Watchers at the same position
// share one read and one serialisation (the usual case: all caught up), so fifty watchers of a
// session cost little more than one. Memory per watcher: one piece of FOLLOW_CHUNK_LEN data;
// per session: FOLLOW_SHARED_PIECES pieces. The caller's signal (the client going away) ends it.
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Closable, Engine } from '../engine.js';
import { evioError } from '../errors.js';
import { FOLLOW_CHUNK_LEN, FOLLOW_KEEPALIVE_MS, FOLLOW_MAX_WATCHERS, FOLLOW_POLL_MS, FOLLOW_SHARED_PIECES } from '../iolog/limits.js';
import { nonNegativeInt, required, type Params } from '../iolog/params.js';
import { iologChunk } from './iolog.js';
import { redactViewFor, type IologAccess } from './redact-view.js';
import type { TailHint } from '../iolog/seek.js';

/**
 * What a follower receives. `data` is JSON text: for `chunk`, a chunk answer's fields
 * ({start, len, bytes, log: items}, as GET /REST/iolog gives them); `id` the position after it;
 * `shared` the same object for every follower given this chunk (a key to encode it once).
 */
export type FollowEvent =
  | { event: 'state'; data: string }
  | { event: 'chunk'; id: number; data: string; shared: object }
  | { event: 'end'; data: string }
  | { event: 'ping' };

interface Piece {
  json: string;
  len: number;
  next: number;
  bytes: number;
}

/**
 * The shared watch of one session. Its followers wait on it without a timer or an abort
 * listener each (fifty followers, fifty fewer of both per change): the watch wakes them all on
 * a change, on the keep-alive beat and when it stops; a follower's abort wakes only itself.
 */
class SessionHub {
  watchers = 0;
  /** Bumped whenever the timing file's size, mtime or mode changes. */
  version = 0;
  complete: boolean;
  private key = '';
  private timer: NodeJS.Timeout | null = null;
  private polling = false;
  private lastWake = Date.now();
  private waiters = new Set<() => void>();
  private pieces = new Map<string, Promise<Piece>>();
  /** Where reading can resume at the end of pieces read (by data-stream position): a read from there passes over no older timing. */
  private tails = new Map<number, TailHint>();

  /** The server is stopping: its followers end (without an end mark; they may call again elsewhere). */
  stopped = false;

  constructor(
    /** The session directory (sudo), or null: a file that is complete as it is (asciicast). */
    private readonly dir: string | null,
  ) {
    this.complete = dir === null;
  }

  start(): void {
    if (this.dir === null || this.timer) return;
    this.timer = setInterval(() => void this.poll(), FOLLOW_POLL_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.wakeAll();
  }

  private wakeAll(): void {
    this.lastWake = Date.now();
    const w = [...this.waiters];
    this.waiters.clear();
    for (const f of w) f();
  }

  async poll(): Promise<void> {
    if (this.dir === null || this.polling) return;
    this.polling = true;
    try {
      const st = await lstat(join(this.dir, 'timing'));
      const key = `${st.size}:${st.mtimeMs}:${st.mode}`;
      if (key === this.key) {
        // Unchanged for a while: the keep-alive beat (the followers send a ping).
        if (Date.now() - this.lastWake >= FOLLOW_KEEPALIVE_MS) this.wakeAll();
        return;
      }
      this.key = key;
      this.complete = (st.mode & 0o222) === 0;
    } catch {
      // gone (purged): nothing more will come
      if (this.complete) return;
      this.complete = true;
    } finally {
      this.polling = false;
    }
    this.version++;
    this.pieces.clear();
    this.wakeAll();
  }

  /** `wake` is called once, on the next change, beat or stop (unless it was woken otherwise first). */
  wait(wake: () => void): void {
    this.waiters.add(wake);
  }

  unwait(wake: () => void): void {
    this.waiters.delete(wake);
  }

  /**
   * The piece from `pos`, read once per position and change of the session for every follower
   * who sees the data the same way (redacted or as recorded: docs/auth.md).
   */
  piece(engine: Engine, file: string, pos: number, access: IologAccess): Promise<Piece> {
    const key = `${pos}:${this.version}:${redactViewFor(engine, access) ? 'redacted' : 'recorded'}`;
    let p = this.pieces.get(key);
    if (!p) {
      // No caller's signal: the read is shared and bounded (one piece).
      p = iologChunk(engine, { file, start: String(pos), len: String(FOLLOW_CHUNK_LEN) }, undefined, access, { from: this.tails.get(pos) ?? null }).then((c) => {
        if (c.tail) {
          this.tails.set(c.start + c.len, c.tail);
          while (this.tails.size > FOLLOW_SHARED_PIECES) this.tails.delete(this.tails.keys().next().value as number);
        }
        return {
          json: JSON.stringify({ start: c.start, len: c.len, bytes: c.bytes, log: c.items, ...(c.warnings.length ? { warnings: c.warnings } : {}) }),
          len: c.len,
          next: c.start + c.len,
          bytes: c.bytes,
        };
      });
      p.catch(() => this.pieces.delete(key));
      this.pieces.set(key, p);
      while (this.pieces.size > FOLLOW_SHARED_PIECES) this.pieces.delete(this.pieces.keys().next().value as string);
    }
    return p;
  }
}

/** Every watch of one engine, and the cap on followers. */
class FollowRegistry implements Closable {
  watchers = 0;
  private hubs = new Map<string, SessionHub>();

  /** Ends every follow now (a graceful shutdown: they would otherwise hold its drain to the end). */
  stopAll(): void {
    for (const h of this.hubs.values()) {
      h.stopped = true;
      h.stop();
    }
  }

  join(path: string, sudo: boolean): SessionHub {
    if (this.watchers >= FOLLOW_MAX_WATCHERS) throw evioError('IOLOG_TOO_MANY_WATCHERS', `${FOLLOW_MAX_WATCHERS} clients already follow sessions on this server`);
    let hub = this.hubs.get(path);
    if (!hub) {
      hub = new SessionHub(sudo ? path : null);
      this.hubs.set(path, hub);
    }
    hub.watchers++;
    this.watchers++;
    hub.start();
    return hub;
  }

  leave(path: string, hub: SessionHub): void {
    this.watchers--;
    if (--hub.watchers > 0) return;
    hub.stop();
    if (this.hubs.get(path) === hub) this.hubs.delete(path);
  }

  async close(): Promise<void> {
    for (const h of this.hubs.values()) h.stop();
    this.hubs.clear();
  }
}

/** A graceful shutdown's first step: the follows in progress end, so that they do not hold the drain. */
export async function iologFollowsStop(engine: Engine): Promise<void> {
  const registry = await engine.resource('iolog:follow', () => new FollowRegistry());
  registry.stopAll();
}

export interface Follow {
  file: string;
  /** The data-stream position following starts at. */
  start: number;
  events: AsyncGenerator<FollowEvent>;
}

/**
 * GET /REST/iolog/follow?file=&start= : checks the call (the session exists under a root, the
 * cap) before anything is sent, then gives the events: `state` ({live, start}), a `chunk` per
 * piece appended from `start` on, `ping` when idle, and `end` ({bytes}) once the session is
 * complete and all of it was sent. A session already complete gets its rest and `end` at once.
 */
export async function iologFollow(engine: Engine, params: Params, signal: AbortSignal, access: IologAccess = {}): Promise<Follow> {
  const file = required(params, 'file');
  const start = nonNegativeInt(params, 'start', 0);
  const { openSession } = await import('../iolog/locate.js');
  const session = await openSession([...engine.settings.iologdirs], file);
  const sudo = (await lstat(join(session.path, 'timing')).catch(() => null)) !== null;
  const registry = await engine.resource('iolog:follow', () => new FollowRegistry());
  const hub = registry.join(session.path, sudo);
  // Left once: when the events end, or when the client goes away before they were ever read.
  let left = false;
  const leave = () => {
    if (left) return;
    left = true;
    signal.removeEventListener('abort', leave);
    registry.leave(session.path, hub);
  };
  signal.addEventListener('abort', leave, { once: true });
  return { file, start, events: follow(engine, file, start, hub, signal, leave, access) };
}

async function* follow(engine: Engine, file: string, start: number, hub: SessionHub, signal: AbortSignal, leave: () => void, access: IologAccess): AsyncGenerator<FollowEvent> {
  let pos = start;
  // One wake function for the whole follow: the hub calls it on a change, a beat or a stop,
  // the client's abort calls it too; `woken` resolves the wait in progress.
  let woken: (() => void) | null = null;
  const wake = () => {
    const f = woken;
    woken = null;
    f?.();
  };
  signal.addEventListener('abort', wake, { once: true });
  try {
    await hub.poll();
    yield { event: 'state', data: JSON.stringify({ file, live: !hub.complete, start }) };
    while (!signal.aborted) {
      const version = hub.version;
      const complete = hub.complete;
      // Everything there is from pos, in pieces.
      for (;;) {
        const p = await hub.piece(engine, file, pos, access);
        if (signal.aborted) return;
        if (p.len > 0) {
          pos = p.next;
          yield { event: 'chunk', id: pos, data: p.json, shared: p };
        }
        if (p.len === 0 || pos >= p.bytes) break;
      }
      if (complete) {
        yield { event: 'end', data: JSON.stringify({ bytes: pos }) };
        return;
      }
      if (hub.version === version && !hub.stopped && !signal.aborted) {
        await new Promise<void>((resolve) => {
          woken = resolve;
          hub.wait(wake);
        });
      }
      if (hub.stopped) return;
      if (!signal.aborted && hub.version === version) yield { event: 'ping' };
    }
  } finally {
    hub.unwait(wake);
    signal.removeEventListener('abort', wake);
    leave();
  }
}
