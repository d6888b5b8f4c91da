// sudo text-log records -> evio records (docs/jobs.md, "Mapping"). The same rules as the JSON
// mapper, with what the text format lacks made up for:
// - no uuid: an accept's uniqueid is derived from its line (and its occurrence among identical
//   lines of the same second), so a re-import derives the same one; its exit line is joined to
//   it by the same fields (minus TSID, which 1.9.13 shortens on accepts), in order;
// - no year (without log_year) and no zone: --year / the file's mtime, and --timezone;
// - TSID instead of an I/O log path: `000001` -> `00/00/01` under --iolog-dir (or relative,
//   which a purge resolves against the first I/O log root).
import { join } from 'node:path';
import { wallClockToUnix } from '../time.js';
import type { AcceptInfo, MapContext, MappedEvent } from './types.js';
import { parseTextBody, unescapeOctal } from './sudo-text-parse.js';
import type { TextLogRecord } from './sudo-text-reader.js';
import { alertStatusText, BoundedMap, compact, derivedId, exitStatusText, rejectStatusText, sha1Hex } from './record-fields.js';

const MONTHS: Record<string, number> = { Jan: 1, Feb: 2, Mar: 3, Apr: 4, May: 5, Jun: 6, Jul: 7, Aug: 8, Sep: 9, Oct: 10, Nov: 11, Dec: 12 };
const CLASSIC_RE = /^([A-Z][a-z]{2}) ([ \d]\d) (\d\d):(\d\d):(\d\d)(?: (\d{4}))?$/;

/** A TSID as 1.9.13 writes it on accept lines: only its last 2 characters. */
const SHORT_TSID = /^[0-9A-Za-z]{2}$/;

/** Unix seconds of a logged date, or null. Dates without a year take ctx.year, else the mtime's year (one year earlier when that would put the date after the file's mtime). */
export function textLogTime(dateText: string, ctx: MapContext): number | null {
  if (/^\d{4}-/.test(dateText)) {
    // Fractions are added apart: Date.parse keeps milliseconds only, rsyslog writes microseconds.
    const frac = /\.(\d+)/.exec(dateText);
    const whole = dateText.replace(/\.\d+/, '');
    if (/(Z|[+-]\d\d:?\d\d)$/.test(whole)) {
      const ms = Date.parse(whole.replace(/([+-]\d\d)(\d\d)$/, '$1:$2'));
      return Number.isFinite(ms) ? ms / 1000 + (frac ? Number(`0.${frac[1]}`) : 0) : null;
    }
    const m = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)$/.exec(whole);
    if (!m) return null;
    return wallClockToUnix(+m[1]!, +m[2]!, +m[3]!, +m[4]!, +m[5]!, +m[6]!, ctx.timezone) + (frac ? Number(`0.${frac[1]}`) : 0);
  }
  const m = CLASSIC_RE.exec(dateText);
  if (!m) return null;
  const mo = MONTHS[m[1]!];
  if (!mo) return null;
  const d = Number(m[2]!.trim());
  const [h, mi, s] = [Number(m[3]), Number(m[4]), Number(m[5])];
  if (m[6] !== undefined) return wallClockToUnix(Number(m[6]), mo, d, h, mi, s, ctx.timezone);
  if (ctx.year !== null) return wallClockToUnix(ctx.year, mo, d, h, mi, s, ctx.timezone);
  const y = new Date(ctx.mtimeMs).getUTCFullYear();
  const t = wallClockToUnix(y, mo, d, h, mi, s, ctx.timezone);
  return t * 1000 > ctx.mtimeMs + 86_400_000 ? wallClockToUnix(y - 1, mo, d, h, mi, s, ctx.timezone) : t;
}

/** The relative session path of a TSID: 6 base-36 characters are sudo's %{seq} (XX/XX/XX). */
export function tsidPath(tsid: string): string {
  return /^[0-9A-Z]{6}$/i.test(tsid) ? `${tsid.slice(0, 2)}/${tsid.slice(2, 4)}/${tsid.slice(4, 6)}` : tsid;
}

interface OpenAccept extends AcceptInfo {
  key: string;
  tsid: string | null;
}

export class SudoTextMapper {
  /** Accepts waiting for their exit, by the fields an exit line repeats. */
  private readonly open: BoundedMap<string, OpenAccept[]>;
  /** Occurrences of identical lines within one logged second. */
  private seen = new Map<string, number>();
  private seenDate = '';

  constructor(private readonly ctx: MapContext) {
    this.open = new BoundedMap(ctx.maxOpenAccepts);
  }

  private occurrence(r: TextLogRecord): number {
    if (r.dateText !== this.seenDate) {
      this.seen = new Map();
      this.seenDate = r.dateText;
    }
    const h = sha1Hex(r.text);
    const n = this.seen.get(h) ?? 0;
    this.seen.set(h, n + 1);
    return n;
  }

  map(r: TextLogRecord): MappedEvent {
    const occ = this.occurrence(r);
    const key = `sudo-text:${sha1Hex(r.text).slice(0, 32)}:${occ}`;
    const parsed = parseTextBody(r.body);
    const f = parsed.fields;
    const base = { key, kind: parsed.kind, start: r.start, end: r.end, line: r.line };
    const time = textLogTime(r.dateText, this.ctx);
    if (time === null || time < 0) return { ...base, record: null, skip: 'no-time' };
    const host = f.HOST !== undefined ? unescapeOctal(f.HOST) : (r.syslog?.host ?? this.ctx.host ?? undefined);
    const runuser = f.USER !== undefined ? unescapeOctal(f.USER) : undefined;
    const tty = f.TTY !== undefined ? unescapeOctal(f.TTY) : undefined;
    const argv = parsed.argv ?? undefined;
    const runcommand = argv?.[0];
    const info = { submituser: r.user, submithost: host, runuser, runhost: host, runcommand };
    // A wrap point inside COMMAND where sudo may have eaten a run of spaces (sudo-text-reader):
    // the argv keeps the fewest empty arguments the text allows, and says so.
    // (A break at the end of the value counts: the eaten run may hold trailing empty arguments.)
    const valueAt = f.COMMAND !== undefined ? r.body.indexOf('COMMAND=') + 8 : -1;
    const uncertain = valueAt >= 8 && (r.uncertainBreaks ?? []).some((b) => b > valueAt && b <= valueAt + f.COMMAND!.length);
    const kept = {
      sudo_kind: parsed.kind,
      sudo_line: r.text,
      sudo_fields: f,
      ...(r.syslog ? { sudo_syslog: r.syslog } : {}),
      ...(uncertain ? { sudo_argv_uncertain: true } : {}),
      import_key: key,
    };
    const common = {
      time,
      ...info,
      runargv: argv,
      cwd: f.PWD !== undefined ? unescapeOctal(f.PWD) : f.CWD !== undefined ? unescapeOctal(f.CWD) : undefined,
      ttyname: tty === undefined ? undefined : tty.startsWith('/') || tty === 'unknown' ? tty : `/dev/${tty}`,
      ...kept,
    };
    switch (parsed.kind) {
      case 'accept': {
        const uniqueid = derivedId(key);
        const rawTsid = f.TSID !== undefined ? f.TSID.replace(/@.*$/, '') : null;
        const fixed = this.ctx.tsidFixes.get(key);
        const tsid = fixed ?? rawTsid;
        // A 1.9.13 short TSID that no exit line completed names no session we could find.
        const iolog = tsid === null || (fixed === undefined && SHORT_TSID.test(tsid)) ? undefined : this.ctx.iologDir ? join(this.ctx.iologDir, tsidPath(tsid)) : tsidPath(tsid);
        const joinKey = this.joinKey(r, f);
        const list = this.open.get(joinKey) ?? [];
        list.push({ key, uniqueid, tsid: rawTsid, ...info });
        this.open.set(joinKey, list);
        return { ...base, record: compact({ uniqueid, etype: tsid !== null ? 'K' : 'A', ...common, iolog }) };
      }
      case 'exit': {
        const joinKey = this.joinKey(r, f);
        const list = this.open.get(joinKey);
        const exitTsid = f.TSID !== undefined ? f.TSID.replace(/@.*$/, '') : null;
        // The oldest open accept with a compatible session ID (equal, or its 1.9.13 short form).
        const i = list ? list.findIndex((a) => a.tsid === exitTsid || (a.tsid !== null && exitTsid !== null && exitTsid.endsWith(a.tsid))) : -1;
        const accept = i >= 0 ? list!.splice(i, 1)[0]! : undefined;
        if (list && list.length === 0) this.open.delete(joinKey);
        if (accept && exitTsid !== null && accept.tsid !== exitTsid && this.ctx.tsidFixes.size < this.ctx.maxOpenAccepts) this.ctx.tsidFixes.set(accept.key, exitTsid);
        const uniqueid = accept?.uniqueid ?? derivedId(key);
        const rec = compact({
          uniqueid,
          etype: 'F',
          ...common,
          exitstatus: exitStatusText(parsed.exitValue, parsed.signal),
          exitcode: parsed.exitValue ?? undefined,
          signal: parsed.signal ?? undefined,
        });
        return { ...base, record: rec };
      }
      case 'reject': {
        const reason = unescapeOctal(parsed.reason ?? 'rejected');
        return { ...base, record: compact({ uniqueid: derivedId(key), etype: 'R', ...common, reason, exitstatus: rejectStatusText(reason) }) };
      }
      case 'alert': {
        if (this.ctx.alerts === 'skip') return { ...base, record: null, skip: 'alert' };
        const reason = unescapeOctal(parsed.reason ?? r.body);
        return { ...base, record: compact({ uniqueid: derivedId(key), etype: 'R', ...common, reason, exitstatus: alertStatusText(reason) }) };
      }
    }
  }

  /** What an exit line repeats of its accept line: everything but TSID and the exit suffix. */
  private joinKey(r: TextLogRecord, f: Record<string, string>): string {
    const { TSID: _t, EXIT: _e, SIGNAL: _s, ...rest } = f;
    // A trailing empty argument is a trailing space: kept before " ; EXIT=", but lost on an
    // accept line whose end was trimmed (by a syslog daemon or an editor).
    if (rest.COMMAND !== undefined) rest.COMMAND = rest.COMMAND.trimEnd();
    return `${r.syslog?.host ?? ''}\u0000${r.user}\u0000${JSON.stringify(rest)}`;
  }
}
