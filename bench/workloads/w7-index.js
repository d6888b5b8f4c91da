// Workload 7: the cached I/O-log index: a full build for 10k sessions, and a filtered list
// query (goal ≤ 10 ms). Peer: sudoreplay -l, which answers the same listing by reading every
// session's log file on each call.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { BENCH_DIR, fmtInt, fmtMs, fmtRatio, fmtRss, fmtTiming, timeProcess, which } from '../lib/common.js';
import { evioArgv, profileLines, runChild } from '../lib/evio.js';

export const id = 7;
export const title = 'I/O-log cached index: build and filtered list';

/** @param {import('../run.js').Ctx} ctx @returns {Promise<import('../lib/report.js').Section>} */
export async function run(ctx) {
  const ss = await ctx.data.sessions();
  const cores = availableParallelism();
  /** @type {import('../lib/report.js').Section} */
  const section = { id, title: `${title} (${fmtInt(ss.count)} sessions)`, setup: [], rows: [], notes: [] };
  const cfgDir = join(ctx.dataDir, 'cfg');
  mkdirSync(join(cfgDir, 'home'), { recursive: true });
  const indexFile = join(cfgDir, 'home', `iolog-index-w7-${ss.count}.sqlite`);
  const config = join(cfgDir, `index-${ss.count}.json`);
  writeFileSync(config, JSON.stringify({ home: join(cfgDir, 'home'), iologdirs: [ss.dir], iologcache: indexFile, workers: 0 }));
  const runs = ctx.smoke ? 1 : Math.min(ctx.runs, 3);
  const sudoreplay = which('sudoreplay');
  const filter = { submituser: 'alice', runuser: 'root' };
  section.setup.push(
    `Data: \`${ctx.rel(ss.dir)}\` (${fmtInt(ss.count)} sessions), in the page cache; settings \`workers\` = 0 (${cores} threads).`,
    `Build: \`evio iolog index --rebuild\` (whole process; an empty index, every session read), ${runs} runs. Peer: \`sudoreplay -d DIR -l\`, which lists the same sessions by reading every session's \`log\` on each call.`,
    `List: \`iologList(engine, {submituser: 'alice', runuser: 'root', refresh: '0'})\` in-process (tinybench, after a first call that starts the pool; default page of up to 1000 rows; the query runs in the worker pool as the service does). Peer: \`sudoreplay -d DIR -l user alice runas root\` (whole process). Also shown: the whole \`evio iolog list\` command.`,
  );
  const clean = () => {
    for (const f of [indexFile, `${indexFile}-wal`, `${indexFile}-shm`]) rmSync(f, { force: true });
  };
  clean();
  const build = await timeProcess(evioArgv(['--config', config, 'iolog', 'index', '--rebuild']), {
    runs,
    check: (r) => {
      const s = JSON.parse(r.stdout);
      if (s.total !== ss.count) throw new Error(`workload 7: the index holds ${s.total} sessions, ${ss.count} expected`);
    },
  });
  if (sudoreplay) {
    const peer = await timeProcess([sudoreplay, '-d', ss.dir, '-l'], { runs, warmup: ctx.warmup, check: (r) => { if (r.lines !== ss.count) throw new Error(`workload 7: sudoreplay -l listed ${r.lines} sessions`); } });
    section.rows.push({
      what: `index build, ${fmtInt(ss.count)} sessions`,
      evio: fmtTiming(build, runs),
      peerName: 'sudoreplay -l (reads every log, no index)',
      peer: fmtTiming(peer, runs),
      ratio: fmtRatio(build.median, peer.median),
      goal: 'report (no goal)',
      status: 'no goal',
      rss: fmtRss(build.rssKB),
    });
  } else section.rows.push({ what: 'index build', evio: fmtTiming(build, runs), status: 'no goal', rss: fmtRss(build.rssKB), note: 'sudoreplay not installed: no peer' });

  const list = await runChild('bench-calls.mjs', ['iolog-list', config, JSON.stringify({ ...filter, refresh: '0' }), ctx.smoke ? '500' : '3000']);
  let peerList = null;
  if (sudoreplay) {
    peerList = await timeProcess([sudoreplay, '-d', ss.dir, '-l', 'user', filter.submituser, 'runas', filter.runuser], { runs, warmup: ctx.warmup });
  }
  const expected = peerList ? Math.min(peerList.last.lines, 1000) : list.count;
  if (list.count !== expected) throw new Error(`workload 7: evio listed ${list.count}, sudoreplay ${peerList?.last.lines}`);
  section.rows.push({
    what: `filtered list query (in-process, ${fmtInt(list.count)} rows${peerList && peerList.last.lines > 1000 ? ` of ${fmtInt(peerList.last.lines)}` : ''})`,
    evio: `median ${fmtMs(list.p50)}, mean ${fmtMs(list.mean)}, p99 ${fmtMs(list.p99)}`,
    peerName: peerList ? '`sudoreplay -l user alice runas root` (process)' : '–',
    peer: peerList ? fmtTiming(peerList, runs) : '–',
    ratio: peerList ? fmtRatio(list.p50, peerList.median) : '–',
    goal: '≤ 10 ms',
    status: list.p50 <= 10 ? 'met' : 'MISSED',
    rss: fmtRss(list.maxRssKB),
    note: `${list.samples} samples; the goal is judged on the median.`,
  });
  const cli = await timeProcess(evioArgv(['--config', config, 'iolog', 'list', '--submituser', filter.submituser, '--runuser', filter.runuser, '--refresh', '0']), { runs, warmup: ctx.warmup });
  section.rows.push({
    what: 'filtered list, whole `evio iolog list` process',
    evio: fmtTiming(cli, runs),
    peerName: peerList ? 'sudoreplay -l user alice runas root' : '–',
    peer: peerList ? fmtTiming(peerList, runs) : '–',
    ratio: peerList ? fmtRatio(cli.median, peerList.median) : '–',
    goal: 'report (no goal)',
    status: 'no goal',
    rss: fmtRss(cli.rssKB),
  });
  // The default list (no refresh flag): a new process checks the stored directory mtimes and,
  // the index being current, skips the walk (src/iolog/index-freshness.ts).
  const fresh = await timeProcess(evioArgv(['--config', config, 'iolog', 'list', '--submituser', filter.submituser, '--runuser', filter.runuser, '--len', '10000']), { runs, warmup: ctx.warmup });
  section.rows.push({
    what: 'filtered list, whole `evio iolog list` process, default refresh (freshness check, current index)',
    evio: fmtTiming(fresh, runs),
    peerName: peerList ? 'sudoreplay -l user alice runas root' : '–',
    peer: peerList ? fmtTiming(peerList, runs) : '–',
    ratio: peerList ? fmtRatio(fresh.median, peerList.median) : '–',
    goal: 'report (no goal)',
    status: 'no goal',
    rss: fmtRss(fresh.rssKB),
  });
  if (list.p50 > 10) {
    section.notes.push(
      '**Where the list query\'s time goes.** `iologList` (src/app/iolog.ts) sends the query to the worker pool (`listQuery` task): the worker opens the SQLite index, runs the query and returns up to 1000 rows, which are copied back to the main thread (structured clone). The SQL itself is an indexed lookup; the thread hop and the copy of 1000 objects, plus any other load on the 2 cores, make the rest. See the profile.',
    );
  }
  if (ctx.profile && list.p50 > 10) {
    section.notes.push(
      ...(await profileLines([join(BENCH_DIR, 'children', 'bench-calls.mjs'), 'iolog-list', config, JSON.stringify({ ...filter, refresh: '0' }), '3000'], { label: 'iologList() in a tinybench loop (main thread and the pool thread that runs the query)', threads: 3 })),
    );
  }
  return section;
}
