// Signatures already accepted, so that a captured request cannot be sent again. Protection is
// bounded by time, not by count: an entry lives exactly while its timestamp is inside the skew
// window (after that the timestamp check refuses the call anyway), so the window bounds the
// memory and the app's rate limit bounds how fast it fills. Each app has its own cache: one busy
// app can fill only its own. A full cache refuses new signatures rather than forget old ones
// (forgetting is what would let a captured call through again).

export type ReplayVerdict = 'fresh' | 'replay' | 'full';

export class ReplayCache {
  private readonly expiry = new Map<string, number>(); // key -> expiry (Unix seconds)
  /** Keys by expiry second, so pruning visits seconds, not entries. */
  private readonly bySecond = new Map<number, string[]>();
  private prunedAt = Number.NEGATIVE_INFINITY;

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.expiry.size;
  }

  /** Records `key` until `expiresAt` (inclusive). */
  remember(key: string, expiresAt: number, now: number): ReplayVerdict {
    if (now !== this.prunedAt) this.prune(now);
    const prev = this.expiry.get(key);
    if (prev !== undefined && prev >= now) return 'replay';
    if (this.expiry.size >= this.capacity) return 'full';
    this.expiry.set(key, expiresAt);
    const second = this.bySecond.get(expiresAt);
    if (second) second.push(key);
    else this.bySecond.set(expiresAt, [key]);
    return 'fresh';
  }

  /** Drops what expired before `now`: at most once per second, over at most 2 × skew seconds. */
  private prune(now: number): void {
    this.prunedAt = now;
    for (const [second, keys] of this.bySecond) {
      if (second >= now) continue;
      for (const k of keys) if (this.expiry.get(k) === second) this.expiry.delete(k);
      this.bySecond.delete(second);
    }
  }
}

/** One ReplayCache per appid. */
export class ReplayGuard {
  private readonly caches = new Map<string, ReplayCache>();

  constructor(private readonly capacityPerApp: number) {}

  remember(appid: string, key: string, expiresAt: number, now: number): ReplayVerdict {
    let cache = this.caches.get(appid);
    if (!cache) {
      cache = new ReplayCache(this.capacityPerApp);
      this.caches.set(appid, cache);
    }
    return cache.remember(key, expiresAt, now);
  }
}
