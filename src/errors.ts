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
//   1800-1899 log server (sudo's log-server protocol: evio logsrvd)
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
  NOT_A_REGULAR_FILE: def(1010, 400, 'A file to read or write is not a regular file (a directory, FIFO, device node or socket)', 'Name a regular file: event logs and session files are plain files; FIFOs and device nodes are never opened for reading or writing.'),
  PATH_CHANGED: def(1011, 409, 'A file or directory was replaced or moved while evio opened it (for example a directory swapped for a symbolic link), so it was not used', 'Retry; if it persists, find out who changes the directories under eventlogdirs or iologdirs.'),

  // ---- 1100-1199 event query parameters
  QUERY_UNKNOWN_FORMAT: def(1100, 400, 'Unknown event log format', 'Use format=ff (flatfile, file), db or odbc.'),
  QUERY_FILE_REQUIRED: def(1101, 400, 'A flat-file query names no file', 'Add file=PATH (a flat-file event log under eventlogdirs).'),
  QUERY_DSN_REQUIRED: def(1102, 400, 'An ODBC query names no data source', 'Add dsn=NAME (an ODBC data source name).'),
  QUERY_BAD_ETYPE: def(1103, 400, 'Unknown event type', 'Use A, R, K, F or Accept, Reject, Keystroke, Finish, comma-separated.'),
  QUERY_FINISH_NEEDS_DUMP: def(1104, 400, 'etype=F was asked for without dump=1', 'Finish records are merged into their accepts unless dump=1; add dump=1.'),
  QUERY_BAD_DATE: def(1105, 400, 'A time parameter (events, the I/O-log session list, purge) cannot be parsed', 'Use Unix seconds, YYYY-MM-DD[ HH:MM[:SS]] (or with / or T, optionally with Z or ±HH:MM), now, today, yesterday, or -N with s, m, h, d or w (docs/events.md, "Times").'),
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
  QUERY_NUMBER_TOO_LARGE: def(1117, 400, 'A paging number is larger than 9007199254740991 (2^53 - 1), past which it is not exact', 'Give offset, start, end and limit below 2^53; resume only from offsets the service returned.'),
  QUERY_TIME_OUT_OF_RANGE: def(1118, 400, 'A time given as Unix seconds is past the range a date can hold', 'Give Unix seconds from 0 to 8640000000000 (the year 275760), or a date.'),
  QUERY_BAD_DSN: def(1119, 400, 'An ODBC data source name is malformed', 'Give dsn as the name of a data source in odbc.ini: 1-64 letters, digits, _ . - and spaces, starting with a letter, digit or _.'),

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
  STORE_APPEND_UNDONE: def(1209, 503, 'Writing appended records failed (disk full, quota, I/O error) and the log was cut back to its size before the append: none of them was appended', 'Free space or fix the error the message names, then send the same records again; nothing of the failed append was kept, so nothing is duplicated.'),
  STORE_APPEND_UNCERTAIN: def(1210, 500, 'Writing appended records failed and the log could not be cut back to its size before the append', 'The message names the byte range that may hold part of the batch; check the file system, then query from that offset before sending the records again (records given with their recnum are skipped when already present).'),
  // 1240-1259: flat-file specifics
  STORE_LINE_TOO_LONG: def(1240, 422, 'A line of a flat-file event log is longer than the reader\'s bound, so a rewrite cannot copy it', 'The line is not an event evio wrote (queries skip it as malformed); remove or split it, then delete again.'),
  FF_GZIP_CORRUPT: def(1250, 422, 'A gzip-compressed file of a flat-file log family cannot be decompressed', 'The message names the file and the zlib error; restore or remove the damaged file (the other files of the family answer on their own: query them by name).'),
  FF_GZIP_READ_ONLY: def(1251, 409, 'A gzip-compressed rotated event log is read-only', 'Appends and deletes go to plain files; decompress the file (gunzip) to change it, or delete from the live log.'),
  FF_NO_FAMILY_POSITION: def(1252, 400, 'The offset is a position a log-family query returned (2^52 + recnum), but the query does not read the log family', 'Give family=1 with an offset taken from a family query, or resume with an offset of the file itself.'),
  FF_INDEX_BUILD: def(1253, 500, 'The skip index of a flat-file event log could not be built', 'The message names the file and the system error (space, permissions of the index folder); queries still answer by scanning.'),
  // 1260-1279: event destinations (forwarders fed from the flat-file spool)
  DEST_CURSOR_DAMAGED: def(1260, 500, 'The cursor file of an event destination (what it was last delivered) is cut short or not a cursor, so where to resume is unknown', 'A database destination restarts from the start of the log by itself (it skips what it holds). For prog and syslog, delivery waits: remove the file to deliver the whole log again, or write {"recnum": N} into it to resume after record N (docs/events.md, "Event destinations").'),
  DEST_CURSOR_WRITE: def(1261, 500, 'The cursor file of an event destination cannot be written', 'Check the spool folder (<home>/spool), its permissions and free space; delivery is retried, and nothing is lost meanwhile (the flat-file log is the spool).'),
  DEST_PROG_FAILED: def(1262, 503, 'The program of the prog destination cannot be started, or exited', 'The message names the program and its exit status; its standard error is in evio\'s log. It is restarted with a growing delay and receives every record not yet delivered.'),
  DEST_SYSLOG_FAILED: def(1263, 503, 'The syslog destination cannot be reached (connection refused or lost, send failed)', 'Start the syslog daemon\'s listener on the configured address (rsyslog imtcp or imudp); delivery is retried with a growing delay and resumes where it stopped.'),

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
  IOLOG_BAD_NUMBER: def(1401, 400, 'start or len is not a whole number of 0 or more, or is larger than 9007199254740991 (2^53 - 1)', 'Give start and len as non-negative integers below 2^53 (docs/iolog.md lists the defaults and maximums).'),
  IOLOG_BAD_TIMING: def(1402, 422, 'A timing line of the session cannot be parsed; the session is read up to that line', 'Nothing to do for reading; the message names the line. The session was damaged or is not a sudo I/O log.'),
  IOLOG_BAD_INFO: def(1403, 422, 'The session has neither a readable log.json nor a readable legacy log file', 'Check the session directory; sudo writes log.json (1.9.0+) and log.'),
  IOLOG_BAD_QUERY: def(1404, 400, 'The search query is not keyword:regex with a known keyword and a valid regular expression', 'Use stdin, stdout, stderr, ttyin, ttyout, input, output or any, a colon, then a JavaScript regular expression of at most 1024 characters.'),
  IOLOG_REGEX_TIMEOUT: def(1405, 422, 'A regular expression ran past its time budget, for one batch of lines or for the whole request (catastrophic backtracking)', 'Simplify the pattern: avoid nested quantifiers such as (a+)+ and overlapping alternatives; or narrow the search. The searchBudgetMs setting sets the request budget.'),
  IOLOG_BAD_GLOB: def(1406, 400, 'The file glob is empty, too long or contains a .. segment', 'Give a glob of at most 1024 characters, absolute or relative to an I/O log root, without .. segments.'),
  IOLOG_BAD_FILTER: def(1407, 400, 'The directory listing filter is not a valid regular expression or is too long', 'Give filter as a JavaScript regular expression of at most 256 characters.'),
  IOLOG_SYSTEM_DIRECTORY: def(1408, 403, 'The path is a system directory, which is never listed or read as an I/O log', 'Configure iologdirs outside /proc, /sys, /dev, /etc, /usr, /boot, /run and the system binary and library folders.'),
  IOLOG_INDEX: def(1409, 500, 'The I/O log index database cannot be opened, read or written', 'Check the iologcache setting and the folder\'s permissions; delete the file to have it rebuilt by evio iolog index.'),
  // Retired: the session list reads its times with the one parser, which answers QUERY_BAD_DATE.
  IOLOG_BAD_DATE: { ...def(1410, 400, 'from or to cannot be parsed as a date', 'Since the one time parser: QUERY_BAD_DATE (1105) answers a bad time.'), retired: true },
  IOLOG_CORRUPT_STREAM: def(1411, 422, 'A stream file of the session is shorter than its timing says or its gzip data is damaged; what could be read is returned', 'Nothing to do for reading; a live session catches up once sudo flushes its files.'),
  IOLOG_TOO_MANY_SESSIONS: def(1412, 422, 'The search glob matches more sessions than one search may read', 'Narrow the glob (docs/iolog.md gives the limit).'),
  IOLOG_PARAMETER_REQUIRED: def(1413, 400, 'A required parameter is missing', 'Add the parameter the message names (file, path or query).'),
  IOLOG_READ: def(1414, 500, 'A session file cannot be read', 'The message names the file and the system error; check permissions.'),
  IOLOG_BAD_ASCIICAST: def(1415, 422, 'The asciicast file has no valid header line', 'Give an asciicast v1, v2 or v3 file as written by asciinema.'),
  IOLOG_WORKER: def(1416, 500, 'The I/O log worker pool failed or its compiled entry is missing', 'Run npm run build (the workers load dist/worker/); the message names the failure.'),
  IOLOG_BAD_EXPORT_FORMAT: def(1417, 400, 'Unknown export format', 'Use asciicast or text.'),
  IOLOG_NOT_A_DIRECTORY: def(1418, 400, 'path names something that is not a directory', 'Give path as a directory under an I/O log root; use file= to read a session.'),
  IOLOG_BAD_MATCH: def(1425, 400, 'The session list\'s match is neither all nor any', 'Give match=all (every filter must match, the default) or match=any (one filter is enough).'),
  IOLOG_SEEK_INDEX: def(1450, 500, 'The seek index (keyframes beside the cached list) cannot be opened, read or written', 'Check the folder of the iologcache setting and its permissions; the seek index is a cache, deleting its file (iologcache with -seek.sqlite) only costs a rebuild at the next seek.'),
  IOLOG_START_AND_AT: def(1451, 400, 'A chunk was asked for with both start (a byte position) and at (a time)', 'Give one of them: start=BYTES or at=SECONDS.'),
  IOLOG_PLAY_BAD_SPEED: def(1452, 400, 'The play speed is not a number between 0.0625 and 64', 'Give --speed as a decimal number, e.g. 0.5, 2 or 16.'),
  IOLOG_EVENT_SESSION_MISSING: def(1454, 404, 'The iolog path of the keystroke event names no session under the I/O log roots', 'Check that the event\'s iolog path lies under one of iologdirs and that the session directory still exists (it may have been purged).'),
  // 1455-: writing sudo I/O log sessions (the log server's storage, src/iolog/writer)
  IOLOG_TEMPLATE_INVALID: def(1455, 500, 'The I/O log directory or file template of the log server is not valid: the directory is not absolute or lies outside iologdirs, the file part is absolute, an escape is unknown or unsupported, %{seq} is in the directory part, or a part is . or ..', 'Fix the template named in the message; docs/logserver.md ("Storage") lists the escapes.'),
  IOLOG_PATH_UNSAFE: def(1456, 400, 'The values a client sent would make an unsafe session path: a path component that is . or .. or longer than 255 bytes, a path longer than 4096 bytes or naming no directory below the root, or a directory on the way that is a symbolic link or not a directory', 'Nothing to change on the server when a client sends such values (the session is refused); if the message names a symbolic link or a file inside iologdirs, find out who created it.'),
  IOLOG_SESSION_EXISTS: def(1457, 409, 'The session directory the template names already exists and is not empty, and the template cannot choose another name (it has neither %{seq} nor trailing XXXXXX), or every name tried was taken', 'Make the file template unique per session (%{seq} or XXXXXX); evio never writes into an existing session.'),
  IOLOG_WRITE: def(1458, 500, 'Creating or writing a session file failed (disk full, quota, permissions, I/O error); the session stops taking records', 'The message names the file and the system error; fix it. What was flushed before stays intact and the client may restart from its last commit point.'),
  IOLOG_BAD_RECORD: def(1459, 400, 'A record or the session information to write is not valid: a delay that is negative, not whole or has 10^9 nanoseconds or more, a window size outside 0..2^31-1, a signal name that sudoreplay would not read, a stream number other than 0-4, or an Accept without submituser, submithost, runuser or command', 'The client sent a value sudo never sends; the message names it.'),
  IOLOG_WRITER_CLOSED: def(1460, 409, 'A record, flush or finish arrived for a session that was already finished or closed', 'A protocol error of the caller: nothing more is written to a finished or closed session (reopen an incomplete one to resume it).'),
  IOLOG_SESSION_COMPLETE: def(1461, 409, 'The session cannot be resumed: it is complete (its timing file has no write bit)', 'Nothing to resume; the session was finished.'),
  IOLOG_RESUME_POINT: def(1462, 409, 'The resume point does not end a record of the session (it falls between two records or past the end), or the session\'s files are damaged or shorter than its timing says before that point', 'Restart from a commit point this server reported for the session; the message says where the stored records end.'),
  IOLOG_SESSION_IN_USE: def(1463, 409, 'The session is still open for writing in this process, so it cannot be reopened', 'Close the old connection\'s session first (a lost connection closes it when the server notices).'),
  IOLOG_SEQ_LOCK_TIMEOUT: def(1464, 503, 'The session sequence counter (seq) stayed locked by another writer for too long', 'Retry; a lock left by a dead process is taken over automatically.'),
  IOLOG_DOWNLOAD_REDACTED: def(1465, 403, 'A session file was asked for as recorded (GET /REST/iologfile) by a caller that sees redacted data: the redact setting holds rules and the app has no unredacted permission', 'Read the session through chunks, replay, screen or `evio iolog export`, which mask what the rules match; or give the app "unredacted": true in the keystore (docs/auth.md) if it may see secrets.'),
  REDACT_RULES_INVALID: def(1466, 400, 'The RULES file of `evio redact test` cannot be read, is not JSON, or holds no valid redact list (a JSON array of rules, or an object with a "redact" key: a settings file)', 'Fix the file the message names; docs/iolog.md ("Redaction") shows a rule list.'),
  REDACT_TEST_INPUT: def(1467, 400, 'The FILE of `evio redact test` is neither a session nor a regular file that can be read', 'Name a sudo I/O log session directory, an asciicast file or a plain file.'),
  IOLOG_SCREEN_CELLS_TOO_MANY: def(1468, 400, 'cells=1 would answer more cells than one screen answer holds (250000), or cellrows is not FIRST-LAST (0-based row numbers, FIRST at most LAST)', 'Ask for the cells of a window of rows with cellrows=FIRST-LAST (the message says how many rows fit); several calls cover a large screen.'),
  IOLOG_BAD_SORT: def(1469, 400, 'The session list cannot be sorted by this field or in this order', 'Use sort= createtime, end, duration, submituser, submithost, runuser, runhost, runcmd, exitstatus or logpath, and order= asc or desc.'),
  IOLOG_TIMING_SHORT: def(1470, 422, "The timing file of a finished session ends before its stream files do, or inside a line: it was cut short; the session is read up to the end of its timing", 'Nothing to do for reading; restore the timing file from a backup to see the rest. The duration shown is that of the timing left.'),
  IOLOG_DAMAGED: def(1471, 422, 'The command read a damaged session: its warnings are on standard error, what could be read on standard output', 'Read the warnings; give --allow-damaged to exit 0 when what could be read is enough.'),
  IOLOG_BAD_LOG_JSON: def(1472, 422, "The session's log.json cannot be read; its legacy log file was read instead", 'Nothing to do for reading; the variables only log.json holds (environment, cwd, uuid) are missing from the answer.'),
  IOLOG_TOO_MANY_WATCHERS: def(1473, 503, 'Too many clients already follow live sessions on this server (GET /REST/iolog/follow)', 'Close a console page that follows a session (a wall shows many), or retry later; docs/api.md gives the limit.'),
  // ---- 1500-1599 replay
  REPLAY_TERM_UNKNOWN: def(1500, 400, 'No terminfo entry for the terminal type, and no built-in one', 'Give term= a type the system terminfo database has (infocmp TYPE), or xterm, xterm-256color, vt100, linux or screen.'),
  REPLAY_TERM_BAD_NAME: def(1501, 400, 'The terminal type name is not a valid terminfo name', 'Use a plain name such as xterm-256color: no "/", no control characters, at most 128 characters.'),
  REPLAY_TERMINFO_CORRUPT: def(1502, 500, 'A compiled terminfo file is truncated or malformed', 'Reinstall the terminfo entry named in the message (or remove it to use the built-in one).'),
  // ---- 1600-1699 HTTP service
  HTTP_BODY_TOO_LARGE: def(1600, 413, 'The request body is larger than the service accepts (maxBodyBytes, 64 KiB by default)', 'Send a smaller body; queries take their filters in the query string.'),
  HTTP_BAD_BODY: def(1601, 400, 'The request body is not valid JSON', 'Send a JSON body with content-type application/json, or no body.'),
  HTTP_UNSUPPORTED_MEDIA_TYPE: def(1602, 415, 'The request body has a content type other than JSON', 'Send content-type application/json, or no body.'),
  HTTP_BAD_REQUEST: def(1603, 400, 'The HTTP request is malformed (bad URL encoding, bad header, too many parameters)', 'Send a well-formed request; the message names what was refused.'),
  HTTP_RATE_LIMITED: def(1604, 429, 'The app made more calls than its rate limit allows', 'Wait the number of seconds in the Retry-After header; raise rateLimit for the app in the keystore (evio keys add --rate-limit).'),
  HTTP_ROUTE_FORBIDDEN: def(1605, 403, 'The authenticated app may not call this route (not in its routes list, or a writing route for a read-only app)', 'Call a route the app is allowed, or change the app in the keystore (docs/auth.md).'),
  KEYSTORE_INSECURE: def(1606, 500, 'The keystore file can be read or written by group or others, or is not a regular file', 'chmod 600 the keystore file named in the message.'),
  KEYSTORE_INVALID: def(1607, 500, 'The keystore file cannot be read or is not a valid keystore', 'Fix or recreate the file named in the message (docs/auth.md gives the format; evio keys add creates one).'),
  KEYSTORE_UNKNOWN_APP: def(1608, 404, 'The keystore has no app of this appid', 'Run evio keys list to see the appids.'),
  KEYSTORE_APP_EXISTS: def(1609, 409, 'The keystore already has an app of this appid', 'Choose another appid, or evio keys rotate it.'),
  LISTEN_INSECURE: def(1610, 500, 'Plain HTTP was asked for on an address that is not loopback', 'Configure tls (cert and key), listen on 127.0.0.1, or set allowInsecure / --allow-insecure.'),
  TLS_UNREADABLE: def(1611, 500, 'The TLS certificate or key cannot be read or used', 'Check the tls.cert and tls.key paths and that they hold a PEM certificate and its private key.'),
  LISTEN_FAILED: def(1612, 500, 'The service cannot listen on the configured address', 'The message names the system error; pick another port or host, or stop what uses it.'),
  REST_CLIENT: def(1613, 502, 'evio rest could not reach the service or its answer was not JSON', 'Check --url, that evio serve runs, and --insecure for a self-signed certificate.'),
  HTTP_HEADERS_TOO_LARGE: def(1614, 431, 'The request line or headers are larger than the service accepts', 'Send a shorter URL (fewer or shorter parameters) and fewer headers.'),
  HTTP_TOO_MANY_CONNECTIONS: def(1615, 503, 'The service already holds as many connections as maxConnections allows, every one of them a signed caller\'s, or as many from the caller\'s address as maxConnectionsPerAddress allows; this one was refused and closed (the message says which bound)', 'Retry after the Retry-After seconds; reuse one keep-alive connection instead of opening many; an operator can raise maxConnections or maxConnectionsPerAddress (behind a proxy every caller has the proxy\'s address).'),
  HTTP_REQUEST_TIMEOUT: def(1616, 408, 'The request line, headers or body did not arrive within headersTimeoutMs / requestTimeoutMs; the connection was closed', 'Send the whole request promptly; an operator can raise the timeouts in the settings.'),
  HTTP_RESPONSE_STALLED: def(1617, 408, 'The client stopped reading a streamed answer for longer than stalledResponseTimeoutMs; the server closed the connection (logged on the server, the client sees the connection end)', 'Read answers as they arrive, or ask for smaller pages (limit); an operator can raise stalledResponseTimeoutMs.'),
  STORE_READERS_BUSY: def(1618, 503, 'The event store already streams as many answers as maxReadersPerStore allows', 'Retry after the Retry-After seconds, or read answers faster; an operator can raise maxReadersPerStore.'),
  AUTH_REPLAY_CAPACITY: def(1620, 503, 'The app made more signed calls inside the timestamp window than replay protection remembers', 'Retry after a few seconds; a client that needs more calls per window than the keystore\'s rate limit allows should use several appids, or raise replayCapacityPerApp in the settings.'),
  TLS_KEY_INSECURE: def(1621, 500, 'The TLS private key file can be read or written by group or others, or is not a regular file', 'chmod 600 the key file named in the message (and keep it owned by the user evio runs as).'),
  AUDIT_LOG_APPEND_ONLY: def(1622, 403, 'The call would delete records of evio\'s own audit log or of one of its rotated files (plain or gzipped), which are append-only, or rotate a rotated audit file', 'Query the audit log instead; to retire old audit records, an operator rotates the file (evio events rotate), archives the rotated files and removes whole old ones with evio events rotate --remove-older-than (recorded in the audit log).'),
  AUDIT_WRITE_FAILED: def(1623, 500, 'A call that changed data could not be written to the audit log', 'The change itself happened; the message names the audit log and the system error. Fix the file or its folder (permissions, space) so later changes are recorded.'),
  METRICS_FORBIDDEN: def(1626, 403, 'GET /metrics was called from where the metrics setting does not allow it (not a direct loopback call under "loopback" — a call a proxy forwarded is not —, without the bearer token under "token", not a signed call of an app allowed the route under "signed")', 'Scrape from the same machine without a proxy, or set metrics to "token" and send Authorization: Bearer with the token of metricsTokenFile, or to "signed" and sign the scrape with an app whose routes include GET /metrics (docs/operations.md).'),
  SERVICE_NOT_READY: def(1627, 503, 'GET /readyz: a configured store or the worker pool is not usable; the answer names which part (never a path or a URL)', 'Check the part named: the data folder\'s permissions, the event database, the PostgreSQL server, or the worker entry (npm run build); the server log has no more detail than the answer.'),
  SERVICE_STOPPING: def(1628, 503, 'The service is shutting down (SIGTERM): the calls already running finish, new ones are refused', 'Retry against another instance, or after the service has restarted.'),
  CONSOLE_NOT_BUILT: def(1635, 503, 'The console page (GET /console/) was not built: dist/console has no index.html', 'Run npm run build (it bundles the console after compiling the server); an installed package ships it built.'),
  AUDIT_LOG_EVIO_ONLY: def(1636, 403, 'The call would add records to evio\'s own audit log or one of its rotated files (an append, a copy or an import into it), or write an output file (an export, a generated log) over one or beside it under a name of its family; only evio\'s recording of audited calls writes there', 'Append, copy, import or write the output into another file; the audit log records calls, it does not take records from them.'),
  READERS_BUSY: def(1637, 503, 'The service already streams as many answers, across all its event stores, as maxReaders allows', 'Retry after the Retry-After seconds, or read answers faster; an operator can raise maxReaders (docs/settings.md).'),
  // ---- 1700-1799 batch jobs
  JOB_SOURCE_UNREADABLE: def(1700, 400, 'The file to import cannot be opened or read', 'Check the path and its permissions; the message names the system error.'),
  IMPORT_UNKNOWN_FORMAT: def(1701, 400, 'Unknown import format', 'Use --from sudo-json or --from sudo-text.'),
  IMPORT_NOT_RECOGNISED: def(1702, 422, 'The file does not look like a sudo event log of the format given', 'Check --from: sudo-json reads the pretty and compact JSON framings and @cee: syslog lines, sudo-text the classic text log (file or syslog).'),
  IMPORT_STOPPED: def(1703, 422, 'The import stopped at data that cannot be parsed before the end of the file; every whole event before it was imported', 'The message names the byte offset and line: repair or cut the file there and import again (a re-import adds only what is missing).'),
  EXPORT_UNKNOWN_FORMAT: def(1704, 400, 'Unknown export format', 'Use --format ndjson, csv, json, ecs, ocsf or cef.'),
  EXPORT_OUTPUT: def(1705, 500, 'The export output file cannot be written', 'Check the folder, its permissions and free space; the message names the system error.'),
  PURGE_NOT_CONFIRMED: def(1706, 409, 'A purge was neither confirmed on a terminal nor given --yes', 'Run it with --dry-run to see what would go, then again with --yes.'),
  JOB_BAD_DURATION: def(1707, 400, 'An age such as --older-than is not a duration', 'Give a whole number with a unit: 90d, 12h, 30m, 2w, 3600s.'),
  JOB_BAD_SIZE: def(1708, 400, 'A size such as --max-size is not a size', 'Give bytes, or a number with K, M, G or T (powers of 1024): 1G, 500M.'),
  ROTATE_NOT_FLATFILE: def(1709, 400, 'Rotation was asked for a store that is not a flat file', 'Rotate a flat-file event log (a path or ff:PATH); databases are not rotated.'),
  ROTATE_UNFINISHED: def(1710, 409, 'An interrupted rotation left files that evio cannot reconcile on its own', 'The message names the files: compare them, keep the right one and remove the .rotating journal.'),
  PURGE_IOLOG_FAILED: def(1711, 500, 'An I/O log the purge had to delete could not be removed, so no record was deleted', 'The message names the path and the system error; fix it (permissions, mount) and run the purge again: it finishes the job.'),
  IMPORT_BAD_EVENT: def(1712, 422, 'An event of the source is not a JSON object or nests deeper than 64 levels; it was skipped and the import went on', 'Nothing to do for the other events: the report counts such events (skipped.badEvents) and names the first one (firstBadEvent: line and byte offset); fix or drop it in the source if it matters.'),

  // ---- 1800-1899 log server (sudo's log-server protocol). A client is told these in the protocol's
  // `error` message, which ends its connection; the server logs them with the peer's address.
  LOGSRV_FRAME_TOO_LARGE: def(1800, 413, 'A client message is larger than the protocol allows (2 MiB), or its length prefix is 0', 'The client is not a sudo log client or is broken; sudo and sudo_sendlog never send such frames.'),
  LOGSRV_BAD_MESSAGE: def(1801, 400, 'A client message cannot be decoded as a ClientMessage of sudo_logsrv.proto (malformed protobuf, no message type, an integer out of range)', 'Check that the client speaks sudo\'s log-server protocol (sudoers log_servers, sudo_sendlog) and, on the TLS port, that it uses TLS.'),
  LOGSRV_UNEXPECTED_MESSAGE: def(1802, 400, 'A client message came where the protocol does not allow it (an I/O buffer before an Accept, a second Accept without subcommands, anything after the Exit)', 'The message names the state and the message; the client is broken or not a sudo log client.'),
  LOGSRV_INVALID_MESSAGE: def(1803, 400, 'A client message lacks a required field (submit time, delay, run-time information keys command, runuser, submithost, submituser) or holds a value evio refuses (a control byte in a name, a window size of 0)', 'The message names the field; fix the client.'),
  LOGSRV_BAD_LOG_ID: def(1804, 404, 'A restart names a log id this server never gave out, or whose session is gone', 'Resume with the log id the server sent for that session (sudo_sendlog -i), on the server that received it.'),
  LOGSRV_RESTART_REFUSED: def(1805, 409, 'A restart cannot resume the session: it is complete, or the resume point is not the end of a record the server stored', 'Resume from a commit point the server acknowledged; a complete session cannot be resumed.'),
  LOGSRV_STORAGE: def(1806, 503, 'The server cannot store what the client sent (creating the session directory, writing or syncing a file, appending the event)', 'The server log names the path and the system error (space, permissions); the client may retry: nothing unacknowledged was counted.'),
  LOGSRV_LIMIT: def(1807, 503, 'A limit of the log server was reached: connections, connections from one address, or sessions at once', 'Retry later; an operator can raise the logsrvd limits in the settings (docs/logserver.md).'),
  LOGSRV_TIMEOUT: def(1808, 408, 'A client did not finish its hello, or a message it had started, in time', 'The client stalled in the middle of a message (or never spoke); check the network. An idle client between messages is never cut.'),
  LOGSRV_STOPPING: def(1809, 503, 'The log server is shutting down', 'The client reconnects to another server or after the restart; acknowledged data is on disk.'),
  LOGSRV_BAD_LISTEN: def(1810, 500, 'A logsrvd listen address is not HOST:PORT with an optional (tls), or names TLS without a certificate', 'Give listen entries like 0.0.0.0:30343 or 0.0.0.0:30344(tls), and logsrvd.tls.cert / logsrvd.tls.key for TLS.'),

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

  /** The JSON body every door answers with (through the door's text filter: setErrorTextFilter). */
  toBody(): { status: number; error: string } {
    return { status: this.code, error: errorTextFilter(this.message) };
  }
}

let errorTextFilter: (text: string) => string = (t) => t;

/**
 * What error bodies pass through before they are sent: the HTTP door hides the server's
 * absolute paths (its configured roots) there (paths.ts, hideRoots).
 */
export function setErrorTextFilter(f: (text: string) => string): void {
  errorTextFilter = f;
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
