// Which event log the console reads: a database (format=db, the default database or one the
// settings name), a flat file (format=ff&file=...) or an ODBC source (format=odbc&dsn=...), as
// the REST API chooses. Remembered per
// tab so that a session page queries the same log the events view showed.
export interface EventSource {
  format: 'db' | 'ff' | 'odbc';
  /** ff: the event log file (required); db: optional database name or SQLite file; odbc: the DSN. */
  file: string;
}

const KEY = 'evio.console.eventSource';

export function loadEventSource(): EventSource {
  try {
    const v = JSON.parse(sessionStorage.getItem(KEY) ?? 'null') as Partial<EventSource> | null;
    if (v && (v.format === 'db' || v.format === 'ff' || v.format === 'odbc')) return { format: v.format, file: typeof v.file === 'string' ? v.file : '' };
  } catch {
    /* fall through */
  }
  return { format: 'db', file: '' };
}

export function saveEventSource(s: EventSource): void {
  sessionStorage.setItem(KEY, JSON.stringify(s));
}

export function sourceParams(s: EventSource): Record<string, string> {
  if (!s.file) return { format: s.format };
  return s.format === 'odbc' ? { format: s.format, dsn: s.file } : { format: s.format, file: s.file };
}

/** Whether this tab has chosen an event log yet (else the console picks one that has records). */
export function hasSavedEventSource(): boolean {
  return sessionStorage.getItem(KEY) !== null;
}
