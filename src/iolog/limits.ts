// Every bound the I/O-log engine keeps, in one place (docs/iolog.md repeats them).

/** Chunking: bytes of the data stream returned when `len` is absent. */
export const CHUNK_DEFAULT_LEN = 64 * 1024;
/** Chunking: the largest `len` served; a larger one is clamped and the answer's `len` says so. */
export const CHUNK_MAX_LEN = 1024 * 1024;
/** Chunking: items in one answer; the chunk ends early at a record boundary past this. */
export const CHUNK_MAX_ITEMS = 50_000;
/** Data events never carry more than this many bytes (big timing records are split). */
export const MAX_PIECE = 64 * 1024;
/** Plain stream files are read ahead up to this much (1-byte keystroke records cost one read each otherwise). */
export const STREAM_READ_AHEAD = 64 * 1024;

/** sudo's LINE_MAX for one timing line. */
export const TIMING_LINE_MAX = 2048;
/** log.json / legacy log / asciicast header larger than this are refused. */
export const INFO_MAX_BYTES = 16 * 1024 * 1024;
/** One asciicast event line (v1: the characters of one frame). v1 files are streamed: no size bound. */
export const CAST_LINE_MAX = 16 * 1024 * 1024;

/** Search: length of the regular expression. */
export const REGEX_MAX_LENGTH = 1024;
/** Search: wall-clock budget of one batch of regex tests; past it the search fails. */
export const REGEX_BUDGET_MS = 1000;
/**
 * Search: regex time a search may spend per session it names, on top of searchBudgetMs. The
 * regex calls of a session cost ~0.5-2.5 ms with an ordinary pattern (most of it the vm's
 * watchdog thread, and more on a loaded machine, since the time is wall time): a big search
 * with an ordinary pattern must not run out; a pattern can at most add about what reading the
 * sessions costs anyway (SEARCH_MAX_SESSIONS bounds that).
 */
export const REGEX_BUDGET_MS_PER_SESSION = 5;
/** Search: lines / characters handed to the regex in one budgeted batch. */
export const REGEX_BATCH_LINES = 512;
export const REGEX_BATCH_CHARS = 256 * 1024;
/** Search: patterns whose matcher (a vm context) a worker thread keeps for the next session. */
export const MATCHER_CACHE_SIZE = 16;
/** Search: a text line longer than this is broken (bounded memory, bounded regex input). */
export { TEXT_LINE_MAX } from '../replay/text/limits.js';
/** Search: sessions one search may read. */
export const SEARCH_MAX_SESSIONS = 200_000;
/** Sessions per search task at most (fewer when a search names few: every worker gets some). */
export const SEARCH_SESSIONS_PER_TASK = 8;
/** Sessions a worker searches at once within a task: one's file reads overlap another's work. */
export const SEARCH_SESSIONS_IN_FLIGHT = 3;
/** Search detail: lines per session, lines per answer, characters per line. */
export const DETAIL_LINES_PER_SESSION = 100;
export const DETAIL_LINES_TOTAL = 10_000;
export const DETAIL_LINE_CHARS = 1024;
/** Command timeline: lines in one answer (a longer one says truncated). */
export const COMMANDS_MAX = 100_000;
/** Glob length. */
export const GLOB_MAX_LENGTH = 1024;

/** Directory listing: filter length and entries per answer. */
export const FILTER_MAX_LENGTH = 256;
export const LIST_DIR_MAX_ENTRIES = 100_000;

/** Cached list paging. */
export const LIST_DEFAULT_LEN = 1000;
export const LIST_MAX_LEN = 10_000;

/**
 * Seek index: a keyframe (screen snapshot) is taken once this many data-stream bytes or timing
 * records have passed since the last one. The cost of "the screen at T" is one restore plus
 * reading and replaying at most this much, whatever the session's length.
 */
export const SEEK_KEYFRAME_BYTES = 256 * 1024;
export const SEEK_KEYFRAME_RECORDS = 10_000;
/** Seek index: keyframes written to SQLite in one transaction while building (bounded memory). */
export const SEEK_WRITE_BATCH = 32;
/** ...and at most this many bytes of them: a 2000 × 1000 screen's keyframe is megabytes. */
export const SEEK_WRITE_BATCH_BYTES = 8 * 1024 * 1024;
/**
 * Seek index: keyframe bytes of one session before the keyframes thin out. A keyframe is never
 * taken before as many data bytes have passed as the last one took (a big screen's keyframes
 * are fewer), and each time a session's keyframes pass another multiple of this budget the
 * spacing doubles: the index of a session stays within a small multiple of its data.
 */
export const SEEK_KEYFRAMES_BUDGET = 64 * 1024 * 1024;
/**
 * GET /REST/iolog/screen?cells=1: cells in one answer (some 17 bytes of JSON each). A larger
 * screen (up to 2000 × 1000) is asked for by windows of rows (cellrows=FIRST-LAST).
 */
export const SCREEN_CELLS_MAX = 250_000;
