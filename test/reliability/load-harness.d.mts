// Types of load-harness.mjs (plain JS so `npm run soak` runs it with node on dist/).
export interface LoadOptions {
  seconds: number;
  connections?: number;
  appendEveryMs?: number;
  warmupSeconds?: number;
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
