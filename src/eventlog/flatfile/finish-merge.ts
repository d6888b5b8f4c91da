// The finish merge of a sequential scan (DESIGN §2) in bounded memory. With dump=0 an accept's
// row carries the exit status of its finish record, which comes later in the file, while rows
// must leave in file (= recnum) order. So candidate rows wait in a queue; an accept waits until
// its finish arrives (or the file ends), the rows behind it wait for it, and the queue's head
// leaves as soon as it is resolved. Only what the answer can still use is kept:
// - without exit filters every candidate is a row, so the first `skip` are counted and dropped
//   on sight, and once skip+limit are known no new candidate is admitted (the scan then only
//   looks for the finishes of the queued accepts);
// - with exit filters a candidate's membership is known when its finish arrives; non-members
//   are dropped, and once skip+limit members are certain, later candidates are cut.
// The number of held rows is bounded by maxOpenAccepts (STORE_TOO_MANY_OPEN beyond it), and
// once more than PACK_AFTER rows are held (an accept that never finishes holds every row behind
// it until the end of the file), rows are kept as their line's JSON text (a one-byte string
// for ASCII: several times smaller than the parsed object) and parsed again when they leave.
// With dump=1 nothing waits: each candidate is resolved at once with its stored values.
import { evioError } from '../../errors.js';
import { matchesExit, mergedRow, storedRow, usesExitFilters } from '../filter.js';
import type { EventFilter, EventRow, StoredEvent } from '../types.js';
import { parseJsonText, toStoredEvent } from './parse-line.js';
import { uniqueidHash } from './prefilter.js';

const PENDING = 0;
const MEMBER = 1;
const DEAD = 2;

/** Held rows beyond this many are packed (kept as line bytes). */
export const PACK_AFTER = 1024;

interface Entry {
  /** The record; null once packed. */
  rec: StoredEvent | null;
  /** The line's text, when the entry is (or will be, once resolved) packed. */
  line: string | null;
  recnum: number;
  uniqueid: string | undefined;
  exitstatus: string | null;
  exittime: number | null;
  offset: number;
  state: typeof PENDING | typeof MEMBER | typeof DEAD;
  /** uniqueidHash of a pending accept (-1: none). */
  hash: number;
}


export class FinishMerge {
  /** New candidates are taken (false once the answer is complete). */
  admitting: boolean;
  /** Accepts waiting for their finish. */
  pendingCount = 0;
  /** Canonical uniqueid hash -> number of waiting accepts (prefilter.ts: find finish lines without parsing). */
  readonly pendingHashes = new Map<number, number>();
  emitted = 0;

  private readonly dump: boolean;
  private readonly exitFilters: boolean;
  private readonly need: number;
  private readonly queue: Entry[] = [];
  private head = 0;
  private readonly pending = new Map<string | undefined, Entry[]>();
  /** Rows known to be in the answer: skipped, emitted, or members still queued (no exit filters: every candidate). */
  private certain = 0;
  private skipped = 0;
  /** Entries resolved as non-members still in the queue (dropped by compact()). */
  private dead = 0;

  constructor(
    private readonly filter: EventFilter,
    private readonly skip: number,
    private readonly limit: number,
    private readonly maxOpen: number,
    private readonly packAfter = PACK_AFTER,
  ) {
    this.dump = filter.dump;
    this.exitFilters = usesExitFilters(filter);
    this.need = skip + limit;
    this.admitting = limit > 0;
  }

  /** The answer is complete: nothing more can be emitted. */
  get done(): boolean {
    return this.emitted >= this.limit || (!this.admitting && this.head === this.queue.length);
  }

  /** Rows held back (queued, not yet emitted, not known to be dropped). */
  get held(): number {
    return this.queue.length - this.head - this.dead;
  }

  /**
   * A record that passed matchesRecord, parsed from the JSON `text` of its line, at file
   * position `offset` (just after its line).
   */
  addCandidate(rec: StoredEvent, offset: number, text: string): void {
    if (!this.admitting) return;
    if (this.dump || (rec.etype !== 'A' && rec.etype !== 'K')) {
      const row = this.dump ? storedRow(rec) : mergedRow(rec, null);
      if (this.exitFilters && !matchesExit(row, this.filter)) return;
      this.certain++;
      if (this.skipped < this.skip && this.held === 0) {
        this.skipped++;
      } else {
        const packed = this.held >= this.packAfter;
        this.push({
          rec: packed ? null : rec,
          line: packed ? text : null,
          recnum: rec.recnum,
          uniqueid: rec.uniqueid,
          exitstatus: row.exitstatus,
          exittime: row.exittime,
          offset,
          state: MEMBER,
          hash: -1,
        });
      }
    } else if (!this.exitFilters && this.skipped < this.skip && this.held === 0) {
      // Every candidate is a row and nothing is queued before it: its rank is known, so the
      // first `skip` need no finish at all.
      this.certain++;
      this.skipped++;
    } else {
      const h = typeof rec.uniqueid === 'string' ? uniqueidHash(rec.uniqueid) : -1;
      const entry: Entry = {
        rec,
        line: this.held >= this.packAfter ? text : null,
        recnum: rec.recnum,
        uniqueid: rec.uniqueid,
        exitstatus: null,
        exittime: null,
        offset,
        state: PENDING,
        hash: h,
      };
      this.push(entry);
      const list = this.pending.get(rec.uniqueid);
      if (list) list.push(entry);
      else this.pending.set(rec.uniqueid, [entry]);
      this.pendingCount++;
      if (h !== -1) this.pendingHashes.set(h, (this.pendingHashes.get(h) ?? 0) + 1);
      if (!this.exitFilters) this.certain++;
    }
    if (this.certain >= this.need) this.admitting = false;
  }

  /** A finish record: resolves every accept with its uniqueid that waits (it is their first F). */
  offerFinish(fin: StoredEvent): void {
    const list = this.pending.get(fin.uniqueid);
    if (!list) return;
    this.pending.delete(fin.uniqueid);
    for (const e of list) this.resolve(e, fin);
    if (this.exitFilters && this.certain >= this.need) this.cutTail();
  }

  /** End of file: accepts still waiting have no finish. */
  endOfInput(): void {
    for (const list of this.pending.values()) for (const e of list) this.resolve(e, null);
    this.pending.clear();
    this.admitting = false;
    if (this.exitFilters && this.certain >= this.need) this.cutTail();
  }

  /** Moves the resolved rows at the head of the queue to `out`, honouring skip and limit. */
  drain(out: EventRow[]): void {
    const q = this.queue;
    while (this.head < q.length && this.emitted < this.limit) {
      const e = q[this.head]!;
      if (e.state === PENDING) break;
      q[this.head++] = undefined as unknown as Entry;
      if (e.state === DEAD) {
        this.dead--;
        continue;
      }
      if (this.skipped < this.skip) {
        this.skipped++;
        continue;
      }
      out.push({ rec: e.rec ?? unpack(e), exitstatus: e.exitstatus, exittime: e.exittime, offset: e.offset });
      this.emitted++;
    }
    if (this.head > 4096 && this.head * 2 > q.length) {
      q.splice(0, this.head);
      this.head = 0;
    }
  }

  private push(e: Entry): void {
    this.queue.push(e);
    if (this.held > this.maxOpen) {
      throw evioError(
        'STORE_TOO_MANY_OPEN',
        `more than ${this.maxOpen} rows wait for the finish records of earlier accepts (maxOpenAccepts); ` +
          'narrow the query (a time range, end=, a user or host), use dump=1, or query a database copy of the log',
      );
    }
  }

  private resolve(e: Entry, fin: StoredEvent | null): void {
    if (e.state !== PENDING) return;
    this.pendingCount--;
    this.unhash(e.hash);
    const merged = mergedRow(e.rec!, fin);
    e.exitstatus = merged.exitstatus;
    e.exittime = merged.exittime;
    if (e.line !== null) e.rec = null;
    if (this.exitFilters) {
      if (matchesExit(merged, this.filter)) {
        e.state = MEMBER;
        this.certain++;
      } else {
        e.state = DEAD;
        e.rec = null;
        e.line = null;
        this.dead++;
        if (this.dead > 4096 && this.dead * 2 > this.queue.length - this.head) this.compact();
      }
    } else {
      e.state = MEMBER;
    }
  }

  /**
   * With exit filters, once skip+limit members are certain, rows after the last one the answer
   * can use are dropped (and their accepts stop waiting), so the scan can end sooner.
   */
  private cutTail(): void {
    const q = this.queue;
    this.admitting = false;
    while (q.length > this.head) {
      const tail = q[q.length - 1]!;
      if (tail.state === MEMBER && this.certain <= this.need) break;
      q.pop();
      if (tail.state === MEMBER) this.certain--;
      else if (tail.state === PENDING) this.forget(tail);
      else this.dead--;
    }
  }

  /** Drops the non-members from the queue: behind an accept that never finishes they would pile up. */
  private compact(): void {
    const kept: Entry[] = [];
    for (let i = this.head; i < this.queue.length; i++) {
      const e = this.queue[i]!;
      if (e.state !== DEAD) kept.push(e);
    }
    this.queue.length = 0;
    for (const e of kept) this.queue.push(e);
    this.head = 0;
    this.dead = 0;
  }

  private forget(e: Entry): void {
    const uid = e.uniqueid;
    const list = this.pending.get(uid);
    if (list) {
      const i = list.indexOf(e);
      if (i >= 0) list.splice(i, 1);
      if (list.length === 0) this.pending.delete(uid);
    }
    this.pendingCount--;
    this.unhash(e.hash);
  }

  private unhash(h: number): void {
    if (h === -1) return;
    const n = (this.pendingHashes.get(h) ?? 1) - 1;
    if (n > 0) this.pendingHashes.set(h, n);
    else this.pendingHashes.delete(h);
  }
}

/** The record of a packed entry: its line parsed again (it was a valid event line). */
function unpack(e: Entry): StoredEvent {
  const rec = toStoredEvent(parseJsonText(e.line!), e.recnum);
  if (rec === null) throw new Error('a held flat-file line no longer parses');
  return rec;
}
