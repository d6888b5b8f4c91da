// The db and odbc destinations: an event store (SQLite, PostgreSQL, ODBC) appended to with the
// records' own recnums, as `evio events copy` does. A store skips a recnum it already holds, so
// delivering a batch again (after a crash between the append and the cursor's write) adds
// nothing: these destinations see every record exactly once.
import type { EventStore } from '../types.js';
import type { DeliveryItem, Sink } from './sink.js';

export function storeSink(open: () => Promise<EventStore>): Sink {
  let store: EventStore | null = null;
  return {
    idempotent: true,
    async deliver(items: readonly DeliveryItem[], _after: number, signal: AbortSignal) {
      // Opened on first use and kept: a store reconnects by itself after a lost connection.
      // A failed open is retried by the forwarder.
      store ??= await open();
      await store.append(items.map((i) => i.rec), { signal });
    },
    takeRewind: () => null,
    // The store belongs to whoever opened it (the engine's shared stores): not closed here.
    close: async () => {},
  };
}
