// One line of the file to a stored event: JSON.parse, then the recnum rule (a line without one
// gets its 1-based line number), then the same check every store applies to records it reads.
// A line nested deeper than JSON_MAX_DEPTH is not JSON evio accepts (appends refuse such
// records; one written by something else could not be served verbose): it reads as malformed.
import { jsonTextTooDeep } from '../../json-depth.js';
import { isStoredEvent } from '../record.js';
import type { StoredEvent } from '../types.js';

/** The parsed JSON of a line, or undefined when it is not JSON at all (or nested too deep). */
export function parseJsonLine(buf: Buffer, start: number, end: number): unknown {
  return parseJsonText(buf.toString('utf8', start, end));
}

export function parseJsonText(text: string): unknown {
  if (jsonTextTooDeep(text)) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** True when the parsed line needs its line number as recnum. */
export function lacksRecnum(v: unknown): boolean {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return false;
  const r = (v as { recnum?: unknown }).recnum;
  return r === undefined || r === null;
}

/** The stored event a parsed line holds, or null when it is malformed. */
export function toStoredEvent(v: unknown, lineNumber: number | null): StoredEvent | null {
  if (lineNumber !== null && lacksRecnum(v)) (v as { recnum: number }).recnum = lineNumber;
  return isStoredEvent(v) ? v : null;
}
