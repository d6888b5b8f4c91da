// Workload 9: peak RSS while scanning, exporting and purging a 4 GB flat file (12M events);
// goal ≤ 200 MB each. The purge runs on a copy (it rewrites its input).
import { closeSync, openSync, readSync, rmSync, statSync, fstatSync } from 'node:fs';
import { join } from 'node:path';
import { fmtBytes, fmtInt, fmtMs, fmtRss, freeBytes, NotAvailable, timeProcess } from '../lib/common.js';
import { copyFile } from '../lib/data.js';
import { evioArgv } from '../lib/evio.js';

export const id = 9;
export const title = 'Memory: scan, export and purge of a 4 GB flat file';

const GOAL_KB = 200 * 1024;

/** `time` of the first and last record of an NDJSON event file. @param {string} path */
function timeSpan(path) {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const head = Buffer.alloc(Math.min(4096, size));
    readSync(fd, head, 0, head.length, 0);
    const tail = Buffer.alloc(Math.min(8192, size));
    readSync(fd, tail, 0, tail.length, size - tail.length);
    const first = JSON.parse(head.toString('utf8').split('\n')[0] ?? '{}');
    const lines = tail.toString('utf8').trimEnd().split('\n');
    const last = JSON.parse(lines[lines.length - 1] ?? '{}');
    return { first: Number(first.time), last: Number(last.time) };
  } finally {
    closeSync(fd);
  }
}

/** @param {number} unix */
function isoUtc(unix) {
  return new Date(unix * 1000).toISOString().replace('T', ' ').replace(/\.\d+Z$/, '');
}

/** @param {import('../run.js').Ctx} ctx @returns {Promise<import('../lib/report.js').Section>} */
export async function run(ctx) {
  const free = freeBytes(ctx.dataDir);
  const needFree = ctx.smoke ? 1e8 : 20e9;
  const exists = (() => {
    try {
      return statSync(join(ctx.dataDir, 'events-12m.ndjson')).size > 0;
    } catch {
      return false;
    }
  })();
  if (free < needFree && !(exists && free > 6e9)) {
    throw new NotAvailable(`only ${fmtBytes(free)} free on the disk holding ${ctx.rel(ctx.dataDir)}; this workload needs 20 GB (a 4 GB log and a 4 GB copy to purge)`);
  }
  const ev = await ctx.data.bigEvents();
  /** @type {import('../lib/report.js').Section} */
  const section = { id, title: ctx.smoke ? `${title} (smoke: ${fmtInt(ev.count)} events)` : title, setup: [], rows: [], notes: [] };
  const span = timeSpan(ev.path);
  const cut = isoUtc(span.first + (span.last - span.first) / 2);
  section.setup.push(
    `Data: \`${ctx.rel(ev.path)}\`: ${fmtInt(ev.count)} events, ${fmtBytes(ev.bytes)} (\`evio generate events --seed 1\`), records from ${isoUtc(span.first)} to ${isoUtc(span.last)} UTC.`,
    'Each command runs once as its own process; peak RSS is GNU time\'s "Maximum resident set size". Input MB/s = file bytes / wall time.',
    `Scan: \`evio events query ff:FILE --submituser alice --limit 100000000\` (rows counted by the harness). Export: \`evio events query ff:FILE --limit 100000000 > /dev/null\`. Purge: \`evio events delete ff:COPY --to '${cut}'\` on a fresh copy of the file (deletes about the first half, finish records of deleted accepts included; rewrite to a temporary file and rename).`,
  );
  const mbps = (/** @type {number} */ ms) => `${(ev.bytes / 1e6 / (ms / 1000)).toFixed(0)} MB/s`;
  /** @param {string} what @param {import('../lib/common.js').Timing} t @param {string} extra */
  const row = (what, t, extra) => {
    section.rows.push({
      what,
      evio: `peak RSS ${fmtRss(t.rssKB)}; wall ${fmtMs(t.median)} · ${mbps(t.median)}${extra}`,
      peerName: '– (goal is absolute)',
      goal: '≤ 200 MB',
      status: t.rssKB !== null && t.rssKB <= GOAL_KB ? 'met' : 'MISSED',
      rss: fmtRss(t.rssKB),
    });
  };
  const scan = await timeProcess(evioArgv(['events', 'query', `ff:${ev.path}`, '--submituser', 'alice', '--limit', '100000000']), { runs: 1, stdout: 'count' });
  row('scan (selective query)', scan, ` · ${fmtInt(scan.last.lines)} rows`);
  const exp = await timeProcess(evioArgv(['events', 'query', `ff:${ev.path}`, '--limit', '100000000']), { runs: 1, stdout: 'null' });
  row('export (every record, non-verbose)', exp, '');
  const copy = join(ctx.dataDir, 'purge-copy.ndjson');
  rmSync(copy, { force: true });
  copyFile(ev.path, copy);
  try {
    const purge = await timeProcess(evioArgv(['events', 'delete', `ff:${copy}`, '--to', cut]), { runs: 1 });
    const deleted = JSON.parse(purge.last.stdout.trim().split('\n').pop() ?? '{}').deleted;
    const left = statSync(copy).size;
    row('purge (delete --to, rewrite)', purge, ` · ${fmtInt(deleted)} records deleted, ${fmtBytes(left)} left`);
  } finally {
    for (const f of [copy, `${copy}.lock`]) rmSync(f, { force: true });
  }
  return section;
}
