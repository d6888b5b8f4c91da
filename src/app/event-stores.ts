// GET /REST/v2.0/events/stores: the event logs the settings name, in this order: the default
// database (`eventdb`), the flat-file event log (`eventlog`), every database of `databases`,
// and the ODBC source the destinations forward to; each with whether it exists and holds a
// record. A reader (the console's first screen) opens the first that has records, not a default
// database that may never have been created. The checks are cheap: one record read (limit=1)
// from each; an error, such as a database that does not exist, is reported as its message.
import { publicPath } from '../paths.js';
import type { Engine } from '../engine.js';
import { queryEvents } from './events.js';
import type { Params } from './events.js';

export interface KnownStore {
  /** As the events call takes it: format=ff|db|odbc, with file= (ff, db) or dsn= (odbc). */
  format: 'ff' | 'db' | 'odbc';
  /** ff: the log; db: '' for the default database, else the settings' name; odbc: the DSN. */
  file: string;
  /** Where the settings name it: eventlog, eventdb, databases, destinations.odbc. */
  setting: string;
  exists: boolean;
  /** At least one record (false when it does not exist or cannot be read). */
  records: boolean;
  /** Why it cannot be read, when it cannot. */
  error?: string;
}

async function probe(engine: Engine, params: Params, signal?: AbortSignal): Promise<{ exists: boolean; records: boolean; error?: string }> {
  try {
    const ans = await queryEvents(engine, { ...params, limit: '1' }, signal ? { signal } : {});
    for await (const _ of ans.events) return { exists: true, records: true };
    return { exists: true, records: false };
  } catch (err) {
    return { exists: false, records: false, error: (err as Error).message };
  }
}

export async function knownEventStores(engine: Engine, signal?: AbortSignal): Promise<KnownStore[]> {
  const s = engine.settings;
  const out: KnownStore[] = [];
  out.push({ format: 'db', file: '', setting: 'eventdb', ...(await probe(engine, { format: 'db' }, signal)) });
  // Named as a request names it: relative to eventlogdirs, never by the server's path.
  out.push({ format: 'ff', file: publicPath(s.eventlogdirs, s.eventlog), setting: 'eventlog', ...(await probe(engine, { format: 'ff', file: s.eventlog }, signal)) });
  for (const name of Object.keys(s.databases)) {
    if (name === s.eventdb) continue; // the default database, listed above
    out.push({ format: 'db', file: name, setting: 'databases', ...(await probe(engine, { format: 'db', file: name }, signal)) });
  }
  const dsn = s.destinations.odbc;
  if (typeof dsn === 'string' && dsn) out.push({ format: 'odbc', file: dsn, setting: 'destinations.odbc', ...(await probe(engine, { format: 'odbc', dsn }, signal)) });
  return out;
}
