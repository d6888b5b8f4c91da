// The one error-code registry. Every failure evio reports carries one of these codes, in the
// HTTP answer ({status: CODE, error: "CODE ..."}), in the CLI's message and in docs/errors.md
// (generated from this table by `npm run docs:errors`; test/errors.test.ts keeps them in sync).
//
// Rules, as in fastify's registry: a code is never reused or renumbered once released; a retired
// code stays here with `retired: true`. Ranges keep owners apart:
//   1000-1099 settings, CLI, general        1400-1499 I/O logs
//   1100-1199 event query parameters        1500-1599 replay / terminal
//   1200-1299 event stores (ff, SQLite)     1600-1699 HTTP service
//   1300-1399 PostgreSQL, ODBC              1700-1799 batch jobs (import, export, purge, rotate)
//   8119      authentication (fixed by the REST spec)

export interface ErrorDef {
  /** Numeric code; answers carry it as `status`. */
  readonly code: number;
  /** HTTP status the service answers with. */
  readonly http: number;
  /** What happened, for docs/errors.md. */
  readonly summary: string;
  /** What the user can do about it, for docs/errors.md. */
  readonly remedy: string;
  readonly retired?: boolean;
}

function def(code: number, http: number, summary: string, remedy: string): ErrorDef {
  return { code, http, summary, remedy };
}

export const ERRORS = {
  // ---- 1000-1099 settings, CLI, general
  INTERNAL: def(1000, 500, 'Unexpected internal error', 'Report it with the request that caused it; the service keeps running.'),
  SETTINGS_UNREADABLE: def(1001, 500, 'The settings file cannot be read or is not valid JSON', 'Fix the file named by --config or EVIO_CONFIG.'),
  SETTINGS_INVALID: def(1002, 500, 'A settings key has a value of the wrong type or range', 'Correct the key named in the message; docs/settings.md lists every key.'),
  CLI_USAGE: def(1003, 400, 'The command line is not valid', 'Run the command with --help for its usage and an example.'),
  NOT_FOUND: def(1004, 404, 'No such route or resource', 'Check the path against docs/api.md and the REST spec.'),
  METHOD_NOT_ALLOWED: def(1005, 405, 'The route does not answer this HTTP method', 'Use the method the route documents.'),
  ABORTED: def(1006, 499, 'The request was cancelled before it finished', 'Nothing to do: the work it started was stopped.'),
  BAD_STORE_NAME: def(1007, 400, 'A store name is not of the form ff:PATH, db:PATH, pg:NAME|URL or odbc:DSN', 'Name the store with one of those prefixes.'),
  PATH_OUTSIDE_ROOTS: def(1008, 403, 'A file or path resolves outside the configured directories', 'Use a path under eventlogdirs (event logs) or iologdirs (I/O logs); symlinks are resolved before the check.'),
  BAD_PARAMETER_ENCODING: def(1009, 400, 'A parameter contains a NUL byte, is repeated where one value is expected, or is too long', 'Send each parameter once, as text without NUL bytes, within the documented length.'),

  // ---- 1100-1199 event query parameters
  QUERY_UNKNOWN_FORMAT: def(1100, 400, 'Unknown event log format', 'Use format=ff (flatfile, file), db or odbc.'),
  QUERY_FILE_REQUIRED: def(1101, 400, 'A flat-file query names no file', 'Add file=PATH (a flat-file event log under eventlogdirs).'),
  QUERY_DSN_REQUIRED: def(1102, 400, 'An ODBC query names no data source', 'Add dsn=NAME (an ODBC data source name).'),
  QUERY_BAD_ETYPE: def(1103, 400, 'Unknown event type', 'Use A, R, K, F or Accept, Reject, Keystroke, Finish, comma-separated.'),
  QUERY_FINISH_NEEDS_DUMP: def(1104, 400, 'etype=F was asked for without dump=1', 'Finish records are merged into their accepts unless dump=1; add dump=1.'),
  QUERY_BAD_DATE: def(1105, 400, 'A date or time parameter cannot be parsed', 'Use Unix seconds, YYYY/MM/DD[ HH:MM[:SS]], YYYY-MM-DD[ HH:MM[:SS]] or ISO 8601.'),
  QUERY_BAD_INTEGER: def(1106, 400, 'A paging or numeric parameter is not a non-negative integer', 'Give start, end, offset and limit as whole numbers of 0 or more.'),
  QUERY_ORDER_ON_FLATFILE: def(1107, 400, 'order or orderdirection was given for a flat file', 'Flat files are always in recnum order; drop order, or query a database.'),
  QUERY_UNKNOWN_ORDER: def(1108, 400, 'order names a field that cannot be sorted on', 'Use one of the fields listed in the message.'),
  QUERY_BAD_DIRECTION: def(1109, 400, 'orderdirection is neither asc nor desc', 'Use orderdirection=asc or orderdirection=desc.'),
  QUERY_BAD_FLAG: def(1110, 400, 'A 0|1 flag has another value', 'Give verbose, dump, all, accept, reject and keystroke as 0 or 1.'),
  QUERY_DELETE_NEEDS_FILTER: def(1111, 400, 'A delete names no filter', 'Add at least one filter, or all=1 to delete every record.'),
  QUERY_BAD_OFFSET: def(1112, 400, 'A flat-file offset is not 0 or the offset of a returned record', 'Resume only from the offset field of a record the service returned.'),
  QUERY_BAD_PATTERN: def(1113, 400, 'A wildcard pattern is malformed or too long', 'Use *, ?, [...] and \\ escapes; patterns are at most 1024 characters.'),
  QUERY_UNKNOWN_PARAMETER: def(1114, 400, 'An unknown query parameter was given', 'Remove it; the message lists the parameters this call takes.'),
  QUERY_RANGE_INVERTED: def(1115, 400, 'A range has its lower bound after its upper bound', 'Swap from/to (or start/end, exittime_from/exittime_to).'),
  QUERY_UNKNOWN_DATABASE: def(1116, 400, 'format=db names a database that is neither configured nor an SQLite file', 'Name a key of "databases" in the settings, or an SQLite file under eventlogdirs.'),

  // ---- 1200-1299 event stores (flat file, SQLite)
  STORE_NOT_FOUND: def(1200, 404, 'The event log does not exist', 'Check the file name; flat files and SQLite files are created on first append.'),
  STORE_LOCK_TIMEOUT: def(1201, 503, 'The event log is locked by another writer for too long', 'Retry later; a lock left by a dead process is taken over automatically.'),
  STORE_IO: def(1202, 500, 'Reading or writing the event log failed', 'Check disk space and permissions; the message names the file and the system error.'),
  STORE_BAD_RECORD: def(1203, 400, 'A record to append is not a valid event', 'Give etype (A, R, K, F), time and the fields of docs/api.md.'),
  STORE_RECNUM_ORDER: def(1204, 409, 'An appended recnum is not greater than the last one in the log', 'Let evio assign recnums, or append in increasing order.'),
  STORE_TOO_MANY_OPEN: def(1205, 422, 'Too many accepts are still waiting for their finish records to answer with bounded memory', 'Narrow the query, use dump=1, or copy the log into a database.'),
  STORE_SQLITE: def(1206, 500, 'The SQLite event database answered an error', 'The message names the file and SQLite\'s error.'),
  STORE_READONLY: def(1207, 403, 'The store cannot be written through this door', 'Write through another store kind, or open it read-write.'),
  STORE_SCHEMA: def(1208, 500, 'The database schema is newer than this evio or not an evio schema', 'Upgrade evio, or point it at its own database.'),

  // ---- 1300-1399 PostgreSQL, ODBC
  PG_CONNECT: def(1300, 503, 'The PostgreSQL event database cannot be reached or refused the login', 'Check the URL or libpq variables for the named store, and that the server runs.'),
  PG_QUERY: def(1301, 500, 'PostgreSQL answered an error', 'The message names the store and the server\'s error.'),
  PG_CONNECTION_LOST: def(1302, 503, 'The connection to PostgreSQL was lost during the query', 'Retry; the next query opens a new connection.'),
  DB_TIMEOUT: def(1303, 504, 'A database statement ran past the configured statement timeout', 'Narrow the query, or raise statementTimeoutMs in the settings.'),
  ODBC_UNAVAILABLE: def(1304, 501, 'The odbc module is not installed or could not be built', 'Install unixODBC (apt-get install unixodbc unixodbc-dev) and run npm rebuild odbc.'),
  ODBC_CONNECT: def(1305, 503, 'The ODBC data source cannot be opened', 'Check the DSN in odbc.ini and its driver in odbcinst.ini.'),
  ODBC_QUERY: def(1306, 500, 'The ODBC data source answered an error', 'The message names the DSN and the driver\'s error.'),

  // ---- 1400-1499 I/O logs
  IOLOG_NOT_A_SESSION: def(1400, 400, 'The file is neither a sudo I/O log session directory nor an asciicast file', 'Name a session directory (it holds timing plus log.json or log) or a .cast file; GET /REST/iolog?path=DIR lists a directory.'),
  IOLOG_BAD_NUMBER: def(1401, 400, 'start or len is not a whole number of 0 or more', 'Give start and len as non-negative integers (docs/iolog.md lists the defaults and maximums).'),
  IOLOG_BAD_TIMING: def(1402, 422, 'A timing line of the session cannot be parsed; the session is read up to that line', 'Nothing to do for reading; the message names the line. The session was damaged or is not a sudo I/O log.'),
  IOLOG_BAD_INFO: def(1403, 422, 'The session has neither a readable log.json nor a readable legacy log file', 'Check the session directory; sudo writes log.json (1.9.0+) and log.'),
  IOLOG_BAD_QUERY: def(1404, 400, 'The search query is not keyword:regex with a known keyword and a valid regular expression', 'Use stdin, stdout, stderr, ttyin, ttyout, input, output or any, a colon, then a JavaScript regular expression of at most 1024 characters.'),
  IOLOG_REGEX_TIMEOUT: def(1405, 422, 'A regular expression ran past its time budget (catastrophic backtracking)', 'Simplify the pattern: avoid nested quantifiers such as (a+)+ and overlapping alternatives.'),
  IOLOG_BAD_GLOB: def(1406, 400, 'The file glob is empty, too long or contains a .. segment', 'Give a glob of at most 1024 characters, absolute or relative to an I/O log root, without .. segments.'),
  IOLOG_BAD_FILTER: def(1407, 400, 'The directory listing filter is not a valid regular expression or is too long', 'Give filter as a JavaScript regular expression of at most 256 characters.'),
  IOLOG_SYSTEM_DIRECTORY: def(1408, 403, 'The path is a system directory, which is never listed or read as an I/O log', 'Configure iologdirs outside /proc, /sys, /dev, /etc, /usr, /boot, /run and the system binary and library folders.'),
  IOLOG_INDEX: def(1409, 500, 'The I/O log index database cannot be opened, read or written', 'Check the iologcache setting and the folder\'s permissions; delete the file to have it rebuilt by evio iolog index.'),
  IOLOG_BAD_DATE: def(1410, 400, 'from or to cannot be parsed as a date', 'Use yyyy-mm-dd HH:MM, YYYY/MM/DD[ HH:MM[:SS]], YYYY-MM-DD[ HH:MM[:SS]], ISO 8601 or Unix seconds.'),
  IOLOG_CORRUPT_STREAM: def(1411, 422, 'A stream file of the session is shorter than its timing says or its gzip data is damaged; what could be read is returned', 'Nothing to do for reading; a live session catches up once sudo flushes its files.'),
  IOLOG_TOO_MANY_SESSIONS: def(1412, 422, 'The search glob matches more sessions than one search may read', 'Narrow the glob (docs/iolog.md gives the limit).'),
  IOLOG_PARAMETER_REQUIRED: def(1413, 400, 'A required parameter is missing', 'Add the parameter the message names (file, path or query).'),
  IOLOG_READ: def(1414, 500, 'A session file cannot be read', 'The message names the file and the system error; check permissions.'),
  IOLOG_BAD_ASCIICAST: def(1415, 422, 'The asciicast file has no valid header line', 'Give an asciicast v1, v2 or v3 file as written by asciinema.'),
  IOLOG_WORKER: def(1416, 500, 'The I/O log worker pool failed or its compiled entry is missing', 'Run npm run build (the workers load dist/worker/); the message names the failure.'),
  IOLOG_BAD_EXPORT_FORMAT: def(1417, 400, 'Unknown export format', 'Use --format asciicast.'),
  // ---- 1500-1599 replay
  // ---- 1600-1699 HTTP service
  // ---- 1700-1799 batch jobs

  // ---- 8119: authentication (code fixed by the REST spec)
  AUTH_FAILED: def(8119, 401, 'Invalid authentication', 'Sign the call with a known appid and its key (docs/auth.md); check the clock.'),
} as const satisfies Record<string, ErrorDef>;

export type ErrorName = keyof typeof ERRORS;

/** An error evio reports to its callers. `message` starts with the code. */
export class EvioError extends Error {
  readonly code: number;
  readonly http: number;
  readonly errorName: ErrorName;

  constructor(name: ErrorName, detail: string, options?: { cause?: unknown }) {
    const d = ERRORS[name];
    super(`${d.code} ${detail}`, options);
    this.name = 'EvioError';
    this.errorName = name;
    this.code = d.code;
    this.http = d.http;
  }

  /** The JSON body every door answers with. */
  toBody(): { status: number; error: string } {
    return { status: this.code, error: this.message };
  }
}

export function evioError(name: ErrorName, detail: string, cause?: unknown): EvioError {
  return new EvioError(name, detail, cause === undefined ? undefined : { cause });
}

/** Any thrown value as an EvioError; unknown errors become INTERNAL without leaking a stack. */
export function toEvioError(err: unknown): EvioError {
  if (err instanceof EvioError) return err;
  if (err && typeof err === 'object' && (err as { name?: string }).name === 'AbortError') {
    return new EvioError('ABORTED', 'the request was cancelled');
  }
  const msg = err instanceof Error ? err.message : String(err);
  return new EvioError('INTERNAL', msg, { cause: err });
}

export function isEvioError(err: unknown, name?: ErrorName): err is EvioError {
  return err instanceof EvioError && (name === undefined || err.errorName === name);
}
