// Where events go, as configured (GET /REST/v2.0/events/destinations): read from the settings
// alone, in a file of its own so that answering it (or loading app/events.ts for a query) does
// not load the forwarders, sinks and spool of event-destinations.ts.
import type { Settings } from '../settings.js';

/** An argv as one line a shell would read back (for display only: the program runs without a shell). */
function argvText(argv: readonly string[]): string {
  return argv.map((a) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/**
 * GET /events/destinations: exactly what the forwarders deliver to, null for a destination that
 * is not configured; `ff` is the flat-file event log, the spool they are fed from. `db` is the
 * database as named in the settings (a key of `databases`, never its URL, or an SQLite path).
 */
export function destinationTargets(s: Settings): Record<'db' | 'ff' | 'prog' | 'odbc' | 'syslog', string | null> {
  const d = s.destinations;
  return { db: d.db ?? null, ff: s.eventlog, prog: d.prog ? argvText(d.prog) : null, odbc: d.odbc ?? null, syslog: d.syslog ?? null };
}
