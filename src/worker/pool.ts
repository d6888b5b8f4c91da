// The I/O-log worker pool: three piscina lanes. The bulk lane (`workers` threads) runs the long
// work: searches, glob walks, index updates, filtered listings. The interactive lane
// (`interactiveWorkers` threads) runs the calls a person waits on: chunk, variables, replay,
// unfiltered listings, list queries. The heavy lane (half the interactive threads, at least
// one) builds what one session's reads need first: its seek index, an asciicast v1 file's
// cache (seekIndex); the interactive seek tasks never build (they answer buildNeeded and the
// caller builds here, then asks again), so a 62 MB v1 parse or a keyframe pass over a big
// session does not hold up a small chunk of another one. Piscina's queue is first come first
// served, so with one lane a chunk waited behind every queued task; with several lanes they
// only share the cores, which the kernel splits fairly. One pool per engine (engine.resource('iolog:pool')), closed
// with it. Tasks take an AbortSignal: piscina drops a queued task and terminates the thread
// running an aborted one, so a cancelled request or a CLI interrupt stops its work.
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import type { Piscina } from 'piscina';
import type { Engine } from '../engine.js';
import { evioError, toEvioError } from '../errors.js';
import type { IologTaskName, IologTasks } from './iolog-task-types.js';
import { unwrap, type Outcome } from './outcome.js';
import { workerEntry } from '../common/package-root.js';

/** Tasks that walk or search many sessions; every other task is interactive. */
const BULK_TASKS: ReadonlySet<IologTaskName> = new Set<IologTaskName>(['expandGlob', 'searchSessions', 'indexUpdate']);
/** Tasks that build a session's seek index or v1 cache (one pass over a whole session). */
const HEAVY_TASKS: ReadonlySet<IologTaskName> = new Set<IologTaskName>(['seekIndex']);

type LaneName = 'bulk' | 'interactive' | 'heavy';

/**
 * Tasks a one-shot process (the CLI) runs in its own thread: each is a short read (an SQLite
 * query, a stat walk of the stored folders, one chunk), where starting a thread and loading the
 * modules a second time cost more than the task (BENCHMARKS.md 7b).
 */
const INLINE_TASKS: ReadonlySet<IologTaskName> = new Set<IologTaskName>(['indexCurrent', 'listQuery', 'indexCount', 'variables', 'chunk', 'ping']);

/** A listing with a filter runs a user regex over up to every name of a folder: bulk work too. */
function laneOf<K extends IologTaskName>(name: K, input: IologTasks[K]['in']): LaneName {
  if (HEAVY_TASKS.has(name)) return 'heavy';
  return BULK_TASKS.has(name) || (name === 'listDir' && (input as IologTasks['listDir']['in']).filter !== undefined) ? 'bulk' : 'interactive';
}

export interface LaneStats {
  threads: number;
  /** Tasks waiting for a thread. */
  queueSize: number;
  /** Share of the lane's capacity in use since it started, 0..1 (piscina's figure). */
  utilization: number;
}

const threads = (n: number): number => (n > 0 ? Math.floor(n) : availableParallelism());

export class IologPool {
  private readonly entry: string;
  /** Each lane starts on first use: a CLI command needs one of them, not both. */
  private bulk: Piscina | null = null;
  private interactive: Piscina | null = null;
  private heavy: Piscina | null = null;
  /** Threads of the bulk lane: a search fans out over this many. */
  readonly size: number;
  readonly interactiveSize: number;
  readonly heavySize: number;

  /** Run INLINE_TASKS in the calling thread (engine.oneShot). */
  private readonly inline: boolean;

  constructor(workers: number, interactiveWorkers: number, inline = false) {
    this.inline = inline;
    this.entry = workerEntry('iolog-tasks');
    if (!existsSync(this.entry)) throw evioError('IOLOG_WORKER', `the worker entry ${this.entry} is missing; run npm run build`);
    this.size = threads(workers);
    this.interactiveSize = threads(interactiveWorkers);
    this.heavySize = Math.max(1, Math.floor(this.interactiveSize / 2));
  }

  private async lane(lane: LaneName): Promise<Piscina> {
    // piscina is loaded with the first lane: a one-shot command whose tasks all run inline
    // never pays for it.
    const { Piscina: Pool } = await import('piscina');
    const start = (maxThreads: number) => new Pool({ filename: this.entry, minThreads: 1, maxThreads, idleTimeout: 30_000 });
    if (lane === 'bulk') return (this.bulk ??= start(this.size));
    if (lane === 'heavy') return (this.heavy ??= start(this.heavySize));
    return (this.interactive ??= start(this.interactiveSize));
  }

  async run<K extends IologTaskName>(name: K, input: IologTasks[K]['in'], signal?: AbortSignal): Promise<IologTasks[K]['out']> {
    if (signal?.aborted) throw evioError('ABORTED', 'the request was cancelled');
    let outcome: Outcome<IologTasks[K]['out']>;
    try {
      if (this.inline && INLINE_TASKS.has(name)) {
        const tasks = (await import('./iolog-tasks.js')) as unknown as Record<K, (input: IologTasks[K]['in']) => Promise<Outcome<IologTasks[K]['out']>>>;
        outcome = await tasks[name](input);
      } else {
        outcome = (await (await this.lane(laneOf(name, input))).run(input, { name, signal: signal ?? null })) as Outcome<IologTasks[K]['out']>;
      }
    } catch (err) {
      if (signal?.aborted || (err as { name?: string }).name === 'AbortError') throw evioError('ABORTED', 'the request was cancelled');
      const e = toEvioError(err);
      throw e.errorName === 'INTERNAL' ? evioError('IOLOG_WORKER', `worker task ${name} failed: ${(err as Error).message}`, err) : e;
    }
    return unwrap(outcome);
  }

  /** Read-only figures for the metrics: a lane not started yet has no threads and no queue. */
  stats(): Record<LaneName, LaneStats> {
    const of = (p: Piscina | null): LaneStats => (p ? { threads: p.threads.length, queueSize: p.queueSize, utilization: p.utilization } : { threads: 0, queueSize: 0, utilization: 0 });
    return { bulk: of(this.bulk), interactive: of(this.interactive), heavy: of(this.heavy) };
  }

  async close(): Promise<void> {
    await Promise.all([this.bulk?.destroy(), this.interactive?.destroy(), this.heavy?.destroy()]);
  }
}

/** The engine's pool, created on first use. */
export function iologPool(engine: Engine): Promise<IologPool> {
  return engine.resource('iolog:pool', () => new IologPool(engine.settings.workers, engine.settings.interactiveWorkers, engine.oneShot));
}

