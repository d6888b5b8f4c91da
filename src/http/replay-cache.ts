// Signatures already accepted, so that a captured request cannot be sent again. An entry only
// has to live while its timestamp is inside the skew window (after that the timestamp check
// refuses it anyway), which bounds the cache by the call rate; a hard size cap bounds it
// against anything else (the oldest entries go first: documented in docs/auth.md).

export class ReplayCache {
  private readonly seen = new Map<string, number>(); // key -> expiry (Unix seconds)
  private readonly maxEntries: number;

  constructor(maxEntries = 100_000) {
    this.maxEntries = maxEntries;
  }

  get size(): number {
    return this.seen.size;
  }

  /** Records `key` until `expiresAt`; false when it is already there (a replay). */
  remember(key: string, expiresAt: number, now: number): boolean {
    const prev = this.seen.get(key);
    if (prev !== undefined && prev >= now) return false;
    if (prev !== undefined) this.seen.delete(key);
    if (this.seen.size >= this.maxEntries) this.prune(now);
    this.seen.set(key, expiresAt);
    return true;
  }

  private prune(now: number): void {
    for (const [k, exp] of this.seen) if (exp < now) this.seen.delete(k);
    // Still full: forget the oldest insertions (Map keeps insertion order).
    const excess = this.seen.size - this.maxEntries + 1;
    if (excess > 0) {
      let n = 0;
      for (const k of this.seen.keys()) {
        if (n++ >= excess) break;
        this.seen.delete(k);
      }
    }
  }
}
