// What every CLI command gets: its output streams, the settings and the shared engine.
import type { Writable } from 'node:stream';
import { Engine } from '../engine.js';
import { evioError } from '../errors.js';
import { loadSettings, type Settings } from '../settings.js';

export interface CliIo {
  out: Writable & { isTTY?: boolean };
  err: Writable & { isTTY?: boolean };
  /** --config given on the command line (before the command), else EVIO_CONFIG. */
  config: string | undefined;
  settings(): Settings;
  /** The command's engine: one-shot (short pool tasks run in this thread, see Engine.oneShot). */
  engine(): Engine;
  /** The engine of a long-running service (`evio serve`): every pool task in a worker thread. */
  serviceEngine(): Engine;
  /** Cancelled on SIGINT/SIGTERM: long commands stop their work. */
  signal: AbortSignal;
}

export interface CliCommand {
  name: string;
  summary: string;
  /** Returns the exit code. Throws EvioError for usage and engine errors. */
  run(argv: string[], io: CliIo): Promise<number>;
}

export function usageError(msg: string): Error {
  return evioError('CLI_USAGE', msg);
}

export function makeIo(config: string | undefined, signal: AbortSignal, out: CliIo['out'] = process.stdout, err: CliIo['err'] = process.stderr): CliIo & { dispose(): Promise<void> } {
  let settings: Settings | null = null;
  let engine: Engine | null = null;
  const io = {
    out,
    err,
    config,
    signal,
    settings() {
      settings ??= loadSettings({ config });
      return settings;
    },
    engine() {
      engine ??= new Engine(io.settings(), { oneShot: true });
      return engine;
    },
    serviceEngine() {
      // A server must never run a task on its main thread: every other call would wait for it.
      engine ??= new Engine(io.settings(), { oneShot: false });
      return engine;
    },
    async dispose() {
      if (engine) await engine.close();
    },
  };
  return io;
}

/** Resolves when the command is asked to stop (SIGINT/SIGTERM): what a service waits on. */
export function untilStopped(io: CliIo): Promise<void> {
  return new Promise((resolve) => {
    if (io.signal.aborted) resolve();
    else io.signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/** Writes a line of progress to a terminal only (cron output stays clean). */
export function progress(io: CliIo, text: string): void {
  if (io.err.isTTY) io.err.write(`\r\x1b[K${text}`);
}
export function progressDone(io: CliIo): void {
  if (io.err.isTTY) io.err.write('\r\x1b[K');
}
