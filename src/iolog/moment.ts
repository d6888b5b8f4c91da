// The one rounding of a moment in a session for answers that a screen call takes back as `at`.
// A timing record's offset has nanosecond precision; `at` is in seconds, rounded UP to the
// microsecond, so the screen at `at` includes that record. Milliseconds were too coarse: a
// search that typed a key per record (a reverse-i-search, a paste) shows several states within
// one millisecond, and `at` rounded up to the millisecond showed a later one.

/** Seconds since the session start, rounded up to the microsecond, for a moment in ms. */
export function atSeconds(ms: number): number {
  return Math.ceil(ms * 1000) / 1e6;
}
