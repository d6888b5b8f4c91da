// Workload 4: PostgreSQL with 10M rows: the same 512-event pages as workload 3 against psql
// running the same SQL (psql's \timing: client round trip, rows sent to \o /dev/null).
import { join } from 'node:path';
import { BENCH_DIR, fmtInt, fmtMs, fmtRatio, fmtRss, median, NotAvailable, runProcess, which } from '../lib/common.js';
import { ensurePg, PG_BASE } from '../lib/data.js';
import { profileLines, runChild } from '../lib/evio.js';
import { storeStatement } from '../lib/sqlpeer.js';

export const id = 4;
export const title = 'PostgreSQL: a 512-event page';

/**
 * psql running the statement K times with \timing on and \o /dev/null; the "Time:" lines are
 * read (microsecond resolution), the first few dropped as warm-up.
 * @param {string} psqlBin @param {string} schema @param {string} sql @param {number} k
 */
async function psqlTimes(psqlBin, schema, sql, k) {
  const u = new URL(PG_BASE);
  const script = `SET search_path = ${schema};\n\\timing on\n\\o /dev/null\n${`${sql};\n`.repeat(k + 5)}`;
  const r = await runProcess([psqlBin, '-X', '-q', '-h', u.hostname, '-p', u.port || '5432', '-U', decodeURIComponent(u.username || 'postgres'), '-d', u.pathname.slice(1), '-v', 'ON_ERROR_STOP=1'], { input: script, stdout: 'pipe' });
  if (r.code !== 0) throw new Error(`psql failed: ${r.stderr}`);
  const times = [...r.stdout.matchAll(/Time: ([\d.]+) ms/g)].map((m) => Number(m[1])).slice(5);
  if (times.length !== k) throw new Error(`psql printed ${times.length} timings, ${k} expected`);
  const mean = times.reduce((a, b) => a + b, 0) / times.length;
  return { median: median(times), mean, min: Math.min(...times), max: Math.max(...times) };
}

/** @param {import('../run.js').Ctx} ctx @returns {Promise<import('../lib/report.js').Section>} */
export async function run(ctx) {
  const psqlBin = which('psql');
  if (!psqlBin) throw new NotAvailable('psql (postgresql-client) is not installed: run bench/install-peers.sh');
  const ev = await ctx.data.dbEvents();
  const pg = await ensurePg({ source: ev, schema: ctx.smoke ? 'evio_bench_5k' : 'evio_bench_10m', log: ctx.log });
  const deep = ctx.smoke ? 4500 : 9_000_000;
  /** @type {import('../lib/report.js').Section} */
  const section = { id, title: `${title} (${fmtInt(pg.count)} rows)`, setup: [], rows: [], notes: [] };
  section.setup.push(
    `Data: schema \`${pg.schema}\` of the database at \`${PG_BASE.replace(/:[^:@/]*@/, ':***@')}\` (its own schema, so the tests' tables are untouched): the ${fmtInt(pg.count)} events of \`${ctx.rel(ev.path)}\` copied with \`evio events copy --to pg:URL\` (URL with \`options=-c search_path=${pg.schema}\`; first 20k events, \`ANALYZE\`, then the rest with \`ANALYZE\` every minute, as workload 3 explains), \`ANALYZE\` after the copy.`,
    'evio: `store.queryBatches(query)` in-process on `pg:URL` (node-postgres), rows decoded, shaped and serialized; tinybench in a child process after a first call. Peer: `psql` running the statement evio runs (parameters written in as literals) 100 times with `\\timing on` and `\\o /dev/null`, after 5 warm-up runs: the client-side round trip of each, rows fetched and printed to /dev/null.',
  );
  const queries = [
    { what: 'filtered page: `submituser=alice&limit=512` (dump=0)', params: { submituser: 'alice', limit: '512' }, goal: 'within 1.3× of psql' },
    { what: `deep page: \`start=${fmtInt(deep)}&limit=512\``, params: { start: String(deep), limit: '512' }, goal: 'within 1.3× of psql' },
  ];
  for (const q of queries) {
    const st = await storeStatement('pg', q.params);
    section.setup.push(`SQL (${q.what}): \`${st.inlined}\``);
    const evio = await runChild('bench-calls.mjs', ['query', '-', `pg:${pg.url}`, JSON.stringify(q.params), ctx.smoke ? '500' : '3000']);
    if (evio.count !== 512 && !ctx.smoke) throw new Error(`workload 4: evio answered ${evio.count} rows`);
    const peer = await psqlTimes(psqlBin, pg.schema, st.inlined, ctx.smoke ? 10 : 100);
    const ratio = evio.mean / peer.mean;
    section.rows.push({
      what: q.what,
      evio: `mean ${fmtMs(evio.mean)}, p50 ${fmtMs(evio.p50)}, p99 ${fmtMs(evio.p99)}`,
      peerName: 'psql, same SQL',
      peer: `mean ${fmtMs(peer.mean)}, p50 ${fmtMs(peer.median)} (${fmtMs(peer.min)}–${fmtMs(peer.max)})`,
      ratio: fmtRatio(evio.mean, peer.mean),
      goal: q.goal,
      status: ratio <= 1.3 ? 'met' : 'MISSED',
      rss: fmtRss(evio.maxRssKB),
      note: `${evio.samples} samples; judged on the means.`,
    });
    // The same statement through a node-postgres Client alone (no cursor, rows not decoded by
    // evio): what the driver costs before evio does anything.
    const driver = await runChild('bench-calls.mjs', ['driver', '-', `pg:${pg.url}`, JSON.stringify(q.params), ctx.smoke ? '500' : '3000']);
    section.rows.push({
      what: '↳ the same SQL through node-postgres alone (`client.query`, rows not shaped)',
      evio: `mean ${fmtMs(driver.mean)}, p50 ${fmtMs(driver.p50)}`,
      peerName: 'psql, same SQL',
      peer: `mean ${fmtMs(peer.mean)}`,
      ratio: fmtRatio(driver.mean, peer.mean),
      goal: '–',
      status: 'no goal',
      rss: fmtRss(driver.maxRssKB),
      note: `evio's own share of the page: ${fmtMs(evio.mean - driver.mean)} of ${fmtMs(evio.mean)} (pool checkout, decode, shape, serialize).`,
    });
    if (ctx.profile && ratio > 1.3) {
      section.notes.push(
        ...(await profileLines([join(BENCH_DIR, 'children', 'bench-calls.mjs'), 'query', '-', `pg:${pg.url}`, JSON.stringify(q.params), '3000'], { label: `store.query ${JSON.stringify(q.params)} on PostgreSQL (tinybench loop)` })),
      );
    }
  }
  if (section.rows.some((r) => r.status === 'MISSED')) {
    section.notes.push(
      '**Where a page\'s time goes.** The rows marked ↳ split it: the same statement through a node-postgres `Client` alone (one round trip, rows parsed into JavaScript objects, nothing else) against psql, and evio\'s own share on top: taking a pooled connection, decoding each row and shaping and serializing it as the service does. For `verbose=0` evio reads the answer from the indexed columns (`QueryOptions.summary`), never parsing the stored record, and a page no larger than one fetch is one statement, with no cursor or transaction around it (src/eventlog/postgres/pg-driver.ts). psql receives the same rows as text in C; node-postgres parses the wire protocol and builds each row in JavaScript, with garbage collection a large frame of the profile. Each ↳ row\'s note gives evio\'s own share in this run; the driver alone already takes about as long as psql or longer, so a 1.3× bound leaves evio\'s decoding, shaping and serializing less time than building the rows\' JSON takes. The timings of these small pages move between runs by ±30 % on this shared machine; compare the rows of one run.',
    );
  }
  return section;
}
