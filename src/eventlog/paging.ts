// A page of an event query that knows whether it is complete. The store is asked for one record
// more than `limit`: when that record comes, the page was cut and `next` says how to continue
// (DESIGN §3 paging rules) — no second query, no count. The extra record is never returned.
import type { EventQuery, EventRow, EventStore, QueryOptions, StoreKind } from './types.js';

/** "Every match": the batch commands' limit when none is given. No lookahead past it. */
export const NO_LIMIT = Number.MAX_SAFE_INTEGER;

/** The parameters that differ on the next page; the other parameters stay as they were. */
export type NextPage = Record<string, number>;

/** How a page ended; final once its rows are exhausted. */
export interface PageEnd {
  /** More records match than the page returned. */
  more: boolean;
  /** With `more`: the parameters of the next page (merged over this page's). */
  next: NextPage | null;
}

export function newPageEnd(): PageEnd {
  return { more: false, next: null };
}

/**
 * Where the page after `last` starts.
 * - Flat file: resume at the byte offset after `last` (its `offset`); the skip count was spent.
 * - Database by recnum: a recnum bound past `last` (recnums are unique), so records added or
 *   deleted meanwhile do not shift the next page; the skip count was spent.
 * - Database by another field: skip what this page and its skip covered.
 */
export function nextPage(kind: StoreKind, q: EventQuery, last: EventRow): NextPage {
  if (kind === 'ff') return { offset: last.offset ?? q.byteOffset, start: 0 };
  if (q.order === 'recnum') return q.direction === 'asc' ? { start: last.rec.recnum + 1, offset: 0 } : { end: last.rec.recnum - 1, offset: 0 };
  return { offset: q.skip + q.limit };
}

/**
 * Counts the rows of one page as its batches pass (pageBatches below): the store is asked for
 * one row more than the page, and that row's arrival says there are more.
 */
class PageCut {
  /** The query to send: one record more than the page, whose arrival answers "are there more?". */
  readonly asked: EventQuery;
  private n = 0;
  private last: EventRow | null = null;

  constructor(
    private readonly kind: StoreKind,
    private readonly q: EventQuery,
    private readonly end: PageEnd,
  ) {
    this.asked = q.limit > 0 && q.limit < NO_LIMIT ? { ...q, limit: q.limit + 1 } : q;
  }

  /**
   * How many rows of `batch`, from its first, belong to the page: all of them, or fewer when
   * the lookahead row is among them (then `end` says more, and how, and the query is done).
   */
  admit(batch: readonly EventRow[]): number {
    const room = this.q.limit - this.n;
    if (batch.length <= room) {
      this.n += batch.length;
      if (batch.length > 0) this.last = batch[batch.length - 1]!;
      return batch.length;
    }
    this.n += room;
    if (room > 0) this.last = batch[room - 1]!;
    this.end.more = true;
    this.end.next = nextPage(this.kind, this.q, this.last!);
    return room;
  }
}

/** The store's rows for `q` in batches, at most `q.limit`; `end` says whether more match, and how to go on. */
export async function* pageBatches(store: EventStore, q: EventQuery, opts: QueryOptions, end: PageEnd): AsyncGenerator<EventRow[]> {
  if (q.limit <= 0) return;
  const cut = new PageCut(store.kind, q, end);
  for await (const batch of store.queryBatches(cut.asked, opts)) {
    const k = cut.admit(batch);
    if (k > 0) yield k === batch.length ? batch : batch.slice(0, k);
    if (k < batch.length) return; // closes the store's iterator: the scan or cursor stops here
  }
}
