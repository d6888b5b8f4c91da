// Reads sudo's classic text event log as logical records, streaming (sudo-notes §3.1):
// - the file log (`logfile=`): `<date> : <user> : <body>`, wrapped at loglinelen with
//   continuation lines that start with 4 spaces (joined back with one space);
// - syslog lines: `[<PRI>]<stamp> [host] sudo[pid]: <user, right-aligned> : <body>`, long
//   messages continued on further lines as `<user> : (command continued) <rest>` (joined back
//   with one space, or none where sudo cut a piece without spaces at the limit).
// Lines that are neither (other programs, sudo's PAM messages) are counted and skipped.
import { readLineBatches, type LineSourceOptions } from './line-source.js';
import type { ReadStop, SourcePosition } from './types.js';

export interface SyslogPrefix {
  pri: number | null;
  stamp: string;
  host: string | null;
  pid: number | null;
}

export interface TextLogRecord extends SourcePosition {
  /** The logical record: physical lines joined (what the import key and derived IDs hash). */
  text: string;
  /** The date as logged (file log), or the syslog time stamp. */
  dateText: string;
  user: string;
  body: string;
  syslog: SyslogPrefix | null;
  /**
   * Offsets in `body` of file-log wrap points where sudo may have eaten more than one space: it
   * breaks at the last space within loglinelen columns and drops every space after it, so a
   * physical line shorter than that width lost exactly one (the one the join puts back), while
   * a line of the full width (80, sudo's default) may have lost a longer run. For syslog
   * "(command continued)" breaks: a piece that ended in spaces. Only filled when there is such
   * a break.
   */
  uncertainBreaks?: number[];
}

/** sudo's default `loglinelen`: a wrapped line this long may have lost more than one space. */
export const DEFAULT_LOGLINELEN = 80;

export interface SudoTextReport {
  /** Byte offset just after the last whole record. */
  endOffset: number;
  stop: ReadStop | null;
  /** Lines that are not sudo records (syslog lines of other programs, PAM messages). */
  otherLines: number;
  /** Syslog continuations with no record to continue. */
  orphanContinuations: number;
  records: number;
  /** File-log records, syslog records. */
  fileRecords: number;
  syslogRecords: number;
}

export function emptyTextReport(): SudoTextReport {
  return { endOffset: 0, stop: null, otherLines: 0, orphanContinuations: 0, records: 0, fileRecords: 0, syslogRecords: 0 };
}

const FILE_RE = /^([A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d(?: \d{4})?) : (\S+) : (.*)$/;
const STAMP = String.raw`[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)?`;
const SYSLOG_RE = new RegExp(String.raw`^(?:<(\d{1,3})>)?(${STAMP}) (?:(\S+) )?sudo(?:\[(\d+)\])?: +(\S+) : (.*)$`);
const CONTINUED = '(command continued) ';

interface Pending {
  rec: TextLogRecord;
  lastComplete: boolean;
  /** The message text of the last syslog line (without "(command continued) "). */
  syslogPiece: string;
  /** Length in bytes of the last physical line (its indent included), as sudo counts columns. */
  lastLength: number;
}

/** Streams the records of a sudo text log. `report` is filled as reading goes. */
export async function* readSudoText(path: string, report: SudoTextReport, opts: LineSourceOptions = {}): AsyncGenerator<TextLogRecord> {
  let pending: Pending | null = null;
  const emit = (p: Pending): TextLogRecord => {
    report.records++;
    if (p.rec.syslog) report.syslogRecords++;
    else report.fileRecords++;
    report.endOffset = p.rec.end;
    return p.rec;
  };
  for await (const batch of readLineBatches(path, opts)) for (const l of batch) {
    const text = l.oversized ? '' : l.text;
    if (!l.complete && pending?.rec.syslog) {
      // The data ends inside a line that may continue the pending syslog record.
      report.stop = { offset: pending.rec.start, line: pending.rec.line, reason: 'the last record may be incomplete (the data ends inside the line after it)', truncated: true };
      return;
    }
    // A continuation of a wrapped file-log record.
    if (pending && !pending.rec.syslog && text.startsWith('    ') && pending.lastComplete) {
      if (pending.lastLength >= DEFAULT_LOGLINELEN) (pending.rec.uncertainBreaks ??= []).push(pending.rec.body.length);
      pending.rec.text += ` ${text.slice(4)}`;
      pending.rec.body += ` ${text.slice(4)}`;
      pending.rec.end = l.end;
      pending.lastComplete = l.complete;
      pending.lastLength = Buffer.byteLength(text);
      continue;
    }
    const file = FILE_RE.exec(text);
    if (file) {
      if (pending) yield emit(pending);
      pending = { rec: { text, dateText: file[1]!, user: file[2]!, body: file[3]!, syslog: null, start: l.start, end: l.end, line: l.line }, lastComplete: l.complete, lastLength: Buffer.byteLength(text), syslogPiece: '' };
      continue;
    }
    const sys = SYSLOG_RE.exec(text);
    if (sys) {
      const [, pri, stamp, host, pid, user, body] = sys as unknown as [string, string | undefined, string, string | undefined, string | undefined, string, string];
      if (body.startsWith(CONTINUED)) {
        if (pending?.rec.syslog && pending.rec.user === user && pending.rec.syslog.host === (host ?? null)) {
          const more = body.slice(CONTINUED.length);
          // sudo splits a long message at the last space that fits and drops the spaces there
          // (joined back with one), or, when the piece has no space at all, cuts it at the
          // limit and drops nothing (joined back with none). A piece ending in spaces broke
          // inside a run of spaces that may have gone on past the limit (syslog_maxlen is not
          // in the log): how many were dropped is not known.
          const piece = pending.syslogPiece;
          const hardCut = !piece.includes(' ');
          if (!hardCut && piece.endsWith(' ')) (pending.rec.uncertainBreaks ??= []).push(pending.rec.body.length);
          const sep = hardCut ? '' : ' ';
          pending.rec.text += `${sep}${more}`;
          pending.rec.body += `${sep}${more}`;
          pending.syslogPiece = more;
          pending.rec.end = l.end;
          pending.lastComplete = l.complete;
          pending.lastLength = Buffer.byteLength(text);
        } else {
          report.orphanContinuations++;
        }
        continue;
      }
      if (pending) yield emit(pending);
      const syslog: SyslogPrefix = { pri: pri === undefined ? null : Number(pri), stamp, host: host ?? null, pid: pid === undefined ? null : Number(pid) };
      pending = { rec: { text, dateText: stamp, user, body, syslog, start: l.start, end: l.end, line: l.line }, lastComplete: l.complete, lastLength: Buffer.byteLength(text), syslogPiece: body };
      continue;
    }
    // Neither: a line of another program or a PAM message. It ends a wrapped record.
    if (!l.complete) {
      // The data ends inside this line: if it may be the start of a continuation, the record
      // before it may be incomplete too.
      if (pending && !pending.rec.syslog && /^ *$/.test(text)) {
        report.stop = { offset: pending.rec.start, line: pending.rec.line, reason: 'the last record is incomplete (truncated, or sudo is still writing it)', truncated: true };
        return;
      }
      if (pending) yield emit(pending);
      pending = null;
      if (text.trim() !== '') report.stop = { offset: l.start, line: l.line, reason: 'the last line is incomplete (truncated, or sudo is still writing it)', truncated: true };
      return;
    }
    if (pending) {
      yield emit(pending);
      pending = null;
    }
    if (text.trim() !== '') report.otherLines++;
    report.endOffset = l.end;
  }
  if (pending) {
    // The last record: a line without its newline, or a record cut at a wrap point (sudo
    // writes a record whole, and no record ends with " ;"), was not written completely.
    if (!pending.lastComplete || / ;$/.test(pending.rec.body)) {
      report.stop = { offset: pending.rec.start, line: pending.rec.line, reason: 'the last record is incomplete (truncated, or sudo is still writing it)', truncated: true };
      return;
    }
    yield emit(pending);
  }
}

