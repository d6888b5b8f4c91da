// Types of load-harness.mjs (plain JS so `npm run soak` runs it with node on dist/).
export interface LoadOptions {
  seconds: number;
  connections?: number;
  appendEveryMs?: number;
  warmupSeconds?: number;
  /** Records of the static, indexed flat-file log (default 100000). */
  indexedEvents?: number;
  log?: (s: string) => void;
}
export interface LoadResult {
  seconds: number;
  connections: number;
  requests: number;
  requestsPerSecond: number;
  latencyP50: number;
  latencyP99: number;
  latencyMax: number;
  /** Per class of call (query, indexed, chunk, replay, screen, search, list): ms from signing to answer. */
  byKind: Record<string, { count: number; p50: number | null; p99: number | null; max: number | null }>;
  statusCodes: Record<string, number>;
  non2xx: number;
  errors: number;
  timeouts: number;
  bodyErrors: string[];
  appendsAcknowledged: number;
  appendErrors: number;
  appendsFound: number;
  missing: number[];
  unparsableLines: number;
  trailingNewline: boolean;
  rssWarmStart: number | null;
  rssEnd: number | null;
  rssMaxAfterWarmup: number;
  rssSamples: number;
  rssTrajectoryMiB: number[];
}
export function runLoad(opts: LoadOptions): Promise<LoadResult>;
