// Workload 3: SQLite with 10M rows: a filtered 512-event page against the sqlite3 shell running
// the same SQL, and a page deep in the log (recnum 9,000,000; goal ≤ 2 ms).
import { fmtInt, fmtMs, fmtRatio, fmtRss, median, NotAvailable, runProcess, which } from '../lib/common.js';
import { ensureSqlite } from '../lib/data.js';
import { profileLines, runChild } from '../lib/evio.js';
import { storeStatement } from '../lib/sqlpeer.js';
import { BENCH_DIR } from '../lib/common.js';
import { join } from 'node:path';

export const id = 3;
export const title = 'SQLite: a 512-event page';

/**
 * Per-statement time of the sqlite3 shell: a script running the statement K times, minus the
 * same shell running it once, divided by K-1 (the shell's .timer only has millisecond
 * resolution). Median over `runs` pairs.
 * @param {string} sqlite3 @param {string} db @param {string} sql @param {number} runs
 */
async function shellPerQuery(sqlite3, db, sql, runs) {
  const K = 201;
  const one = `.output /dev/null\n${sql};\n`;
  const many = `.output /dev/null\n${`${sql};\n`.repeat(K)}`;
  /** @type {number[]} */
  const per = [];
  for (let i = 0; i < runs + 1; i++) {
    const a = await runProcess([sqlite3, '-readonly', db], { input: one, stdout: 'null' });
    const b = await runProcess([sqlite3, '-readonly', db], { input: many, stdout: 'null' });
    if (a.code || b.code) throw new Error(`sqlite3 failed: ${a.stderr}${b.stderr}`);
    if (i > 0) per.push((b.ms - a.ms) / (K - 1)); // the first pair warms the cache
  }
  return { median: median(per), min: Math.min(...per), max: Math.max(...per) };
}

/** @param {import('../run.js').Ctx} ctx @returns {Promise<import('../lib/report.js').Section>} */
export async function run(ctx) {
  const sqlite3 = which('sqlite3');
  const ev = await ctx.data.dbEvents();
  const db = await ensureSqlite({ source: ev, name: ctx.smoke ? '5k' : '10m', log: ctx.log });
  const deep = ctx.smoke ? 4500 : 9_000_000;
  /** @type {import('../lib/report.js').Section} */
  const section = { id, title: `${title} (${fmtInt(db.count)} rows)`, setup: [], rows: [], notes: [] };
  section.setup.push(
    `Data: \`${ctx.rel(db.path)}\`: the ${fmtInt(db.count)} events of \`${ctx.rel(ev.path)}\` copied with \`evio events copy --from ff:... --to db:...\` (first 20k events, \`ANALYZE\`, then the rest: see the note on statistics below), \`ANALYZE\` run after the copy, in the page cache.`,
    'evio: `store.queryBatches(query)` in-process (`openStoreByName(engine, "db:PATH")`), every row decoded, shaped and serialized as the service does; tinybench in a child process after a first call. Peer: the `sqlite3` shell running the statement evio runs (`buildSelect` of dist/eventlog/sql/select.js, parameters written in as literals) with `.output /dev/null`: (time of 201 runs in one shell − time of 1 run) / 200, median of several pairs.',
  );
  const queries = [
    { what: 'filtered page: `submituser=alice&limit=512` (dump=0)', params: { submituser: 'alice', limit: '512' }, goal: 'within 1.2× of sqlite3', judge: 'peer' },
    { what: `deep page: \`start=${fmtInt(deep)}&limit=512\` (recnum ≥ ${fmtInt(deep)})`, params: { start: String(deep), limit: '512' }, goal: '≤ 2 ms', judge: 'abs' },
  ];
  for (const q of queries) {
    const st = await storeStatement('sqlite', q.params);
    const evio = await runChild('bench-calls.mjs', ['query', '-', `db:${db.path}`, JSON.stringify(q.params), ctx.smoke ? '500' : '3000']);
    if (evio.count !== 512 && !ctx.smoke) throw new Error(`workload 3: evio answered ${evio.count} rows for ${JSON.stringify(q.params)}`);
    section.setup.push(`SQL (${q.what}): \`${st.inlined}\``);
    let peer = null;
    if (sqlite3) {
      const c = await runProcess([sqlite3, '-readonly', db.path, `SELECT count(*) FROM (${st.inlined})`], { stdout: 'pipe' });
      if (Number(c.stdout.trim()) !== evio.count) throw new Error(`workload 3: sqlite3 counted ${c.stdout.trim()} rows, evio ${evio.count}`);
      peer = await shellPerQuery(sqlite3, db.path, st.inlined, ctx.smoke ? 1 : Math.max(3, ctx.runs));
    }
    const evioFig = `mean ${fmtMs(evio.mean)}, p50 ${fmtMs(evio.p50)}, p99 ${fmtMs(evio.p99)}`;
    const ratio = peer ? evio.mean / peer.median : NaN;
    const met = q.judge === 'abs' ? evio.p50 <= 2 : ratio <= 1.2;
    section.rows.push({
      what: q.what,
      evio: evioFig,
      peerName: peer ? 'sqlite3 shell, same SQL' : '–',
      peer: peer ? `${fmtMs(peer.median)} (${fmtMs(peer.min)}–${fmtMs(peer.max)})` : 'sqlite3 not installed',
      ratio: peer ? fmtRatio(evio.mean, peer.median) : '–',
      goal: q.goal,
      status: q.judge === 'peer' && !peer ? 'not available' : met ? 'met' : 'MISSED',
      rss: fmtRss(evio.maxRssKB),
      note: `${evio.samples} samples${q.judge === 'abs' ? '; judged on the median' : '; judged on the mean against the shell\'s amortized mean'}.`,
    });
    // The same statement through better-sqlite3 alone: what stepping and row objects cost
    // before evio decodes, shapes and serializes anything.
    const driver = await runChild('bench-calls.mjs', ['driver', '-', `sqlite:${db.path}`, JSON.stringify(q.params), ctx.smoke ? '500' : '3000']);
    section.rows.push({
      what: `↳ the same SQL through better-sqlite3 alone (\`.all()\`, rows not shaped)`,
      evio: `mean ${fmtMs(driver.mean)}, p50 ${fmtMs(driver.p50)}`,
      peerName: peer ? 'sqlite3 shell, same SQL' : '–',
      peer: peer ? fmtMs(peer.median) : '–',
      ratio: peer ? fmtRatio(driver.mean, peer.median) : '–',
      goal: '–',
      status: 'no goal',
      rss: fmtRss(driver.maxRssKB),
      note: `evio's own share of the page: ${fmtMs(evio.mean - driver.mean)} of ${fmtMs(evio.mean)} (decode, shape, serialize).`,
    });
    if (ctx.profile && !met) {
      section.notes.push(
        ...(await profileLines([join(BENCH_DIR, 'children', 'bench-calls.mjs'), 'query', '-', `db:${db.path}`, JSON.stringify(q.params), '3000'], { label: `store.query ${JSON.stringify(q.params)} (tinybench loop)` })),
      );
    }
  }
  if (section.rows.some((r) => r.status === 'MISSED')) {
    section.notes.push(
      '**Where a page\'s time goes.** The rows marked ↳ split it: the same statement through better-sqlite3 alone (stepping, and a JavaScript object per row, nothing else) against the shell, and evio\'s own share on top (decoding the row, shaping it with `epoch`, serializing it as the service does). For `verbose=0` evio reads the answer from the indexed columns (`QueryOptions.summary`, src/eventlog/sql/select.js), never parsing the stored record, and a page that fits one batch is read with `.all()` (src/eventlog/sqlite/sqlite-driver.ts). Each ↳ row\'s note gives evio\'s own share in this run. The driver\'s part is turning every row into a JavaScript object (better-sqlite3\'s `stream` frame in the profile below), which costs about what the shell spends printing it; a 1.2× bound on the whole answer leaves evio\'s decoding, shaping and serializing only a fifth of the shell\'s time, less than building the rows\' JSON alone takes (`fn` of bench-calls.mjs: shapeEvent and JSON.stringify). The timings of these small pages move between runs by ±30 % on this shared machine; compare the rows of one run.',
    );
  }
  section.notes.push(
    '**Statistics and bulk loads.** Every append batch re-links finish records (src/eventlog/sql/append-plan.ts `recomputeFinishesSql`: for the A/K rows of the batch\'s uniqueids, the first F after each). The etype test there is written so that no planner drives it by the unselective `events_etype` index, and `append` refreshes statistics as a young table grows; the bench still copies 20k events, runs `ANALYZE`, then copies the rest. Loading the 10M rows into SQLite and PostgreSQL at the same time took 31 and 32 minutes on this machine (2 cores, both loads in parallel).',
  );
  void NotAvailable;
  return section;
}
