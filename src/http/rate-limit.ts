// Per-app rate limits: a token bucket per appid holding `limit` calls, refilled at limit/60 per
// second, so an app may burst up to its minute's allowance and then goes at the steady rate.
// Only authenticated appids get a bucket, so the map is bounded by the keystore.

export interface RateDecision {
  allowed: boolean;
  /** Calls per minute; 0 = unlimited (no headers are sent then). */
  limit: number;
  /** Whole calls left in the bucket after this one. */
  remaining: number;
  /** Seconds until one call is available again (when refused). */
  retryAfter: number;
}

interface Bucket {
  tokens: number;
  at: number; // milliseconds
  limit: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly now: () => number;

  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  take(appid: string, limit: number): RateDecision {
    if (limit <= 0) return { allowed: true, limit: 0, remaining: 0, retryAfter: 0 };
    const t = this.now();
    let b = this.buckets.get(appid);
    if (!b || b.limit !== limit) {
      // New app, or its limit changed in the keystore: start with a full bucket.
      b = { tokens: limit, at: t, limit };
      this.buckets.set(appid, b);
    }
    const perMs = limit / 60_000;
    b.tokens = Math.min(limit, b.tokens + (t - b.at) * perMs);
    b.at = t;
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return { allowed: true, limit, remaining: Math.floor(b.tokens), retryAfter: 0 };
    }
    return { allowed: false, limit, remaining: 0, retryAfter: Math.max(1, Math.ceil((1 - b.tokens) / perMs / 1000)) };
  }
}
