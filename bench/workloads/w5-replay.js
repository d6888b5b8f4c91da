// Workload 5: replay tokenizer throughput against @xterm/headless. The micro-benchmark itself is
// the replay module's own (bench/replay.mjs, tinybench, same bytes for every engine); this
// workload runs it in a child process and reads its table.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH_DIR, NODE, NotAvailable, runProcess } from '../lib/common.js';
import { profileLines } from '../lib/evio.js';

export const id = 5;
export const title = 'Replay tokenizer: MB/s against @xterm/headless';

/**
 * Rows of a console.table printout: header names → cell text (quotes stripped).
 * @param {string} text
 * @returns {Record<string,string>[]}
 */
export function parseConsoleTable(text) {
  const lines = text.split('\n').filter((l) => l.startsWith('│'));
  if (lines.length < 2) return [];
  const cells = (/** @type {string} */ l) => l.split('│').slice(1, -1).map((c) => c.trim().replace(/^'(.*)'$/, '$1'));
  const head = cells(lines[0]);
  return lines.slice(1).map((l) => Object.fromEntries(cells(l).map((c, i) => [head[i], c])));
}

/** @param {import('../run.js').Ctx} ctx @returns {Promise<import('../lib/report.js').Section>} */
export async function run(ctx) {
  const script = join(BENCH_DIR, 'replay.mjs');
  if (!existsSync(script)) throw new NotAvailable('bench/replay.mjs (the replay module\'s micro-benchmark) is not there yet');
  const args = ctx.smoke ? ['--mb', '0.1', '--time', '100'] : ['--mb', '4', '--time', '3000'];
  const r = await runProcess([NODE, script, ...args], { stdout: 'pipe' });
  if (r.code !== 0) {
    const why = r.stderr.trim().split('\n').find((l) => /Error|Cannot find/.test(l)) ?? r.stderr.trim().split('\n').pop();
    throw new NotAvailable(`bench/replay.mjs failed (the replay module may not be built or finished yet): ${why}`);
  }
  const table = parseConsoleTable(r.stdout);
  if (!table.length) throw new Error(`workload 5: could not read the table of bench/replay.mjs:\n${r.stdout.slice(0, 1000)}`);
  /** @type {import('../lib/report.js').Section} */
  const section = { id, title, setup: [], rows: [], notes: [] };
  section.setup.push(
    `\`node bench/replay.mjs ${args.join(' ')}\` (the replay module's micro-benchmark, tinybench): three inputs of ${ctx.smoke ? '0.1' : '4'} MB written in 4 KiB chunks — text-heavy, SGR-heavy (coloured \`ls -lR\`), cursor-heavy (full-screen redraws) — through evio's Tokenizer (terminfo token items), evio's Screen model, and @xterm/headless (80×24, 1000 lines scrollback). ${r.stdout.split('\n')[0]}.`,
    'MB/s = input bytes / mean time per pass. The goal compares the tokenizer with @xterm/headless; the screen model is shown for reference (it is what the search text extractor will use).',
  );
  let missed = false;
  for (const row of table) {
    const tok = Number(row['tokenizer MB/s']);
    const xterm = Number(row['xterm MB/s']);
    const screen = Number(row['screen MB/s']);
    const ratio = tok / xterm;
    if (!(ratio >= 1.5)) missed = true;
    section.rows.push({
      what: row.input ?? '?',
      evio: `tokenizer ${tok.toFixed(1)} MB/s (screen ${screen.toFixed(1)} MB/s)`,
      peerName: '@xterm/headless',
      peer: `${xterm.toFixed(1)} MB/s`,
      ratio: `${ratio.toFixed(2)}× xterm (screen ${(screen / xterm).toFixed(2)}×)`,
      goal: '≥ 1.5× @xterm/headless',
      status: ratio >= 1.5 ? 'met' : 'MISSED',
      rss: '–',
    });
  }
  if (ctx.profile && missed) {
    section.notes.push(...(await profileLines([script, '--mb', '2', '--time', '1500'], { label: 'node bench/replay.mjs (all three engines, all inputs)', top: 12 })));
  }
  return section;
}
