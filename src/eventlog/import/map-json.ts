// sudo JSON events -> evio records (docs/jobs.md, "Mapping"):
//   accept with iolog_path -> K (iolog = iolog_path), accept -> A, reject -> R,
//   exit -> F joined to its accept by uuid (an exit carries no user or command: the finish
//   repeats them from the accept), alert -> skipped (counted) or R with --alerts reject.
// Every source field is kept on the record under its own name (record-fields.ts).
import type { MapContext, MappedEvent, AcceptInfo } from './types.js';
import type { SudoJsonEvent } from './sudo-json-reader.js';
import { alertStatusText, BoundedMap, compact, derivedId, exitStatusText, rejectStatusText, sha1Hex, sourceFields, sudoTime } from './record-fields.js';

const TIME_MEMBER: Record<string, string> = { accept: 'submit_time', reject: 'submit_time', exit: 'exit_time', alert: 'alert_time' };

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export class SudoJsonMapper {
  /** Accepts waiting for their exit, by uuid. */
  private readonly open: BoundedMap<string, AcceptInfo>;

  constructor(private readonly ctx: MapContext) {
    this.open = new BoundedMap(ctx.maxOpenAccepts);
  }

  map(ev: SudoJsonEvent): MappedEvent {
    const b = ev.body;
    const pos = { start: ev.start, end: ev.end, line: ev.line };
    const uuid = str(b.uuid);
    const t = sudoTime(b[TIME_MEMBER[ev.kind] ?? 'submit_time']) ?? sudoTime(b.server_time);
    // The identity of a source event: uuid + kind + its own time (sub-commands share a uuid but
    // not a submit time; an alert shares its accept's uuid but not its kind).
    const key = uuid !== undefined && t ? `sudo-json:${uuid}:${ev.kind}:${t.seconds}.${String(t.nanoseconds).padStart(9, '0')}` : `sudo-json:${ev.kind}:${sha1Hex(JSON.stringify(b))}`;
    const base = { key, kind: ev.kind, ...pos };
    if (!t) return { ...base, record: null, skip: 'no-time' };
    const uniqueid = uuid ?? derivedId(key);
    const kept = sourceFields(b);
    const info = {
      submituser: str(b.submituser),
      submithost: str(b.submithost),
      runuser: str(b.runuser),
      // sudo runs the command on the host it was submitted on.
      runhost: str(b.submithost),
      runcommand: str(b.command),
    };
    const common = {
      ...kept,
      uniqueid,
      time: t.value,
      ...info,
      runargv: Array.isArray(b.runargv) && b.runargv.every((a) => typeof a === 'string') ? (b.runargv as string[]) : undefined,
      cwd: str(b.runcwd) ?? str(b.submitcwd),
      ttyname: str(b.ttyname),
      sudo_kind: ev.kind,
      import_key: key,
    };
    switch (ev.kind) {
      case 'accept': {
        const iolog = str(b.iolog_path);
        const etype = iolog ? 'K' : 'A';
        this.open.set(uniqueid, { uniqueid, ...info });
        return { ...base, record: compact({ ...common, etype, iolog }) };
      }
      case 'reject': {
        const reason = str(b.reason) ?? 'rejected';
        return { ...base, record: compact({ ...common, etype: 'R', reason, exitstatus: rejectStatusText(reason) }) };
      }
      case 'alert': {
        if (this.ctx.alerts === 'skip') return { ...base, record: null, skip: 'alert' };
        const reason = str(b.reason) ?? 'alert';
        return { ...base, record: compact({ ...common, etype: 'R', reason, exitstatus: alertStatusText(reason) }) };
      }
      case 'exit': {
        const accept = this.open.get(uniqueid) ?? this.ctx.storeAccepts.get(uniqueid);
        this.open.delete(uniqueid);
        const exitValue = typeof b.exit_value === 'number' && Number.isFinite(b.exit_value) ? b.exit_value : null;
        const signal = str(b.signal) ?? null;
        const rec = compact({
          ...kept,
          uniqueid,
          etype: 'F',
          time: t.value,
          submituser: accept?.submituser,
          submithost: accept?.submithost,
          runuser: accept?.runuser,
          runhost: accept?.runhost,
          runcommand: accept?.runcommand,
          exitstatus: exitStatusText(exitValue, signal, b.dumped_core === true),
          exitcode: exitValue ?? undefined,
          sudo_kind: ev.kind,
          import_key: key,
        });
        return accept ? { ...base, record: rec } : { ...base, record: rec, orphanExit: uniqueid };
      }
      default:
        return { ...base, record: null, skip: 'unknown-kind' };
    }
  }
}
