// The audit log's bound on calls nobody signed. A writing call refused before its signature was
// verified (no key, a wrong hmac, a stale timestamp) costs the caller nothing, so recording each
// one let anyone who can reach the port grow the audit log without bound (~500 bytes a call).
// At most `auditRefusedPerMinute` of them per minute are recorded one by one; the rest are
// counted by client address, and the count is written as one summary reject record when the
// next minute's first refusal arrives, or when the engine closes. Calls with a valid signature
// are never throttled: their refusals (a route the app may not call, the audit log's own
// append-only rule) are recorded one by one, as are all accepted calls.
import type { Engine } from '../engine.js';
import { recordAudit, type AuditEntry } from './audit.js';

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
    user: '(unsigned)',
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

/**
 * Records a writing call refused before its signature was verified, within the per-minute
 * budget (see the top of this file). Throws AUDIT_WRITE_FAILED as recordAudit does.
 */
export async function recordUnsignedRefusal(engine: Engine, e: AuditEntry): Promise<void> {
  const gate = await engine.resource('audit:refusals', () => new RefusalGate(engine, engine.settings.auditRefusedPerMinute));
  const verdict = gate.window.admit(e.from, Date.now());
  if (verdict.summary) await recordAudit(engine, summaryEntry(verdict.summary));
  if (verdict.record) await recordAudit(engine, e);
}
