// The prog destination: a program (an argv, run without a shell) that reads the records as NDJSON
// on its standard input, one record per line as stored. It is started on the first delivery and
// started again when it exits, after a delay that grows while it keeps exiting within
// `healthyAfterMs` of its start (0.5 s doubling to 30 s). Its standard error goes to evio's log,
// line by line; its standard output is discarded.
//
// Backpressure: a batch is written in chunks of at most 64 KiB, each awaited (its write done and,
// when the pipe was full, 'drain'; stream-writes.ts), so a slow reader holds the forwarder back,
// never evio's memory.
//
// Delivered = written into its standard input. A program that dies leaves what it had not read
// there: the records that end within the input's capacity before the end of what was written to
// it are delivered again to the next program (unread-window.ts). So a record is lost only if the
// program read it and dropped it; one may arrive twice.
import { spawn, type ChildProcess } from 'node:child_process';
import { basename } from 'node:path';
import type { Writable } from 'node:stream';
import { evioError } from '../../errors.js';
import { backoffDelay, DEFAULT_BACKOFF, sleep, type BackoffOptions } from './backoff.js';
import { RewindPending, type DeliveryItem, type Sink } from './sink.js';
import { writeItems } from './stream-writes.js';
import { StreamSinkBase, stdinCapacity, UnreadWindow } from './unread-window.js';

export interface ProgOptions {
  argv: readonly string[];
  log: (line: string) => void;
  backoff?: BackoffOptions;
  /** A program that ran this long before it exited is restarted at once, ms (default 10 s). */
  healthyAfterMs?: number;
  /** Bytes the program's standard input may hold unread (default: unread-window.ts stdinCapacity). */
  capacity?: number;
  /** On close: how long the program has to exit after its standard input ends, ms (then SIGTERM). */
  stopTimeoutMs?: number;
}

/** A line of the program's standard error longer than this is cut in the log. */
const MAX_LOG_LINE = 4096;

interface Running {
  child: ChildProcess;
  stdin: Writable;
  startedAt: number;
  /** Rejects when the program exits (never resolves). */
  gone: Promise<never>;
  exited: Promise<void>;
}

export class ProgSink extends StreamSinkBase implements Sink {
  private readonly o: Required<ProgOptions>;
  private readonly name: string;
  private run: Running | null = null;
  /** An exit that no delivery has reported yet. */
  private exitError: Error | null = null;
  /** Exits in a row of programs that ran less than healthyAfterMs. */
  private shortRuns = 0;
  private nextStartAt = 0;
  /** Program starts since this sink was made (tests, status). */
  starts = 0;

  constructor(opts: ProgOptions) {
    const o = { backoff: DEFAULT_BACKOFF, healthyAfterMs: 10_000, capacity: stdinCapacity(), stopTimeoutMs: 2000, ...opts };
    super(new UnreadWindow(o.capacity));
    this.o = o;
    this.name = basename(opts.argv[0]!);
  }

  async deliver(items: readonly DeliveryItem[], after: number, signal: AbortSignal): Promise<void> {
    // Records of a broken stream go first, in order, before this batch.
    if (this.rewind !== null) throw new RewindPending();
    if (this.exitError) {
      const e = this.exitError;
      this.exitError = null;
      throw e;
    }
    const run = this.run ?? (await this.start(after, signal));
    try {
      await writeItems({ stream: run.stdin, gone: run.gone }, items, (i) => Buffer.from(`${i.line}\n`), this.window, signal, this.seen);
    } catch (err) {
      if (signal.aborted) throw err;
      throw evioError('DEST_PROG_FAILED', `writing to ${this.name} failed: ${(err as Error).message}`, err);
    }
  }

  private async start(after: number, signal: AbortSignal): Promise<Running> {
    const wait = this.nextStartAt - Date.now();
    if (wait > 0) await sleep(wait, signal);
    signal.throwIfAborted();
    const [cmd, ...args] = this.o.argv as [string, ...string[]];
    const child = spawn(cmd, args, { stdio: ['pipe', 'ignore', 'pipe'], shell: false });
    this.starts++;
    let onExit!: (err: Error) => void;
    const gone = new Promise<never>((_, reject) => {
      onExit = reject;
    });
    gone.catch(() => {});
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const run: Running = { child, stdin: child.stdin!, startedAt: Date.now(), gone, exited };
    child.once('exit', (code, sig) => {
      const how = sig ? `was killed by ${sig}` : `exited with status ${code}`;
      const err = evioError('DEST_PROG_FAILED', `${cmd} (pid ${child.pid}) ${how}`);
      onExit(err);
      this.exited(run, err);
    });
    // A write to a program that exited fails with EPIPE: reported by the write and by 'exit'.
    run.stdin.on('error', () => {});
    this.forwardStderr(child);
    try {
      await new Promise<void>((resolve, reject) => {
        child.once('spawn', resolve);
        child.once('error', reject);
      });
    } catch (err) {
      this.scheduleRestart(0);
      throw evioError('DEST_PROG_FAILED', `cannot start ${cmd}: ${(err as Error).message}`, err);
    }
    // Later errors (a kill that fails) are the exit's business.
    child.on('error', () => {});
    this.window.reset(after);
    this.run = run;
    return run;
  }

  private exited(run: Running, err: Error): void {
    if (this.run !== run) return;
    this.run = null;
    this.scheduleRestart(Date.now() - run.startedAt);
    // Records it may not have read go to the next program.
    const r = this.window.rewindPoint();
    this.rewind = this.rewind === null ? r : Math.min(this.rewind, r);
    if (this.closing) return;
    this.exitError = err;
    this.o.log(`destination prog: ${err.message}; restarting it in ${Math.max(0, this.nextStartAt - Date.now()) / 1000} s`);
    this.wake?.();
  }

  private scheduleRestart(ranMs: number): void {
    if (ranMs >= this.o.healthyAfterMs) this.shortRuns = 0;
    this.shortRuns++;
    this.nextStartAt = Date.now() + backoffDelay(this.shortRuns, this.o.backoff);
  }

  private forwardStderr(child: ChildProcess): void {
    let rest = '';
    const emit = (line: string) => {
      if (line !== '') this.o.log(`destination prog: ${this.name}[${child.pid}]: ${line.length > MAX_LOG_LINE ? `${line.slice(0, MAX_LOG_LINE)}…` : line}`);
    };
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop()!;
      if (rest.length > MAX_LOG_LINE) {
        emit(rest);
        rest = '';
      }
      for (const l of lines) emit(l);
    });
    child.stderr!.on('end', () => emit(rest));
  }

  /** Ends the program's input and waits for it to exit (SIGTERM after stopTimeoutMs, then SIGKILL). */
  async close(): Promise<void> {
    this.closing = true;
    const run = this.run;
    if (!run) return;
    run.stdin.end();
    const waitExit = (ms: number) => Promise.race([run.exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref())]);
    if (await waitExit(this.o.stopTimeoutMs)) return;
    run.child.kill('SIGTERM');
    if (await waitExit(this.o.stopTimeoutMs)) return;
    run.child.kill('SIGKILL');
    await run.exited;
  }
}
