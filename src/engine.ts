// The engine context both doors share: settings plus the long-lived resources built from them
// (open event stores, the worker pool, the I/O log index). Created once per process.
import type { Settings } from './settings.js';

export interface Closable {
  close(): Promise<void>;
}

export class Engine {
  readonly settings: Settings;
  /**
   * A process that answers one command and exits (the CLI): the I/O-log pool runs its small
   * tasks (list queries, variables, chunks) in the calling thread instead of starting a worker
   * thread for them. A server never sets it: a task there would block every other call.
   */
  readonly oneShot: boolean;
  private readonly resources = new Map<string, Promise<Closable>>();

  constructor(settings: Settings, opts: { oneShot?: boolean } = {}) {
    this.settings = settings;
    this.oneShot = opts.oneShot ?? false;
  }

  /** A shared resource by key, created on first use (stores, pools, indexes). */
  async resource<T extends Closable>(key: string, create: () => T | Promise<T>): Promise<T> {
    let r = this.resources.get(key) as Promise<T> | undefined;
    if (!r) {
      // The promise is stored at once, so concurrent first uses share one creation.
      r = Promise.resolve().then(create);
      this.resources.set(key, r);
      r.catch(() => this.resources.delete(key));
    }
    return r;
  }

  /** Forgets a resource (e.g. a store whose file was replaced) after closing it. */
  async drop(key: string): Promise<void> {
    const r = this.resources.get(key);
    this.resources.delete(key);
    if (r) await (await r).close();
  }

  async close(): Promise<void> {
    const all = [...this.resources.values()];
    this.resources.clear();
    await Promise.allSettled(all.map(async (r) => (await r).close()));
  }
}
