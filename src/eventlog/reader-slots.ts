// A bound on the answers one event store streams at once. Each streamed answer holds a file
// descriptor and a read buffer (flat file) or a batch of rows (SQL) for as long as its client
// takes to read it; without a bound, many slow clients multiply that. The count lives beside the
// store object, which the engine keeps once per store.
import { evioError } from '../errors.js';
import type { EventStore } from './types.js';

const active = new WeakMap<EventStore, number>();

/**
 * Takes one of the store's `max` reader slots (0 = no bound) and returns its release, which is
 * safe to call more than once. Throws STORE_READERS_BUSY when every slot is taken.
 */
export function takeReaderSlot(store: EventStore, max: number): () => void {
  const n = active.get(store) ?? 0;
  if (max > 0 && n >= max) {
    throw evioError('STORE_READERS_BUSY', `${store.name} already streams ${n} answers (maxReadersPerStore ${max}); retry shortly`);
  }
  active.set(store, n + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    active.set(store, (active.get(store) ?? 1) - 1);
  };
}

/** Answers the store streams now (tests, metrics). */
export function activeReaders(store: EventStore): number {
  return active.get(store) ?? 0;
}
