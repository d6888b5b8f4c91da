// Text a recording or a client chose, written to the operator's terminal: a control character
// (ESC opening an OSC 52 clipboard write, a title, a query) is shown as \xNN, never sent as is.
export function printable(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\x00-\x1f\x7f-\x9f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
