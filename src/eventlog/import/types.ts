// Shapes shared by the import readers, the mappers and the importer.
import type { EType, NewEvent } from '../types.js';

/** A record to append, with the fields the importer reads typed (NewEvent's are `unknown`). */
export type ImportRecord = NewEvent & { uniqueid: string; etype: EType; time: number };

/** Where an event came from in its file. */
export interface SourcePosition {
  /** Byte offset of the first line of the event. */
  start: number;
  /** Byte offset just after the event's last line. */
  end: number;
  /** 1-based line number of the event's first line. */
  line: number;
}

/** Where a reader stopped before the end of the data. */
export interface ReadStop {
  /** Byte offset where the data that was not imported begins. */
  offset: number;
  /** Line where the incomplete or damaged event begins. */
  line: number;
  reason: string;
  /** True when the data just ends (cut, or still being written); false for damaged data. */
  truncated: boolean;
}

/** The first event skipped as bad, with the code that says why. */
export interface BadEvent {
  /** Byte offset of the event's first line. */
  offset: number;
  line: number;
  code: number;
  /** Starts with the code. */
  reason: string;
}

export type ImportFormat = 'sudo-json' | 'sudo-text';
export const IMPORT_FORMATS: readonly ImportFormat[] = ['sudo-json', 'sudo-text'];

/** What an alert becomes: skipped (counted), or stored as a reject (etype R). */
export type AlertPolicy = 'skip' | 'reject';

/** The accept an exit is joined to: what a finish record repeats (DESIGN §2). */
export interface AcceptInfo {
  uniqueid: string;
  submituser?: string;
  submithost?: string;
  runuser?: string;
  runhost?: string;
  runcommand?: string;
}

/** One source event turned into a record to store (or not). */
export interface MappedEvent extends SourcePosition {
  /** Identity of the source event, stored as `import_key`: how a re-import recognises it. */
  key: string;
  /** The source's kind: accept, reject, exit, alert, ... */
  kind: string;
  /** The record to store; null when the event is not stored (see skip). */
  record: ImportRecord | null;
  skip?: 'alert' | 'unknown-kind' | 'no-time';
  /** An exit whose accept is not in this source (looked up in the target store). */
  orphanExit?: string;
}

/** Settings the mappers share across the passes of one import. */
export interface MapContext {
  alerts: AlertPolicy;
  /** Text logs: submithost/runhost when the line names none (no HOST=, no syslog host). */
  host: string | null;
  /** Text logs: zone of the logged wall-clock times. */
  timezone: string;
  /** Text logs: the year of dates logged without one; null = inferred from the file's mtime. */
  year: number | null;
  /** The source file's modification time (year inference). */
  mtimeMs: number;
  /** Text logs: the sudo iolog_dir the TSIDs are relative to; null = keep them relative. */
  iologDir: string | null;
  /**
   * Text logs of sudo 1.9.13 write only the last 2 characters of the session ID on accept lines
   * (bug #1046); the exit line has it whole. The first pass records import_key -> full TSID.
   */
  tsidFixes: Map<string, string>;
  /** Accepts found in the target store for exits whose accept is not in the source. */
  storeAccepts: Map<string, AcceptInfo>;
  /** Bound on accepts waiting for their exit (memory); the oldest are forgotten beyond it. */
  maxOpenAccepts: number;
}

export function defaultMapContext(over: Partial<MapContext> = {}): MapContext {
  return {
    alerts: 'skip',
    host: null,
    timezone: 'UTC',
    year: null,
    mtimeMs: Date.now(),
    iologDir: null,
    tsidFixes: new Map(),
    storeAccepts: new Map(),
    maxOpenAccepts: 1_000_000,
    ...over,
  };
}
