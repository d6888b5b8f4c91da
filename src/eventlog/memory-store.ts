// The reference store: the whole log in an array, every rule written the plainest way. It is the
// oracle of the property tests (flat file, SQLite, PostgreSQL and ODBC must answer exactly as it
// does) and a convenience for embedders' own tests. It is deliberately naive: O(n) per query.
import { evioError } from '../errors.js';
import { admittedTypes, matchesRow, mergedRow, rowComparator, storedRow } from './filter.js';
import { normalizeNewEvent } from './record.js';
import { chunked, eachRow } from './row-batches.js';
import type { AppendResult, DeleteResult, EventFilter, EventQuery, EventRow, EventStore, NewEvent, QueryOptions, ScanStats, StoredEvent } from './types.js';

/** The finish of each A/K record: the first F after it with the same uniqueid. */
export function finishIndex(records: readonly StoredEvent[]): Map<number, StoredEvent> {
  const open = new Map<string, StoredEvent[]>();
  const finishOf = new Map<number, StoredEvent>();
  for (const r of records) {
    if (r.etype === 'A' || r.etype === 'K') {
      const list = open.get(r.uniqueid);
      if (list) list.push(r);
      else open.set(r.uniqueid, [r]);
    } else if (r.etype === 'F') {
      const list = open.get(r.uniqueid);
      if (list) {
        for (const a of list) finishOf.set(a.recnum, r);
        open.delete(r.uniqueid);
      }
    }
  }
  return finishOf;
}

/** Every row a filter matches, in recnum order. */
export function matchingRows(records: readonly StoredEvent[], f: EventFilter): EventRow[] {
  const types = admittedTypes(f);
  const finishOf = f.dump ? null : finishIndex(records);
  const out: EventRow[] = [];
  for (const r of records) {
    const row = finishOf ? mergedRow(r, finishOf.get(r.recnum) ?? null) : storedRow(r);
    if (matchesRow(row, f, types)) out.push(row);
  }
  return out;
}

export class MemoryStore implements EventStore {
  readonly kind = 'memory' as const;
  readonly stats: ScanStats = { malformed: 0 };
  private records: StoredEvent[] = [];

  constructor(readonly name = 'memory:') {}

  /** A snapshot of every stored record, in recnum order. */
  all(): readonly StoredEvent[] {
    return this.records;
  }

  async *queryBatches(q: EventQuery, opts: QueryOptions = {}): AsyncIterable<EventRow[]> {
    const rows = matchingRows(this.records, q);
    if (q.order !== 'recnum' || q.direction !== 'asc') rows.sort(rowComparator(q.order, q.direction));
    for (const batch of chunked(rows.slice(q.skip, q.skip + q.limit))) {
      opts.signal?.throwIfAborted();
      yield batch;
    }
  }

  query(q: EventQuery, opts?: QueryOptions): AsyncIterable<EventRow> {
    return eachRow(this.queryBatches(q, opts));
  }

  async append(events: Iterable<NewEvent> | AsyncIterable<NewEvent>): Promise<AppendResult> {
    const res: AppendResult = { first: null, last: null, count: 0, skipped: 0 };
    let i = 0;
    for await (const ev0 of events) {
      const ev = normalizeNewEvent(ev0, i++);
      const last = this.records.length ? this.records[this.records.length - 1]!.recnum : 0;
      let recnum = ev.recnum ?? last + 1;
      if (ev.recnum !== undefined && ev.recnum <= last) {
        if (this.records.some((r) => r.recnum === ev.recnum)) {
          res.skipped++;
          continue;
        }
        throw evioError('STORE_RECNUM_ORDER', `recnum ${ev.recnum} is not greater than the last recnum ${last}`);
      }
      const rec = { ...ev, recnum } as StoredEvent;
      this.records.push(rec);
      res.first ??= recnum;
      res.last = recnum;
      res.count++;
      recnum++;
    }
    return res;
  }

  async delete(f: EventFilter): Promise<DeleteResult> {
    const doomed = new Set(matchingRows(this.records, f).map((r) => r.rec.recnum));
    if (!f.dump) {
      // An accept goes with its finish record: no orphaned finishes.
      const finishOf = finishIndex(this.records);
      for (const r of this.records) {
        const fin = finishOf.get(r.recnum);
        if (fin && doomed.has(r.recnum)) doomed.add(fin.recnum);
      }
    }
    const before = this.records.length;
    this.records = this.records.filter((r) => !doomed.has(r.recnum));
    return { deleted: before - this.records.length };
  }

  async lastRecnum(): Promise<number> {
    return this.records.length ? this.records[this.records.length - 1]!.recnum : 0;
  }

  async close(): Promise<void> {}
}
