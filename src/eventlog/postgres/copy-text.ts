// Rows in PostgreSQL's COPY text format (tab-separated, \N for NULL, one row a line): what a
// bulk load streams through COPY ... FROM STDIN. A text value escapes the backslash, tab,
// newline and carriage return; a NUL cannot be in a PostgreSQL text value at all (the store
// refuses it before: append-plan.ts prepareEvent; JSON text writes it as \u0000).
const SPECIAL = /[\\\t\n\r]/;
const SPECIAL_ALL = /[\\\t\n\r]/g;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** One value as COPY text. */
export function copyTextValue(v: unknown): string {
  if (v === null || v === undefined) return '\\N';
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';
    return String(v);
  }
  const s = typeof v === 'string' ? v : String(v);
  return SPECIAL.test(s) ? s.replace(SPECIAL_ALL, (c) => ESCAPES[c]!) : s;
}

/** One row as a COPY text line, newline included. */
export function copyTextLine(row: readonly unknown[]): string {
  return appendLine('', row);
}

/** `buf` followed by the row's COPY text line (values added one by one: no line string first). */
function appendLine(buf: string, row: readonly unknown[]): string {
  for (let i = 0; i < row.length; i++) {
    if (i > 0) buf += '\t';
    buf += copyTextValue(row[i]);
  }
  return `${buf}\n`;
}

/**
 * The rows as chunks of about `chunkChars` characters of COPY text (few, large writes). Each
 * row is used before the next is taken (the rows may be one array refilled).
 */
export function* copyTextChunks(rows: Iterable<readonly unknown[]>, chunkChars = 256 * 1024): Generator<string> {
  let buf = '';
  for (const r of rows) {
    buf = appendLine(buf, r);
    if (buf.length >= chunkChars) {
      yield buf;
      buf = '';
    }
  }
  if (buf) yield buf;
}
