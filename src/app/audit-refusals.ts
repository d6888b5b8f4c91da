// The audit log's bound on calls nobody signed. A writing call refused before its signature was
// verified (no key, a wrong hmac, a stale timestamp) costs the caller nothing, so recording each
// one let anyone who can reach the port grow the audit log without bound (~500 bytes a call).
// At most `auditRefusedPerMinute` of them per minute are recorded one by one; the rest are
// counted by client address, and the count is written as one summary reject record when the
// next minute's first refusal arrives, or when the engine closes. Calls with a valid signature
// are never throttled: their refusals (a route the app may not call, the audit log's own
// append-only rule) are recorded one by one, as are all accepted calls.
//
// A budget of calls alone did not bound the bytes: each record carried every parameter the
// caller sent (up to 16 KiB of URL), so one caller added ~13 KB a record, ~721 KiB a minute. Each
// recorded unsigned refusal is now cut to at most MAX_REFUSAL_BYTES (its first parameters,
// each shortened; then fewer), and its caller is never named as a fact: `submituser` is the fixed
// marker UNAUTHENTICATED (no appid can be spelled so) and the appid the call claimed is kept as
// `claimed_appid`.
import { Buffer } from 'node:buffer';
import type { Engine } from '../engine.js';
import { auditRecords, recordAudit, type AuditEntry } from './audit.js';

/** submituser of a call whose signature was not verified: not an appid (APPID_RE never matches). */
export const UNAUTHENTICATED = '(unauthenticated)';

/** The longest line one recorded unsigned refusal may add to the audit log (with its recnum). */
export const MAX_REFUSAL_BYTES = 1024;
/** The longest summary record line (SUMMARY_ADDRESSES addresses at most). */
export const MAX_SUMMARY_BYTES = 4096;
/** What is kept of an unsigned call's parameters. */
const REFUSAL_ARGS = 8;
const REFUSAL_ARG_CHARS = 64;
const REFUSAL_OUTCOME_CHARS = 200;
/** Room left for the recnum the store adds, and the newline. */
const RECNUM_ROOM = 32;

/** Client addresses named in a summary record; the rest are counted under `others`. */
const SUMMARY_ADDRESSES = 32;
const WINDOW_MS = 60_000;

export interface RefusalVerdict {
  /** Record this call one by one. */
  record: boolean;
  /** A summary of the calls the last window did not record, to be written first. */
  summary: SuppressedCalls | null;
}

export interface SuppressedCalls {
  count: number;
  /** Calls per client address, the busiest first, at most SUMMARY_ADDRESSES of them. */
  byAddress: Array<[string, number]>;
  /** Calls from addresses beyond the first SUMMARY_ADDRESSES. */
  others: number;
  windowStart: number;
}

/** The per-minute budget of unsigned refusals; a pure state machine (the clock is passed in). */
export class RefusalWindow {
  private windowStart = -Infinity;
  private recorded = 0;
  private suppressed = new Map<string, number>();
  private suppressedCount = 0;
  private othersCount = 0;

  constructor(private readonly perMinute: number) {}

  admit(from: string, nowMs: number): RefusalVerdict {
    let summary: SuppressedCalls | null = null;
    if (nowMs - this.windowStart >= WINDOW_MS || nowMs < this.windowStart) {
      summary = this.drain();
      this.windowStart = nowMs;
      this.recorded = 0;
    }
    if (this.recorded < this.perMinute) {
      this.recorded++;
      return { record: true, summary };
    }
    this.suppressedCount++;
    // Bounded memory: only the first SUMMARY_ADDRESSES distinct addresses of a window are kept.
    const had = this.suppressed.get(from);
    if (had !== undefined) this.suppressed.set(from, had + 1);
    else if (this.suppressed.size < SUMMARY_ADDRESSES) this.suppressed.set(from, 1);
    else this.othersCount++;
    return { record: false, summary };
  }

  /** The calls not recorded in the current window (null when there were none); resets them. */
  drain(): SuppressedCalls | null {
    if (this.suppressedCount === 0) return null;
    const out: SuppressedCalls = {
      count: this.suppressedCount,
      byAddress: [...this.suppressed].sort((a, b) => b[1] - a[1]),
      others: this.othersCount,
      windowStart: this.windowStart,
    };
    this.suppressed = new Map();
    this.suppressedCount = 0;
    this.othersCount = 0;
    return out;
  }
}

/** The summary reject record of the calls a window did not record one by one. */
export function summaryEntry(s: SuppressedCalls): AuditEntry {
  const addresses = s.byAddress.map(([ip, n]) => `${ip}=${n}`);
  if (s.others > 0) addresses.push(`others=${s.others}`);
  return {
    accepted: false,
    user: UNAUTHENTICATED,
    from: s.byAddress.length === 1 && s.others === 0 ? s.byAddress[0]![0] : '(several)',
    command: 'refused unsigned calls',
    argv: addresses,
    outcome: `${s.count} unsigned writing calls refused and not recorded one by one (over auditRefusedPerMinute)`,
    status: 0,
    started: s.windowStart / 1000,
    extra: { suppressed: s.count },
  };
}

class RefusalGate {
  readonly window: RefusalWindow;
  constructor(
    private readonly engine: Engine,
    perMinute: number,
  ) {
    this.window = new RefusalWindow(perMinute);
  }

  /** Writes what the last window left unrecorded, so a stopped server loses no count. */
  async close(): Promise<void> {
    const s = this.window.drain();
    if (s) await recordAudit(this.engine, summaryEntry(s)).catch(() => undefined);
  }
}

const cut = (s: string, n: number): string => (s.length > n ? `${s.slice(0, n)}…` : s);

/** Bytes of the record an entry is written as (the first one: an unsigned refusal is one R). */
function recordBytes(e: AuditEntry): number {
  const rec = auditRecords(e, e.started)[0]!;
  return Buffer.byteLength(JSON.stringify(rec)) + RECNUM_ROOM;
}

/**
 * An unsigned refusal as it may be recorded: its first REFUSAL_ARGS parameters, each cut to
 * REFUSAL_ARG_CHARS characters, a count of the others, the outcome cut to REFUSAL_OUTCOME_CHARS;
 * then, while its line would still pass MAX_REFUSAL_BYTES (escapes, multi-byte characters),
 * fewer parameters and a shorter outcome. Extra keys are cut the same way.
 */
export function boundedRefusal(e: AuditEntry): AuditEntry {
  const argv = e.argv.slice(0, REFUSAL_ARGS).map((w) => cut(w, REFUSAL_ARG_CHARS));
  let dropped = e.argv.length - argv.length;
  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(e.extra ?? {}).slice(0, 8)) extra[cut(k, 32)] = typeof v === 'string' ? cut(v, REFUSAL_ARG_CHARS) : typeof v === 'number' || typeof v === 'boolean' || v === null ? v : '(omitted)';
  const out: AuditEntry = { ...e, user: cut(e.user, REFUSAL_ARG_CHARS), from: cut(e.from, REFUSAL_ARG_CHARS), command: cut(e.command, REFUSAL_ARG_CHARS), outcome: cut(e.outcome, REFUSAL_OUTCOME_CHARS), extra };
  const withArgs = () => (dropped > 0 ? [...argv, `(+${dropped} more parameters)`] : argv);
  out.argv = withArgs();
  while (recordBytes(out) > MAX_REFUSAL_BYTES && argv.length > 0) {
    argv.pop();
    dropped++;
    out.argv = withArgs();
  }
  if (recordBytes(out) > MAX_REFUSAL_BYTES) out.outcome = cut(out.outcome, 40);
  return out;
}

/**
 * Records a writing call refused before its signature was verified, within the per-minute
 * budget and cut to MAX_REFUSAL_BYTES (see the top of this file). Throws AUDIT_WRITE_FAILED as
 * recordAudit does.
 */
export async function recordUnsignedRefusal(engine: Engine, e: AuditEntry): Promise<void> {
  const gate = await engine.resource('audit:refusals', () => new RefusalGate(engine, engine.settings.auditRefusedPerMinute));
  const verdict = gate.window.admit(e.from, Date.now());
  if (verdict.summary) await recordAudit(engine, summaryEntry(verdict.summary));
  if (verdict.record) await recordAudit(engine, boundedRefusal(e));
}
