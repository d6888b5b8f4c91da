// The I/O-log worker pool: piscina, sized by the `workers` setting (0 = one thread per core).
// One pool per engine (engine.resource('iolog:pool')), closed with it. Tasks take an
// AbortSignal: piscina drops a queued task and terminates the thread running an aborted one,
// so a cancelled request or a CLI interrupt stops its work.
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import type { Engine } from '../engine.js';
import { evioError, toEvioError } from '../errors.js';
import type { IologTaskName, IologTasks } from './iolog-task-types.js';
import { unwrap, type Outcome } from './outcome.js';
import { workerEntry } from './package-root.js';

export class IologPool {
  private readonly piscina: Piscina;
  readonly size: number;

  constructor(workers: number) {
    const entry = workerEntry('iolog-tasks');
    if (!existsSync(entry)) throw evioError('IOLOG_WORKER', `the worker entry ${entry} is missing; run npm run build`);
    this.size = workers > 0 ? Math.floor(workers) : availableParallelism();
    this.piscina = new Piscina({ filename: entry, minThreads: 1, maxThreads: this.size, idleTimeout: 30_000 });
  }

  async run<K extends IologTaskName>(name: K, input: IologTasks[K]['in'], signal?: AbortSignal): Promise<IologTasks[K]['out']> {
    if (signal?.aborted) throw evioError('ABORTED', 'the request was cancelled');
    let outcome: Outcome<IologTasks[K]['out']>;
    try {
      outcome = (await this.piscina.run(input, { name, signal: signal ?? null })) as Outcome<IologTasks[K]['out']>;
    } catch (err) {
      if (signal?.aborted || (err as { name?: string }).name === 'AbortError') throw evioError('ABORTED', 'the request was cancelled');
      const e = toEvioError(err);
      throw e.errorName === 'INTERNAL' ? evioError('IOLOG_WORKER', `worker task ${name} failed: ${(err as Error).message}`, err) : e;
    }
    return unwrap(outcome);
  }

  async close(): Promise<void> {
    await this.piscina.destroy();
  }
}

/** The engine's pool, created on first use. */
export function iologPool(engine: Engine): Promise<IologPool> {
  return engine.resource('iolog:pool', () => new IologPool(engine.settings.workers));
}

