// Workload 6: I/O-log keyword search over 10k sessions: the worker pool's speed-up with N
// workers (this machine's cores) over one, and the wall time against `zgrep -c` over the same
// stream files. Both sides must name the same sessions.
import { writeFileSync, mkdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fmtInt, fmtRatio, fmtRss, fmtTiming, timeProcess, which } from '../lib/common.js';
import { evioArgv, profileLines } from '../lib/evio.js';

export const id = 6;
export const title = 'I/O-log search: worker pool and zgrep';

const PATTERN = 'served in 42 ms';

/** @param {import('../run.js').Ctx} ctx @returns {Promise<import('../lib/report.js').Section>} */
export async function run(ctx) {
  const ss = await ctx.data.sessions();
  const cores = availableParallelism();
  /** @type {import('../lib/report.js').Section} */
  const section = { id, title: `${title} (${fmtInt(ss.count)} sessions)`, setup: [], rows: [], notes: [] };
  const cfgDir = join(ctx.dataDir, 'cfg');
  mkdirSync(cfgDir, { recursive: true });
  /** @param {number} w */
  const config = (w) => {
    const p = join(cfgDir, `search-${ss.count}-w${w}.json`);
    writeFileSync(p, JSON.stringify({ home: join(cfgDir, 'home'), iologdirs: [ss.dir], iologcache: join(cfgDir, `home/iolog-index-${ss.count}.sqlite`), workers: w }));
    return p;
  };
  // Each run is long on the full data (a minute or more): at most 2 timed runs per side.
  const runs = ctx.smoke ? 1 : Math.min(ctx.runs, 2);
  const query = `output:${PATTERN}`;
  section.setup.push(
    `Data: \`${ctx.rel(ss.dir)}\`: ${fmtInt(ss.count)} sudo sessions from \`evio generate sessions --seed 1\` (${(ss.bytes / 1e6).toFixed(0)} MB of recorded I/O; odd sessions gzip-compressed), in the page cache.`,
    `evio: \`evio --config CFG iolog search '**' '${query}'\` (whole process), with settings \`workers\` = 1 and = ${cores} (this machine's cores); ${runs} timed runs each after a warm-up. The regex runs on each line of the text the screen showed (control sequences removed), per stream.`,
    `zgrep: \`find DIR -type f \\( -name ttyout -o -name stdout -o -name stderr \\) -print0 | xargs -0 zgrep -c -- '${PATTERN}'\` — the same output streams, raw bytes (the pattern has no escape sequence in it, so both see the same lines); sessions with a count > 0 are compared with evio's answer.`,
  );
  /** @param {string} stdout */
  const sessionsOf = (stdout) => JSON.parse(stdout).iologs.length;
  /** @type {Record<number, import('../lib/common.js').Timing>} */
  const t = {};
  let answer = -1;
  for (const w of [1, cores]) {
    if (t[w]) continue;
    t[w] = await timeProcess(evioArgv(['--config', config(w), 'iolog', 'search', '**', query]), {
      runs,
      warmup: ctx.warmup,
      check: (r) => {
        const n = sessionsOf(r.stdout);
        if (answer >= 0 && n !== answer) throw new Error(`workload 6: ${n} sessions with workers=${w}, ${answer} before`);
        answer = n;
      },
    });
  }
  const speedup = t[1].median / t[cores].median;
  section.rows.push({
    what: `pool speed-up: workers=${cores} over workers=1 (${fmtInt(answer)} matching sessions)`,
    evio: `${fmtTiming(t[cores], runs)} with ${cores} workers`,
    peerName: 'evio, workers=1',
    peer: fmtTiming(t[1], runs),
    ratio: `speed-up ${speedup.toFixed(2)}×`,
    goal: cores === 2 ? '≥ 1.7× on 2 cores' : `≥ 1.7× (goal stated for 2 cores; ${cores} here)`,
    status: speedup >= 1.7 ? 'met' : 'MISSED',
    rss: fmtRss(t[cores].rssKB),
  });
  // Cores busy on average = CPU time / wall time: with one worker the process is not one thread
  // (gzip inflation and file reads run on libuv's thread pool beside it), which bounds what a
  // second worker can add on 2 cores.
  const busy = (/** @type {import('../lib/common.js').Timing} */ x) => (x.cpuMs === null ? null : x.cpuMs / x.median);
  const b1 = busy(t[1]);
  const bN = busy(t[cores]);
  if (b1 !== null && bN !== null) {
    section.rows.push({
      what: 'cores kept busy (CPU time user + system / wall time, median run)',
      evio: `${bN.toFixed(2)} with ${cores} workers (CPU ${(t[cores].cpuMs / 1000).toFixed(1)} s)`,
      peerName: 'evio, workers=1',
      peer: `${b1.toFixed(2)} (CPU ${(t[1].cpuMs / 1000).toFixed(1)} s)`,
      ratio: `ceiling ${(cores / b1).toFixed(2)}× (${cores} cores / ${b1.toFixed(2)})`,
      goal: 'report (no goal)',
      status: 'no goal',
      rss: fmtRss(t[cores].rssKB),
      note: `with workers=1 the process already keeps ${b1.toFixed(2)} cores busy, so ${cores} workers on ${cores} cores can be at most ${(cores / b1).toFixed(2)}× faster, before any serial part (start-up, the glob walk).`,
    });
  }

  const zgrep = which('zgrep');
  if (zgrep) {
    const cmd = `find '${ss.dir}' -type f \\( -name ttyout -o -name stdout -o -name stderr \\) -print0 | xargs -0 zgrep -c -- '${PATTERN}'; exit 0`;
    const zRuns = ctx.smoke ? 1 : Math.min(runs, 2);
    const z = await timeProcess(['sh', '-c', cmd], {
      runs: zRuns,
      check: (r) => {
        const dirs = new Set();
        for (const line of r.stdout.split('\n')) {
          const m = /^(.*):(\d+)$/.exec(line);
          if (m && Number(m[2]) > 0) dirs.add(dirname(m[1]));
        }
        if (dirs.size !== answer) throw new Error(`workload 6: zgrep found ${dirs.size} sessions, evio ${answer}`);
      },
    });
    section.rows.push({
      what: `search wall time vs zgrep -c (${cores} workers)`,
      evio: fmtTiming(t[cores], runs),
      peerName: 'find | xargs zgrep -c',
      peer: fmtTiming(z, zRuns),
      ratio: fmtRatio(t[cores].median, z.median),
      goal: 'report (no goal)',
      status: 'no goal',
      rss: fmtRss(t[cores].rssKB),
    });
  } else {
    section.rows.push({ what: 'search wall time vs zgrep -c', evio: fmtTiming(t[cores], runs), status: 'not available', note: 'zgrep (gzip) is not installed' });
  }
  section.notes.push(...explain(section));
  if (ctx.profile && speedup < 1.7) {
    const subset = ss.count > 2000 ? '00/01/*' : '**';
    section.notes.push(
      `Profile of one search with workers=1${subset === '**' ? '' : ` over the ${fmtInt(1296)} sessions of \`${subset}\``} (main thread, then the worker thread):`,
      '',
      ...(await profileLines([evioArgv([])[1], '--config', config(1), 'iolog', 'search', subset, query], { label: `evio iolog search '${subset}' (workers=1)`, threads: 2, top: 10 })),
    );
  }
  return section;
}

/** Explanations of missed goals (text only, no figures): also applied to a stored section when a later partial run rewrites BENCHMARKS.md. @param {import('../lib/report.js').Section} section */
export function explain(section) {
  if (!section.rows.some((r) => r.status === 'MISSED')) return [];
  return [
    '**Why the pool does not reach 1.7×.** Three things bound it, all visible above or in the profile. (1) The row "cores kept busy": with `workers` = 1 the process is not one busy thread. The worker extracts text and tests lines, but gzip inflation (`zlib` streams) and every file open, read and close run on libuv\'s thread pool beside it, so one worker already keeps more than one core busy and a second can add at most 2 / that figure on 2 cores. (2) A serial part: process start-up and the walk that expands the glob over the 10,000 session directories (one worker, before any search; about 0.3 s and 0.7–1.3 s when measured alone). (3) The two workers share that thread pool and the kernel: per session the search opens, reads and closes several small files, and with two workers the system time grows faster than the work done. What the search does per session (src/iolog/search.ts, src/worker/iolog-tasks.ts `searchSessions`): sessions go to the workers in groups of up to 8, three searched at once in a worker so one\'s file reads overlap another\'s work, and a new group starts as soon as any ends (src/iolog/ordered-tasks.ts); each worker keeps one compiled matcher per pattern; only the requested streams are opened; plain stream files are read ahead in up to 64 KiB. The benchmark\'s pattern has no metacharacter, so it is searched as a substring (src/iolog/regex-budget.ts); any real regular expression is tested in batches of 512 lines, one budgeted vm call (with its watchdog thread) per batch.',
  ];
}
