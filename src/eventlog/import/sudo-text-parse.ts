// One logical record of sudo's classic text log, taken apart (sudo-notes §3.1):
//   [reason ; [errstr ;]] [HOST=h ;] [TTY=t ;] [CHROOT=d ;] [PWD=d ;] [USER=u ;] [GROUP=g ;]
//   [TSID=id[@offset] ;] [ENV=A=1 B=2 ;] COMMAND=cmd args [; SIGNAL=NAME] [; EXIT=n]
// COMMAND (and ENV) may contain " ; " themselves, so COMMAND is the rest of the body up to a
// final " ; SIGNAL=" / " ; EXIT=", and ENV runs up to " ; COMMAND=". Control characters are
// escaped as #ooo; arguments with a space are single-quoted, with ' and \ backslash-escaped;
// an empty argument is written as nothing between its separating spaces (see splitCommand).

/** Field keys sudo writes before COMMAND, in its order (RUNCHROOT/RUNCWD: newer sudo). */
const FIELD_KEYS = new Set(['HOST', 'TTY', 'CHROOT', 'RUNCHROOT', 'PWD', 'CWD', 'RUNCWD', 'USER', 'GROUP', 'TSID', 'ENV']);

export type TextKind = 'accept' | 'exit' | 'reject' | 'alert';

export interface TextBody {
  kind: TextKind;
  /** Reject or alert reason (with the error string sudo appends after a second " ; "). */
  reason: string | null;
  /** The KEY=value fields as logged (raw, escapes not undone), COMMAND, SIGNAL and EXIT included. */
  fields: Record<string, string>;
  /** The command and its arguments, unquoted and unescaped. */
  argv: string[] | null;
  exitValue: number | null;
  signal: string | null;
}

const EXIT_SUFFIX = / ; (?:SIGNAL=([A-Za-z0-9+-]+) ; )?EXIT=(\d+)$/;

/** Undoes sudo's `#ooo` octal escapes of control characters (and of a space in the command path). */
export function unescapeOctal(s: string): string {
  return s.includes('#') ? s.replace(/#([0-3][0-7]{2})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8))) : s;
}

/**
 * Splits a logged command line into argv: '...' quotes, \x is x, and every unquoted space ends
 * an argument. sudo joins argv with single spaces and writes an empty argument as nothing, so
 * N+1 spaces in a row mean N empty arguments between, and a trailing space a trailing empty
 * argument (`echo '' end` is logged `/bin/echo  end`, `echo ''` as `/bin/echo `).
 */
export function splitCommand(cmd: string): string[] {
  if (cmd === '') return [];
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < cmd.length; i++) {
    const c = cmd[i]!;
    if (c === '\\' && i + 1 < cmd.length) {
      cur += cmd[++i];
    } else if (c === "'") {
      quoted = !quoted;
    } else if (c === ' ' && !quoted) {
      out.push(cur);
      cur = '';
    } else {
      cur += c;
    }
  }
  out.push(cur);
  return out.map(unescapeOctal);
}

export function parseTextBody(body: string): TextBody {
  const fields: Record<string, string> = {};
  let rest = body;
  let exitValue: number | null = null;
  let signal: string | null = null;
  const cmdAt = rest.startsWith('COMMAND=') ? 0 : rest.indexOf(' ; COMMAND=');
  if (cmdAt >= 0) {
    const m = EXIT_SUFFIX.exec(rest);
    if (m && m.index > cmdAt) {
      exitValue = Number(m[2]);
      fields.EXIT = m[2]!;
      if (m[1] !== undefined) {
        signal = m[1];
        fields.SIGNAL = m[1];
      }
      rest = rest.slice(0, m.index);
    }
  }
  let pre = rest;
  if (cmdAt >= 0) {
    const valueAt = cmdAt === 0 ? 8 : cmdAt + ' ; COMMAND='.length;
    fields.COMMAND = rest.slice(valueAt);
    pre = cmdAt === 0 ? '' : rest.slice(0, cmdAt);
  }
  const reasonParts: string[] = [];
  const segs = pre === '' ? [] : pre.split(' ; ');
  let seenField = false;
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i]!;
    const eq = seg.indexOf('=');
    const key = eq > 0 ? seg.slice(0, eq) : '';
    if (FIELD_KEYS.has(key)) {
      seenField = true;
      if (key === 'ENV') {
        // ENV is the last field before COMMAND and may itself contain " ; ".
        fields.ENV = [seg.slice(eq + 1), ...segs.slice(i + 1)].join(' ; ');
        break;
      }
      fields[key] = seg.slice(eq + 1);
    } else if (!seenField) {
      reasonParts.push(seg);
    } else {
      // An unknown KEY=value after the known ones (a newer sudo): keep it.
      if (eq > 0 && /^[A-Z_]+$/.test(key)) fields[key] = seg.slice(eq + 1);
      else fields[`FIELD${i}`] = seg;
    }
  }
  // A line with no field at all is an alert or error message, whatever it contains.
  if (cmdAt < 0 && !seenField) {
    return { kind: 'alert', reason: body, fields, argv: null, exitValue: null, signal: null };
  }
  const reason = reasonParts.length ? reasonParts.join(' ; ') : null;
  const argv = fields.COMMAND !== undefined ? splitCommand(fields.COMMAND) : null;
  let kind: TextKind;
  if (reason !== null) kind = fields.COMMAND !== undefined ? 'reject' : 'alert';
  else if (fields.EXIT !== undefined) kind = 'exit';
  else kind = 'accept';
  return { kind, reason, fields, argv, exitValue, signal };
}
