// Bounds of the terminal-text readers (src/iolog/limits.ts re-exports them with the I/O-log's own).

/** Search: a text line longer than this is broken (bounded memory, bounded regex input). */
export const TEXT_LINE_MAX = 16 * 1024;
