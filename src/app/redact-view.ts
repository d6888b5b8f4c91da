// Who sees redacted I/O-log data (docs/iolog.md "Redaction", docs/auth.md): when the `redact`
// setting holds rules, every read of a session (chunks, replay, screens, search, commands,
// export) masks what the rules match, and what is typed after a password prompt unless the log
// server keeps passwords (logsrvd.logPasswords). An app with `"unredacted": true` in the
// keystore, or the CLI with --unredacted, reads the sessions as recorded.
import type { Engine } from '../engine.js';
import type { RedactView } from '../iolog/redact/redacted-session.js';

export interface IologAccess {
  /** The caller may see the data as recorded (keystore app permission, CLI --unredacted). */
  unredacted?: boolean;
}

/** The redaction a caller's reads go through; undefined: none (no rules, or an unredacted caller). */
export function redactViewFor(engine: Engine, access: IologAccess = {}): RedactView | undefined {
  const s = engine.settings;
  if (access.unredacted === true || s.redact.length === 0) return undefined;
  return { rules: s.redact, maskPasswords: !s.logsrvd.logPasswords, passprompt: s.logsrvd.passprompt };
}

/** `{ redact }` for a worker task, or nothing. */
export function redactParam(engine: Engine, access: IologAccess = {}): { redact?: RedactView } {
  const view = redactViewFor(engine, access);
  return view ? { redact: view } : {};
}
