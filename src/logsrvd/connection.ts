// One client connection of the log server: sudo's protocol state machine (sudo_logsrv.proto(5),
// "Protocol flow of control"; logsrvd's states INITIAL -> RUNNING -> EXITED).
//
//   hello      ClientHello (optional) -> ServerHello
//   ready      Accept (with I/O: a session, answered with its log id) | Accept without I/O |
//              Reject | Restart (first message only) | Alert
//   running    IoBuffer, ChangeWindowSize, CommandSuspend, Alert, sub-command Accept/Reject, Exit
//   accepted   (an Accept without I/O) Exit, Alert, sub-command Accept/Reject
//   done       after Exit or Reject: nothing more; the client closes
//
// Messages are handled strictly in order. I/O records are written synchronously into the
// session's buffers; the few asynchronous steps (creating a session, appending an event, a
// flush) hold the messages behind them in a queue, and the socket is paused while the queue
// holds more than QUEUE_PAUSE_BYTES (backpressure reaches the client through TCP).
// A commit point is sent only after what it counts is durable: at most commitIntervalMs after
// data arrived, and at once after Exit (its value then equals the client's own sum).
// Any error sends the protocol's `error` message with the registry code and closes this
// connection only; an unfinished session stays resumable.
import type { Socket } from 'node:net';
import { EvioError, evioError, toEvioError } from '../errors.js';
import { encodeFrame, FrameReader } from './frames.js';
import { decodeClientMessage, encodeServerMessage, type ClientMessage, type ServerMessage, type TimeSpec } from './messages.js';
import { countRefusal, logServerFigures, type LogReceiver, type ReceivedSession } from '../app/log-receiver.js';

type State = 'hello' | 'ready' | 'running' | 'accepted' | 'done';

export interface ConnectionOptions {
  serverId: string;
  /** How often, at most, data is synced and acknowledged with a commit point, ms. */
  commitIntervalMs: number;
  /** A message started and not finished for this long closes the connection, ms. */
  frameTimeoutMs: number;
  /** No first message (hello, accept, reject, restart) within this time closes the connection, ms. */
  helloTimeoutMs: number;
  /** Bytes a connection may send per second on average (0: no bound); the socket is paused past it. */
  maxBytesPerSecond: number;
  log: (entry: Record<string, unknown>) => void;
  /** Called once the connection has handled all it received and closed its session. */
  onReleased?: () => void;
}

/** Received records reach the session's files (unsynced) at most this long after they arrived, ms: what a follower waits. */
const WRITE_OUT_MS = 250;

/** Messages held behind an asynchronous step before the socket is paused. */
const QUEUE_PAUSE_BYTES = 256 * 1024;

const STATE_ALLOWS: Record<State, ReadonlySet<ClientMessage['type']>> = {
  hello: new Set(['hello', 'accept', 'reject', 'restart', 'alert']),
  ready: new Set(['accept', 'reject', 'restart', 'alert']),
  running: new Set(['io', 'winsize', 'suspend', 'alert', 'accept', 'reject', 'exit']),
  accepted: new Set(['exit', 'alert', 'accept', 'reject']),
  done: new Set(),
};

function isZero(t: TimeSpec): boolean {
  return t.sec === 0 && t.nsec === 0;
}

function sameTime(a: TimeSpec, b: TimeSpec): boolean {
  return a.sec === b.sec && a.nsec === b.nsec;
}

export class LogConnection {
  private readonly reader = new FrameReader();
  private state: State = 'hello';
  private session: ReceivedSession | null = null;
  /** The accept this connection's events belong to (sessions and accepts without I/O). */
  private acceptId: string | null = null;
  private readonly queue: { msg: ClientMessage; bytes: number }[] = [];
  private queuedBytes = 0;
  private busy = false;
  /** This side stopped taking messages (an error, or the server stopping). */
  private closed = false;
  /** The client's socket is gone: what it sent before is still handled, then the session is closed. */
  private peerGone = false;
  private released = false;
  /** Reading is paused while over the byte rate, or while the queue is full; resumed when neither holds. */
  private overRate = false;
  private queueFull = false;
  private commitTimer: NodeJS.Timeout | null = null;
  private writeOutTimer: NodeJS.Timeout | null = null;
  private lastCommit: TimeSpec | null = null;
  private frameTimer: NodeJS.Timeout | null = null;
  private helloTimer: NodeJS.Timeout | null;
  /** Token bucket of maxBytesPerSecond. */
  private allowance: number;
  private allowanceAt = Date.now();
  readonly peer: string;

  constructor(
    private readonly socket: Socket,
    private readonly receiver: LogReceiver,
    private readonly opts: ConnectionOptions,
  ) {
    this.peer = socket.remoteAddress ?? 'unknown';
    logServerFigures.connections++;
    this.allowance = opts.maxBytesPerSecond;
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 60_000);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (err) => this.opts.log({ level: 'info', msg: 'logsrvd connection error', peer: this.peer, error: err.message }));
    socket.on('close', () => void this.onClose());
    this.helloTimer = setTimeout(() => this.fail(evioError('LOGSRV_TIMEOUT', `no client message within ${opts.helloTimeoutMs} ms of connecting`)), opts.helloTimeoutMs);
    this.helloTimer.unref();
  }

  private onData(chunk: Buffer): void {
    if (this.closed) return;
    this.throttle(chunk.length);
    let frames = 0;
    try {
      this.reader.push(chunk, (frame) => {
        frames++;
        this.onFrame(frame);
      });
    } catch (err) {
      this.fail(toEvioError(err));
      return;
    }
    this.armFrameTimer(frames > 0);
  }

  /** Pauses or resumes reading the socket as the byte rate and the queue allow. */
  private flow(): void {
    if (this.closed) return;
    if (this.overRate || this.queueFull) this.socket.pause();
    else this.socket.resume();
  }

  private throttle(n: number): void {
    const rate = this.opts.maxBytesPerSecond;
    if (rate <= 0) return;
    const now = Date.now();
    this.allowance = Math.min(rate, this.allowance + ((now - this.allowanceAt) / 1000) * rate) - n;
    this.allowanceAt = now;
    if (this.allowance < 0 && !this.overRate) {
      this.overRate = true;
      this.flow();
      setTimeout(() => {
        this.overRate = false;
        this.flow();
      }, Math.ceil((-this.allowance / rate) * 1000)).unref();
    }
  }

  /**
   * A message begun and not finished must finish within frameTimeoutMs of its first byte (a
   * client dripping a byte now and then does not hold it open for longer); between messages a
   * client may be idle for ever. `completed`: this read ended a message, so any bytes pending
   * now begin the next one.
   */
  private armFrameTimer(completed: boolean): void {
    if (this.reader.pending === 0 || completed) {
      if (this.frameTimer) clearTimeout(this.frameTimer);
      this.frameTimer = null;
      if (this.reader.pending === 0) return;
    }
    if (!this.frameTimer) {
      this.frameTimer = setTimeout(() => this.fail(evioError('LOGSRV_TIMEOUT', `a message was begun and not finished within ${this.opts.frameTimeoutMs} ms`)), this.opts.frameTimeoutMs);
      this.frameTimer.unref();
    }
  }

  private onFrame(frame: Buffer): void {
    if (this.closed) return;
    const msg = decodeClientMessage(frame);
    if (this.helloTimer) {
      clearTimeout(this.helloTimer);
      this.helloTimer = null;
    }
    if (!this.busy) {
      // The common case: handled at once, while the frame's bytes are still valid.
      const p = this.handle(msg);
      if (p) this.runAsync(p);
      return;
    }
    // Queued behind an asynchronous step: the frame's memory is reused by the reader, so copy.
    if (msg.type === 'io') msg.data = Buffer.from(msg.data);
    this.queue.push({ msg, bytes: frame.length });
    this.queuedBytes += frame.length;
    if (this.queuedBytes >= QUEUE_PAUSE_BYTES && !this.queueFull) {
      this.queueFull = true;
      this.flow();
    }
  }

  private runAsync(p: Promise<void>): void {
    this.busy = true;
    p.then(
      () => this.drainQueue(),
      (err) => this.fail(toEvioError(err)),
    );
  }

  private drainQueue(): void {
    while (!this.closed) {
      const next = this.queue.shift();
      if (!next) break;
      const msg = next.msg;
      this.queuedBytes -= next.bytes;
      let p: Promise<void> | void;
      try {
        p = this.handle(msg);
      } catch (err) {
        this.fail(toEvioError(err));
        return;
      }
      if (p) {
        this.runAsync(p);
        return;
      }
    }
    this.busy = false;
    if (this.peerGone) {
      void this.release();
      return;
    }
    if (this.queueFull) {
      this.queueFull = false;
      this.flow();
    }
  }

  /** Handles one message; returns a promise when the step is asynchronous. Throws on protocol errors. */
  private handle(msg: ClientMessage): Promise<void> | void {
    if (!STATE_ALLOWS[this.state].has(msg.type)) {
      throw evioError('LOGSRV_UNEXPECTED_MESSAGE', `${msg.type} message in state ${this.state === 'hello' ? 'initial' : this.state}`);
    }
    switch (msg.type) {
      case 'hello':
        this.opts.log({ level: 'info', msg: 'logsrvd hello', peer: this.peer, client: msg.clientId });
        this.send({ type: 'hello', serverId: this.opts.serverId, subcommands: true });
        this.state = 'ready';
        return;
      case 'accept':
        return this.onAccept(msg);
      case 'reject':
        return this.onReject(msg);
      case 'alert':
        return this.receiver.alert({ alertTime: need(msg.alertTime, 'alert_time'), reason: msg.reason, info: msg.info, peer: this.peer, acceptId: this.acceptId });
      case 'restart':
        return this.onRestart(msg.logId, msg.resumePoint ?? { sec: 0, nsec: 0 });
      case 'io': {
        const s = this.sessionOr('I/O buffer');
        s.writeIo(msg.stream, need(msg.delay, 'delay'), msg.data);
        this.armCommit();
        return;
      }
      case 'winsize': {
        const s = this.sessionOr('window size');
        if (!(msg.rows > 0 && msg.cols > 0)) throw evioError('LOGSRV_INVALID_MESSAGE', `window size ${msg.rows}x${msg.cols}: rows and columns must be 1 or more`);
        s.writeWinsize(need(msg.delay, 'delay'), msg.rows, msg.cols);
        this.armCommit();
        return;
      }
      case 'suspend': {
        const s = this.sessionOr('suspend');
        if (!/^[A-Z0-9]{1,16}$/.test(msg.signal)) throw evioError('LOGSRV_INVALID_MESSAGE', `suspend signal "${printable(msg.signal)}" is not a signal name`);
        s.writeSuspend(need(msg.delay, 'delay'), msg.signal);
        this.armCommit();
        return;
      }
      case 'exit':
        return this.onExit(msg);
    }
  }

  private sessionOr(what: string): ReceivedSession {
    if (!this.session) throw evioError('LOGSRV_UNEXPECTED_MESSAGE', `${what} without an accepted I/O log session`);
    return this.session;
  }

  private async onAccept(msg: Extract<ClientMessage, { type: 'accept' }>): Promise<void> {
    const submitTime = need(msg.submitTime, 'submit_time');
    const sub = this.state === 'running' || this.state === 'accepted';
    if (sub) {
      // A sub-command (log_subcmds / intercept): an event tied to the running session.
      await this.receiver.accept({ submitTime, info: msg.info, peer: this.peer, expectIobufs: false, parent: this.acceptId, offset: this.session?.elapsed ?? null });
      return;
    }
    const res = await this.receiver.accept({ submitTime, info: msg.info, peer: this.peer, expectIobufs: msg.expectIobufs, parent: null, offset: null });
    this.acceptId = res.acceptId;
    if (res.session) {
      this.session = res.session;
      this.state = 'running';
      this.send({ type: 'log_id', logId: res.session.logId });
    } else this.state = 'accepted';
  }

  private async onReject(msg: Extract<ClientMessage, { type: 'reject' }>): Promise<void> {
    const submitTime = need(msg.submitTime, 'submit_time');
    await this.receiver.reject({ submitTime, reason: msg.reason, info: msg.info, peer: this.peer, parent: this.acceptId });
    if (this.state !== 'running' && this.state !== 'accepted') this.state = 'done';
  }

  private async onRestart(logId: string, point: TimeSpec): Promise<void> {
    const s = await this.receiver.restart({ logId, resumePoint: point, peer: this.peer });
    this.session = s;
    this.acceptId = s.acceptId;
    this.lastCommit = isZero(point) ? null : point;
    this.state = 'running';
  }

  private async onExit(msg: Extract<ClientMessage, { type: 'exit' }>): Promise<void> {
    this.state = 'done';
    this.clearCommit();
    const exit = {
      runTime: msg.runTime,
      exitValue: msg.exitValue,
      dumpedCore: msg.dumpedCore,
      signal: msg.signal,
      error: msg.error,
    };
    const s = this.session;
    if (s) {
      if (!msg.runTime) this.opts.log({ level: 'warn', msg: 'logsrvd exit without run_time: recorded with the run time unknown', peer: this.peer, logId: s.logId });
      // The final commit point — the client (and the user's sudo command) finishes once it
      // equals its own sum — waits for what the client sent: the session's records synced and
      // the exit appended as a finish record, both at once. The completion marker that follows
      // (log.json's exit members, timing made read-only) adds nothing the client sent, so the
      // client is not kept waiting for it.
      const [point] = await Promise.all([s.flush(), this.receiver.exit({ ...exit, peer: this.peer, acceptId: this.acceptId, session: s })]);
      this.send({ type: 'commit_point', point });
      this.session = null;
      await s.finish(exit);
    } else {
      await this.receiver.exit({ ...exit, peer: this.peer, acceptId: this.acceptId, session: null });
    }
  }

  private armCommit(): void {
    this.armWriteOut();
    if (this.commitTimer || this.closed || this.peerGone) return;
    this.commitTimer = setTimeout(() => {
      this.commitTimer = null;
      void this.commit();
    }, this.opts.commitIntervalMs);
    this.commitTimer.unref();
  }

  private clearCommit(): void {
    if (this.commitTimer) clearTimeout(this.commitTimer);
    this.commitTimer = null;
    if (this.writeOutTimer) clearTimeout(this.writeOutTimer);
    this.writeOutTimer = null;
  }

  /** A live session's records reach its files within WRITE_OUT_MS (a commit point syncs them later). */
  private armWriteOut(): void {
    if (this.writeOutTimer || this.closed || this.peerGone) return;
    this.writeOutTimer = setTimeout(() => {
      this.writeOutTimer = null;
      const s = this.session;
      if (s && !this.closed) s.writeOut().catch((err) => this.fail(toEvioError(err)));
    }, WRITE_OUT_MS);
    this.writeOutTimer.unref();
  }

  /** Syncs the session and acknowledges what is now durable. */
  private async commit(): Promise<void> {
    const s = this.session;
    if (!s || this.closed) return;
    let point: TimeSpec;
    try {
      point = await s.flush();
    } catch (err) {
      this.fail(toEvioError(err));
      return;
    }
    if (this.closed || this.session !== s) return;
    if (!this.lastCommit || !sameTime(point, this.lastCommit)) {
      this.lastCommit = point;
      this.send({ type: 'commit_point', point });
    }
    if (this.reader.pending === 0) this.reader.shrink();
  }

  private send(msg: ServerMessage): void {
    if (this.closed || this.socket.destroyed) return;
    this.socket.write(encodeFrame(encodeServerMessage(msg)));
  }

  /** Tells the client why, logs it, and closes this connection. */
  fail(err: EvioError): void {
    if (this.closed) return;
    const internal = !(err instanceof EvioError) || err.errorName === 'INTERNAL';
    this.opts.log({ level: internal ? 'error' : 'warn', msg: 'logsrvd connection refused a message', peer: this.peer, code: err.code, error: err.message });
    countRefusal(err.code);
    this.send({ type: 'error', text: err.message });
    this.closed = true;
    this.socket.end();
    // A client that does not read its error is cut after a short while.
    setTimeout(() => this.socket.destroy(), 2000).unref();
    void this.release();
  }

  /** Tells the client the server is stopping (shutdown), after the data it sent is synced. */
  async stop(): Promise<void> {
    if (this.closed) return;
    const s = this.session;
    if (s) {
      try {
        const point = await s.flush();
        this.send({ type: 'commit_point', point });
      } catch {
        // The error below still goes out; unflushed data was never acknowledged.
      }
    }
    this.fail(evioError('LOGSRV_STOPPING', 'the log server is shutting down'));
  }

  private async onClose(): Promise<void> {
    // Messages that arrived before the close are handled first (a client may send its last
    // records and hang up at once, as sudo_sendlog -s does): nothing received is dropped.
    this.peerGone = true;
    if (!this.busy) await this.release();
  }

  private async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    this.closed = true;
    this.clearCommit();
    if (this.frameTimer) clearTimeout(this.frameTimer);
    if (this.helloTimer) clearTimeout(this.helloTimer);
    this.frameTimer = null;
    this.helloTimer = null;
    const s = this.session;
    this.session = null;
    this.queue.length = 0;
    // Closed without its Exit: the files are closed, the session stays resumable (sudo_sendlog -r).
    if (s) await s.close().catch((err) => this.opts.log({ level: 'error', msg: 'logsrvd closing a session failed', peer: this.peer, error: (err as Error).message }));
    logServerFigures.connections--;
    this.opts.onReleased?.();
  }
}

function need(t: TimeSpec | null, field: string): TimeSpec {
  if (!t) throw evioError('LOGSRV_INVALID_MESSAGE', `${field} is missing`);
  if (t.nsec < 0 || t.nsec > 999_999_999 || t.sec < 0) throw evioError('LOGSRV_INVALID_MESSAGE', `${field} ${t.sec}.${t.nsec} is not a valid time`);
  return t;
}

function printable(s: string): string {
  return s.replace(/[^\x20-\x7e]/g, '?').slice(0, 32);
}
