// What a forwarder hands a destination (docs/events.md, "Event destinations"): batches of
// records in recnum order, each with its NDJSON line. A sink delivers a batch or fails; the
// forwarder keeps the cursor, the retries and the order.
import type { StoredEvent } from '../types.js';

export interface DeliveryItem {
  rec: StoredEvent;
  /** The record as one line of NDJSON, without the newline (compact JSON, as evio stores it). */
  line: string;
}

export interface Sink {
  /**
   * Delivering a record again has no visible effect (a database skips recnums it holds): a
   * damaged cursor is then answered by starting again from the first record, not by waiting.
   */
  readonly idempotent: boolean;
  /**
   * Delivers `items` (recnums increasing, all after `after`). Resolves once the destination has
   * them as far as this sink can know (see each sink); rejects when it cannot take them (the
   * forwarder retries the same batch). `signal` aborts when the forwarder closes.
   */
  deliver(items: readonly DeliveryItem[], after: number, signal: AbortSignal): Promise<void>;
  /**
   * A stream broke (a program exited, a connection was lost) while records it had been given
   * may not have been read: the recnum after which delivery must start again, once; else null.
   */
  takeRewind(): number | null;
  /** Gives the sink the forwarder's wake(), to call when it has a rewind to report. */
  attach?(wake: () => void): void;
  close(): Promise<void>;
}

/**
 * Thrown by deliver() when the sink has a rewind the forwarder has not taken yet: the batch in
 * hand comes after records that must go first again, so it is not delivered now (not a failure).
 */
export class RewindPending extends Error {
  constructor() {
    super('records must be delivered again first');
    this.name = 'RewindPending';
  }
}
