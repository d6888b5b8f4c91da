// The export formats: each turns shaped records (what a query returns, DESIGN §2) into text.
// - ndjson: one JSON object per line;
// - json: one array, `[` ... `]`, one record per line, streamed;
// - csv: RFC 4180 with a header row and a fixed column list, so that every export of a store
//   has the same columns whatever its records hold:
//     verbose=0: the fields a query returns (recnum ... exitstatus);
//     verbose=1: those plus the stored fields DESIGN §2 names, then `extra`, a JSON object of
//     every other stored field (sudo's source fields of imported records, for example).
//   Arrays (runargv) are written as JSON; null as an empty field.
// - ecs, ocsf, cef: SIEM formats (siem.ts, docs/siem.md); they map stored fields, so they read
//   verbose records whatever the query's verbose says.
import { evioError } from '../../errors.js';
import { setOwn } from '../../own-property.js';
import { csvRow } from './csv.js';
import { toCef, toEcs, toOcsf } from './siem.js';

export type ExportFormat = 'ndjson' | 'csv' | 'json' | 'ecs' | 'ocsf' | 'cef';
export const EXPORT_FORMATS: readonly ExportFormat[] = ['ndjson', 'csv', 'json', 'ecs', 'ocsf', 'cef'];

export const CSV_COLUMNS = ['recnum', 'uniqueid', 'etype', 'epoch', 'submituser', 'submithost', 'runuser', 'runhost', 'runcommand', 'exitstatus'] as const;
export const CSV_VERBOSE_COLUMNS = [
  'recnum', 'uniqueid', 'etype', 'epoch', 'epoch_iso', 'time', 'exittime', 'exittime_iso', 'submituser', 'submithost', 'runuser', 'runhost', 'runcommand', 'runargv',
  'cwd', 'ttyname', 'masterhost', 'iolog', 'reason', 'exitstatus', 'exitcode', 'signal', 'extra',
] as const;

export function parseExportFormat(v: string | undefined): ExportFormat {
  const f = (v ?? 'ndjson').toLowerCase();
  if (!(EXPORT_FORMATS as readonly string[]).includes(f)) throw evioError('EXPORT_UNKNOWN_FORMAT', `--format ${v} is not one of ${EXPORT_FORMATS.join(', ')}`);
  return f as ExportFormat;
}

export interface FormatWriter {
  /** The rows must be verbose records (every stored field), whatever the query asked. */
  verbose?: true;
  head(): string;
  row(rec: Record<string, unknown>, index: number): string;
  tail(count: number): string;
}

function csvWriter(verbose: boolean): FormatWriter {
  const cols: readonly string[] = verbose ? CSV_VERBOSE_COLUMNS : CSV_COLUMNS;
  const named = new Set(cols);
  return {
    head: () => csvRow(cols),
    row: (rec) => {
      const values = cols.map((c) => {
        if (c !== 'extra') return rec[c];
        const extra: Record<string, unknown> = {};
        let any = false;
        for (const [k, v] of Object.entries(rec)) {
          if (!named.has(k)) {
            setOwn(extra, k, v);
            any = true;
          }
        }
        return any ? JSON.stringify(extra) : '';
      });
      return csvRow(values);
    },
    tail: () => '',
  };
}

export function formatWriter(format: ExportFormat, verbose: boolean): FormatWriter {
  switch (format) {
    case 'ndjson':
      return { head: () => '', row: (r) => `${JSON.stringify(r)}\n`, tail: () => '' };
    case 'json':
      return { head: () => '[', row: (r, i) => `${i ? ',' : ''}\n${JSON.stringify(r)}`, tail: (n) => (n ? '\n]\n' : ']\n') };
    case 'csv':
      return csvWriter(verbose);
    case 'ecs':
      return { verbose: true, head: () => '', row: (r) => `${JSON.stringify(toEcs(r))}\n`, tail: () => '' };
    case 'ocsf':
      return { verbose: true, head: () => '', row: (r) => `${JSON.stringify(toOcsf(r))}\n`, tail: () => '' };
    case 'cef':
      return { verbose: true, head: () => '', row: (r) => `${toCef(r)}\n`, tail: () => '' };
  }
}
