// `evio events query|append|copy|delete`: the event-log engine from the command line, on any
// store named ff:PATH, db:PATH, pg:NAME|URL or odbc:DSN.
import { createInterface } from 'node:readline';
import { createReadStream } from 'node:fs';
import { evioError } from '../errors.js';
import { loadProgress } from './load-rate.js';
import { appendEvents, copyEvents, deleteEvents, queryEvents, type NewEvent } from '../app/events.js';
import { EVENT_DELETE_PARAM_NAMES, EVENT_QUERY_PARAM_NAMES } from '../app/routes/events.js';
import { parseFlags, strFlag, wantsHelp } from './flags.js';
import { restFlags } from './rest-flags.js';
import { progress, progressDone, usageError, type CliCommand, type CliIo } from './io.js';
import { cutNotice, nextPageCommand } from './next-page.js';
import { noteOutcome } from './audit.js';

/** NDJSON text gathered before a write to stdout. */
const OUT_CHUNK = 64 * 1024;

const HELP = `Usage: evio events SUBCOMMAND ...

  query  [STORE] [--PARAM VALUE ...] print matching records as NDJSON (PARAMs as in the REST call)
  append STORE [FILE]                append NDJSON records (from FILE or stdin); recnums are assigned
  copy   --from STORE --to STORE     copy every record, preserving recnum, uniqueid and finish links
  delete STORE [--PARAM VALUE ...]   delete matching records (filters as in the REST call; --all 1 for all)
  import --from sudo-json|sudo-text FILE [--to STORE]   import a sudo event log (idempotent)
  export STORE [--PARAM VALUE ...] [--format ndjson|csv|json|ecs|ocsf|cef] [--out FILE]   export matching records
  purge  STORE [--PARAM VALUE ...] [--older-than 90d] [--iologs] [--dry-run] [--yes]   delete records and their I/O logs
  rotate [FILE] [--max-size 1G] [--compress]   rotate a flat-file event log (recnums continue)
  index  [FILE] [--family]           build the skip index of a flat-file event log (and its rotated files)
  (each has --help)

STORE is ff:PATH (NDJSON flat file), db:PATH (SQLite) or a database named in the settings,
pg:NAME|URL (PostgreSQL), odbc:DSN. A relative PATH is taken from the first of the settings'
event-log folders (eventlogdirs), not from the working directory, so cron jobs name the same
files; an error names the path it resolved to. query, export and purge without STORE read the
configured event log (eventlog).

Examples:
  evio events query ff:evio-data/events.ndjson --submituser 'alice*' --etype K --limit 5
  evio events copy --from ff:evio-data/events.ndjson --to db:evio-data/events.sqlite
  evio events delete db:evio-data/events.sqlite --to 2026/01/31`;


/** Each subcommand's own help (`evio events query --help`). */
const SUB_HELP: Readonly<Record<string, string>> = {
  query: `Usage: evio events query [STORE] [--PARAM VALUE ...]

Prints the matching records as NDJSON, one per line. Without STORE the configured event log
(eventlog) is read; a relative ff:PATH or db:PATH is taken from the first event-log folder
(eventlogdirs), not the working directory. PARAMs are the parameters of
GET /REST/v2.0/events: --etype, --from, --to, --exittime_from, --exittime_to, --uniqueid,
--submituser, --submithost, --runuser, --runhost, --runcommand, --exitstatus (wildcards),
--start, --end, --offset, --limit N (-n N), --order, --orderdirection, and the switches
--verbose and --dump (also --verbose 1). A store that does not exist is an error (1200): a
query never creates one.

Every matching record is printed, streamed (no page size applies, unlike the REST call).
--limit N caps the output at N records; when more records match, stderr says so and gives
the command of the next page (--offset N on a flat file; --start N, --end N or --offset N on
a database), and the exit status is still 0: the cap was asked for. Exit status 1 on an
error (the message names its code), 2 on a usage error.

Example:
  evio events query ff:evio-data/events.ndjson --submituser 'alice*' --etype K -n 5`,
  append: `Usage: evio events append STORE [FILE]

Appends NDJSON records from FILE (default stdin); recnums are assigned under the store's lock.
Creates the store (file, schema) when it does not exist yet.

Example:
  evio events append db:evio-data/events.sqlite new.ndjson`,
  copy: `Usage: evio events copy --from STORE --to STORE

Copies every record, preserving recnum, uniqueid and finish links; a second copy adds nothing.
--to is created when it does not exist; --from must exist.

Example:
  evio events copy --from ff:evio-data/events.ndjson --to db:evio-data/events.sqlite`,
  delete: `Usage: evio events delete STORE [--PARAM VALUE ...] [--all]

Deletes the matching records atomically (filters as in DELETE /REST/v2.0/events); --all (or
--all 1) is needed when no filter is given. Prints {"status":0,"deleted":N}.

Example:
  evio events delete db:evio-data/events.sqlite --to 2026/01/31`,
};

/**
 * NDJSON records from FILE or stdin. The line reader is created when iteration starts: lines
 * read before an async iterator attaches to readline would be lost.
 */
function readNdjson(io: CliIo, file: string | undefined): AsyncIterable<NewEvent> {
  return (async function* () {
    const input = file ? createReadStream(file) : process.stdin;
    const rl = createInterface({ input, crlfDelay: Infinity });
    let n = 0;
    for await (const line of rl) {
      n++;
      if (!line.trim()) continue;
      try {
        yield JSON.parse(line) as NewEvent;
      } catch {
        throw evioError('STORE_BAD_RECORD', `line ${n} of ${file ?? 'stdin'} is not JSON`);
      }
      if (io.signal.aborted) throw evioError('ABORTED', 'interrupted');
    }
  })();
}

/** The batch jobs, each in its own file with its own --help. */
// Loaded on use: purge pulls in the I/O-log engine (worker pool, tar, SQLite index), which a
// plain `events query` must not pay for at start-up.
const JOB_SUBCOMMANDS: Record<string, (argv: string[], io: CliIo) => Promise<number>> = {
  import: async (argv, io) => (await import('./events-import.js')).runEventsImport(argv, io),
  export: async (argv, io) => (await import('./events-export.js')).runEventsExport(argv, io),
  purge: async (argv, io) => (await import('./events-purge.js')).runEventsPurge(argv, io),
  rotate: async (argv, io) => (await import('./events-rotate.js')).runEventsRotate(argv, io),
  index: async (argv, io) => (await import('./events-index.js')).runEventsIndex(argv, io),
};

export const eventsCommand: CliCommand = {
  name: 'events',
  summary: 'query, append, copy, delete, import, export, purge, rotate and index event records',
  async run(argv, io) {
    const [sub, ...rest] = argv;
    if (!sub || wantsHelp([sub], HELP, io.out)) {
      if (!sub) io.err.write(`${HELP}\n`);
      return sub ? 0 : 2;
    }
    const job = Object.hasOwn(JOB_SUBCOMMANDS, sub) ? JOB_SUBCOMMANDS[sub] : undefined;
    if (job) return job(rest, io);
    if (wantsHelp(rest, Object.hasOwn(SUB_HELP, sub) ? SUB_HELP[sub]! : HELP, io.out)) return 0;
    const engine = io.engine();
    switch (sub) {
      case 'query': {
        const f = parseFlags(rest, restFlags('events query', EVENT_QUERY_PARAM_NAMES));
        // No STORE: the configured event log (what cron jobs mean), as export and purge.
        const name = f.positionals[0] ?? `ff:${engine.settings.eventlog}`;
        // A batch command means every match: no page size unless --limit is given.
        const { store, batches, page } = await queryEvents(engine, f.flags, { signal: io.signal, store: name, everything: true });
        let buf = '';
        for await (const batch of batches) {
          for (const ev of batch) {
            buf += `${JSON.stringify(ev)}\n`;
            if (buf.length >= OUT_CHUNK) {
              if (!io.out.write(buf)) await new Promise((r) => io.out.once('drain', r));
              buf = '';
            }
          }
        }
        io.out.write(buf);
        if (store.stats.malformed) io.err.write(`evio: ${store.stats.malformed} malformed lines skipped\n`);
        // stdout stays pure NDJSON: the continuation goes to stderr (exit 0: the cap was asked for).
        if (page.more) io.err.write(cutNotice(String(f.flags.limit), page.next!, nextPageCommand(io, 'query', name, f.flags, page.next!)));
        return 0;
      }
      case 'append': {
        const f = parseFlags(rest, { command: 'events append', positionals: 2 });
        const [name, file] = f.positionals;
        if (!name) throw usageError('events append needs a STORE');
        const res = await appendEvents(engine, name, readNdjson(io, file), { signal: io.signal });
        noteOutcome(io, `appended ${res.count} records to ${res.store}`, { store: res.store, appended: res.count });
        io.err.write(`appended ${res.count} records${res.first !== null ? ` (recnum ${res.first}-${res.last})` : ''}${res.skipped ? `, ${res.skipped} already present` : ''}\n`);
        return 0;
      }
      case 'copy': {
        const f = parseFlags(rest, { command: 'events copy', values: ['from', 'to'] });
        const from = strFlag(f, 'from');
        const to = strFlag(f, 'to');
        if (!from || !to) throw usageError('events copy needs --from STORE and --to STORE');
        const started = Date.now();
        const show = loadProgress(io);
        const p = await copyEvents(engine, {
          from,
          to,
          signal: io.signal,
          onProgress: (q) => show(`copied ${q.written} of ${q.read} read${q.total ? ` (of about ${q.total})` : ''}, ${q.skipped} already present`, q.written + q.skipped, q.total ? q.read / q.total : null),
        });
        progressDone(io);
        noteOutcome(io, `copied ${p.written} records from ${p.from} to ${p.to}`, { store: p.to, copied: p.written });
        io.err.write(`copied ${p.written} records from ${p.from} to ${p.to} in ${((Date.now() - started) / 1000).toFixed(1)} s; ${p.skipped} were already present\n`);
        return 0;
      }
      case 'delete': {
        const f = parseFlags(rest, restFlags('events delete', EVENT_DELETE_PARAM_NAMES));
        const name = f.positionals[0];
        if (!name) throw usageError('events delete needs a STORE');
        const res = await deleteEvents(engine, f.flags, { signal: io.signal, store: name });
        noteOutcome(io, `deleted ${res.deleted} records from ${res.store}`, { store: res.store, deleted: res.deleted });
        io.out.write(`${JSON.stringify({ status: 0, deleted: res.deleted })}\n`);
        return 0;
      }
      default:
        throw usageError(`unknown events subcommand "${sub}"\n\n${HELP}`);
    }
  },
};
