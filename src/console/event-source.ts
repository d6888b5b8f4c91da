// Which event log the console reads: a database (format=db, the default database or one the
// settings name) or a flat file (format=ff&file=...), as the REST API chooses. Remembered per
// tab so that a session page queries the same log the events view showed.
export interface EventSource {
  format: 'db' | 'ff';
  /** ff: the event log file (required); db: optional database name or SQLite file. */
  file: string;
}

const KEY = 'evio.console.eventSource';

export function loadEventSource(): EventSource {
  try {
    const v = JSON.parse(sessionStorage.getItem(KEY) ?? 'null') as Partial<EventSource> | null;
    if (v && (v.format === 'db' || v.format === 'ff')) return { format: v.format, file: typeof v.file === 'string' ? v.file : '' };
  } catch {
    /* fall through */
  }
  return { format: 'db', file: '' };
}

export function saveEventSource(s: EventSource): void {
  sessionStorage.setItem(KEY, JSON.stringify(s));
}

export function sourceParams(s: EventSource): Record<string, string> {
  return s.file ? { format: s.format, file: s.file } : { format: s.format };
}
