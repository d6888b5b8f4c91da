// Short form of the load test (issue 9, part 4): 6 s of mixed signed requests from 4 connections
// on loopback against the real server (flat-file and SQLite event queries, I/O-log chunk,
// replay, screen, search, session list, directory listing, indexed flat-file queries) while an appender appends to the flat-file log
// through the library. The long form is `npm run soak` (test/reliability/soak.mjs). Runs on
// dist/: `npm run build` first (npm test does).
import { describe, expect, it } from 'vitest';
import { runLoad } from './load-harness.mjs';

const MiB = 1024 * 1024;

describe('load on loopback while an appender writes', () => {
  it('answers every call with 200 and status 0, loses no append, and keeps RSS bounded', async () => {
    const r = await runLoad({ seconds: 6, connections: 4, appendEveryMs: 20, warmupSeconds: 2 });
    console.log(
      `load 6 s x4: ${r.requests} requests, ${r.requestsPerSecond.toFixed(1)}/s, p50 ${r.latencyP50} ms, p99 ${r.latencyP99} ms, ` +
        `appends ${r.appendsAcknowledged} acknowledged / ${r.appendsFound} found, RSS ${(Number(r.rssWarmStart) / MiB).toFixed(0)} -> ${(Number(r.rssEnd) / MiB).toFixed(0)} MiB; ` +
        `p99 by class: ${Object.entries(r.byKind).map(([k, v]) => `${k} ${Math.round(v.p99 ?? 0)} ms`).join(', ')}`,
    );
    // Every class of call ran (the figures per class are what docs/reliability.md reports).
    expect(Object.keys(r.byKind).sort()).toEqual(['chunk', 'indexed', 'list', 'query', 'replay', 'screen', 'search']);
    expect(r.requests).toBeGreaterThan(0);
    expect(r.statusCodes).toEqual({ 200: r.requests });
    expect({ non2xx: r.non2xx, errors: r.errors, timeouts: r.timeouts, bodyErrors: r.bodyErrors }).toEqual({ non2xx: 0, errors: 0, timeouts: 0, bodyErrors: [] });
    expect(r.appendsAcknowledged).toBeGreaterThan(0);
    expect({ appendErrors: r.appendErrors, missing: r.missing, found: r.appendsFound, unparsable: r.unparsableLines, trailingNewline: r.trailingNewline }).toEqual({
      appendErrors: 0,
      missing: [],
      found: r.appendsAcknowledged,
      unparsable: 0,
      trailingNewline: true,
    });
    // Generous: a short run is mostly warm-up; the soak reports the long-run figures.
    expect(r.rssWarmStart).not.toBeNull();
    expect(r.rssMaxAfterWarmup).toBeLessThan(Number(r.rssWarmStart) + 512 * MiB);
  }, 120_000);
});
