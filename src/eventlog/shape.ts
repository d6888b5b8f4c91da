// Renders store rows as the service returns them (DESIGN §2), identically for every adapter.
import { formatEpoch, formatIsoInZone, formatLegacyDateTime } from './time.js';
import type { EventRow } from './types.js';

export interface ReturnedEvent {
  recnum: number;
  uniqueid: string;
  etype: string;
  epoch: string;
  submituser: string | null;
  submithost: string | null;
  runuser: string | null;
  runhost: string | null;
  runcommand: string | null;
  exitstatus: string | null;
  offset?: number;
  [key: string]: unknown;
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/**
 * verbose=0: the fixed fields; verbose=1: every stored field, plus epoch and exittime when known,
 * each also as ISO 8601 with the zone's offset (epoch_iso, exittime_iso), which says the zone
 * `epoch` is rendered in.
 */
export function shapeEvent(row: EventRow, verbose: boolean, tz: string): ReturnedEvent {
  const r = row.rec;
  let out: ReturnedEvent;
  if (verbose) {
    out = { ...r, uniqueid: r.uniqueid ?? '', exitstatus: row.exitstatus, epoch: formatEpoch(r.time, tz), epoch_iso: formatIsoInZone(r.time, tz) } as ReturnedEvent;
    if (row.exittime !== null) {
      out.exittime = formatEpoch(row.exittime, tz);
      out.exittime_iso = formatIsoInZone(row.exittime, tz);
    }
  } else {
    out = {
      recnum: r.recnum,
      uniqueid: r.uniqueid ?? '',
      etype: r.etype,
      epoch: formatEpoch(r.time, tz),
      submituser: str(r.submituser),
      submithost: str(r.submithost),
      runuser: str(r.runuser),
      runhost: str(r.runhost),
      runcommand: str(r.runcommand),
      exitstatus: row.exitstatus,
    };
  }
  if (row.offset !== undefined) out.offset = row.offset;
  return out;
}

const LEGACY_EVENT: Record<string, string> = { A: 'Accept', R: 'Reject', K: 'Keystroke', F: 'Finish' };

/** The legacy GET /REST/events record. */
export function shapeLegacyEvent(row: EventRow, tz: string): Record<string, unknown> {
  const r = row.rec;
  const [date, time] = formatLegacyDateTime(r.time, tz);
  const runargv = Array.isArray(r.runargv) ? r.runargv : [];
  return {
    id: r.uniqueid ?? '',
    date,
    time,
    masterhost: str(r.masterhost) ?? '',
    submithost: str(r.submithost) ?? '',
    runhost: str(r.runhost) ?? '',
    user: str(r.submituser) ?? '',
    runuser: str(r.runuser) ?? '',
    event: LEGACY_EVENT[r.etype] ?? r.etype,
    argv: Array.isArray(r.argv) ? r.argv : runargv,
    runargv,
    exitstatus: row.exitstatus ?? '',
  };
}
