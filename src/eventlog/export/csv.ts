// RFC 4180 CSV: fields separated by commas, records by CRLF; a field holding a comma, a double
// quote, CR or LF is enclosed in double quotes, with each double quote doubled. Values are
// written exactly (no spreadsheet-formula escaping), so a CSV export reads back to the same text.

function field(v: unknown): string {
  let s: string;
  if (v === null || v === undefined) s = '';
  else if (typeof v === 'string') s = v;
  else if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') s = String(v);
  else s = JSON.stringify(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** One CSV record, CRLF-terminated. */
export function csvRow(values: readonly unknown[]): string {
  return `${values.map(field).join(',')}\r\n`;
}

/** Parses CSV text (RFC 4180, as csvRow writes it) into rows of strings. For tests and tools. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cur = '';
  let quoted = false;
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          cur += '"';
          i += 2;
          continue;
        }
        quoted = false;
      } else {
        cur += c;
      }
      i++;
      continue;
    }
    if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cur);
      cur = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cur);
      rows.push(row);
      row = [];
      cur = '';
      i++;
    } else cur += c;
    i++;
  }
  if (cur !== '' || row.length) {
    row.push(cur);
    rows.push(row);
  }
  return rows;
}
