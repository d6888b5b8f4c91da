// Text a recording or a client chose, written to the operator's terminal: a control character
// (ESC opening an OSC 52 clipboard write, a title, a query; a C1 CSI) is shown as \xNN, never
// sent as is. `keepLines` leaves line feeds and tabs (a multi-line message, a usage text).
export function printable(s: string, opts: { keepLines?: boolean } = {}): string {
  // eslint-disable-next-line no-control-regex
  const controls = opts.keepLines ? /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g : /[\x00-\x1f\x7f-\x9f]/g;
  return s.replace(controls, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
