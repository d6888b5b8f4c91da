// Workload 2: full non-verbose export of a flat file (1M events): input MB/s, next to a plain
// `cat` of the file (the read limit of the machine).
import { fmtInt, fmtMs, fmtRss, fmtTiming, timeProcess, which } from '../lib/common.js';
import { evioArgv, profileLines, runChild } from '../lib/evio.js';

export const id = 2;
export const title = 'Flat file: full non-verbose export';

/** @param {number} bytes @param {number} ms */
const mbps = (bytes, ms) => `${(bytes / 1e6 / (ms / 1000)).toFixed(0)} MB/s`;

/** @param {import('../run.js').Ctx} ctx @returns {Promise<import('../lib/report.js').Section>} */
export async function run(ctx) {
  const ev = await ctx.data.events();
  const runs = ctx.runs;
  /** @type {import('../lib/report.js').Section} */
  const section = { id, title: `${title} (${fmtInt(ev.count)} events)`, setup: [], rows: [], notes: [] };
  const file = ev.path;
  const args = ['events', 'query', `ff:${file}`, '--limit', '100000000'];
  section.setup.push(
    `Data: \`${ctx.rel(file)}\` (${fmtInt(ev.count)} events, ${(ev.bytes / 1e6).toFixed(0)} MB), in the page cache.`,
    `evio: \`evio ${args.join(' ').replace(file, 'FILE')} > /dev/null\` — every accept, reject and keystroke record (dump=0: finish records merged into their accepts), non-verbose shape, NDJSON; whole process, ${runs} runs after a counted warm-up run. MB/s = input file bytes / wall time.`,
    'Peer: `cat FILE > /dev/null`, the machine\'s read limit for a cached file.',
  );
  // Warm-up run: counts the rows, which must be every non-finish record.
  const rg = which('rg');
  const warm = await timeProcess(evioArgv(args), { runs: 1, stdout: 'count' });
  if (rg) {
    const nonF = await timeProcess([rg, '-c', '-v', '-F', '"etype":"F"', file], { runs: 1 });
    if (Number(nonF.last.stdout.trim()) !== warm.last.lines) throw new Error(`workload 2: evio exported ${warm.last.lines} rows, the file has ${nonF.last.stdout.trim()} non-finish records`);
  }
  const evio = await timeProcess(evioArgv(args), { runs, stdout: 'null' });
  const cat = await timeProcess(['cat', file], { runs, warmup: ctx.warmup, stdout: 'null' });
  section.rows.push({
    what: `export ${fmtInt(warm.last.lines)} rows: wall time`,
    evio: `${fmtTiming(evio, runs)} · ${mbps(ev.bytes, evio.median)}`,
    peerName: 'cat FILE > /dev/null',
    peer: `${fmtTiming(cat, runs)} · ${mbps(ev.bytes, cat.median)}`,
    ratio: `evio reads at ${((100 * cat.median) / evio.median).toFixed(1)} % of cat's rate`,
    goal: 'report (no goal)',
    status: 'no goal',
    rss: fmtRss(evio.rssKB),
  });
  const inproc = await runChild('query.mjs', [`ff:${file}`, JSON.stringify({ limit: '100000000' }), String(Math.max(3, Math.min(runs, 5)))]);
  const w = inproc.times.slice(1);
  const med = [...w].sort((a, b) => a - b)[w.length >> 1];
  section.rows.push({
    what: 'engine in-process (no process start, rows shaped and serialized, not written)',
    evio: `${fmtMs(med)} (${fmtMs(Math.min(...w))}–${fmtMs(Math.max(...w))}) · ${mbps(ev.bytes, med)}`,
    status: 'no goal',
    rss: fmtRss(inproc.maxRssKB),
    note: `${fmtInt(inproc.count)} rows, ${(inproc.bytes / 1e6).toFixed(0)} MB of NDJSON output; median of ${w.length} runs after a first one.`,
  });
  section.notes.push(...explain());
  if (ctx.profile) {
    section.notes.push(...(await profileLines([evioArgv([])[1], ...args], { label: 'evio events query (full export)' })));
  }
  return section;
}

/** The explanation (text only): also applied to a stored section when a later partial run rewrites BENCHMARKS.md. */
export function explain() {
  return [
    'No goal; the gap to `cat` is the cost of answering: every line is parsed (`JSON.parse`, the top frame of the profile below), checked, finish records are matched to their accepts (src/eventlog/flatfile/finish-merge.ts), and each row is shaped (`epoch` rendered) and serialized again as NDJSON.',
  ];
}
