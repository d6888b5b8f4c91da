// The results model and its Markdown rendering (BENCHMARKS.md, and stdout for --smoke).

/**
 * One measured comparison.
 * @typedef {object} Row
 * @property {string} what       what was measured
 * @property {string} evio       evio's figure
 * @property {string} [peerName] the peer
 * @property {string} [peer]     the peer's figure, same run, same data
 * @property {string} [ratio]    evio against the peer
 * @property {string} [goal]     the goal, '' when none
 * @property {'met'|'MISSED'|'no goal'|'not available'} status
 * @property {string} [rss]      evio's peak RSS
 * @property {string} [note]
 */

/**
 * One workload's section.
 * @typedef {object} Section
 * @property {number} id
 * @property {string} title
 * @property {string[]} setup    bullet lines: data, commands, how it was timed
 * @property {Row[]} rows
 * @property {string[]} notes    explanations (misses, profiles)
 * @property {string} [unavailable] set when the whole workload could not run
 * @property {string} [measured] when, how long, under what load and by which command
 */

/** @param {string} s */
function cell(s) {
  return String(s ?? '').replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** @param {Row['status']} s */
function statusCell(s) {
  if (s === 'met') return '✅ met';
  if (s === 'MISSED') return '❌ **MISSED**';
  return s;
}

/** @param {Section} s */
export function renderSection(s) {
  const out = [`## ${s.id}. ${s.title}`, ''];
  if (s.measured) out.push(`*Measured ${s.measured}.*`, '');
  if (s.unavailable) {
    out.push(`**not available:** ${s.unavailable}`, '');
  }
  for (const l of s.setup) out.push(`- ${l}`);
  if (s.setup.length) out.push('');
  if (s.rows.length) {
    out.push('| measurement | evio | peer | peer figure | evio vs peer | goal | status | evio peak RSS |');
    out.push('|---|---:|---|---:|---|---|---|---:|');
    for (const r of s.rows) {
      out.push(`| ${cell(r.what)} | ${cell(r.evio)} | ${cell(r.peerName ?? '–')} | ${cell(r.peer ?? '–')} | ${cell(r.ratio ?? '–')} | ${cell(r.goal ?? '–')} | ${statusCell(r.status)} | ${cell(r.rss ?? '–')} |`);
    }
    out.push('');
    const noted = s.rows.filter((r) => r.note);
    for (const r of noted) out.push(`- *${r.what}*: ${r.note}`);
    if (noted.length) out.push('');
  }
  for (const n of s.notes) out.push(n, '');
  return out.join('\n');
}

/**
 * @param {{ machine: Record<string,string|number>, sections: Section[], smoke: boolean, started: string, elapsed: string, load: string[], command: string, partial?: boolean }} r
 */
export function renderReport(r) {
  const m = r.machine;
  const summary = [];
  for (const s of r.sections) {
    if (s.unavailable) {
      summary.push(`| ${s.id}. ${cell(s.title)} | not available: ${cell(s.unavailable)} |`);
      continue;
    }
    const withGoal = s.rows.filter((x) => x.status === 'met' || x.status === 'MISSED');
    const missed = withGoal.filter((x) => x.status === 'MISSED');
    const na = s.rows.filter((x) => x.status === 'not available');
    let text = withGoal.length === 0 ? 'measured (no goal)' : missed.length === 0 ? `all ${withGoal.length} goal(s) met` : `**MISSED** ${missed.length} of ${withGoal.length}: ${missed.map((x) => cell(x.what)).join('; ')}`;
    if (na.length) text += `; not available: ${na.map((x) => cell(x.what)).join('; ')}`;
    summary.push(`| ${s.id}. ${cell(s.title)} | ${text} |`);
  }
  return [
    '# Benchmarks',
    '',
    r.partial
      ? `Written by \`${r.command}\` on ${m.date} (took ${r.elapsed}) from the results of several runs of \`bench/run.js\` on this machine: each section says when and by which command it was measured. Within a section every figure comes from that one run, evio and its peer on the same data, one after the other; nothing is edited by hand.`
      : `Written by \`${r.command}\` on ${m.date} (took ${r.elapsed}). Every figure below was measured in that run, evio and its peer on the same data, one after the other; nothing is edited by hand.`,
    '',
    'Re-run with `npm run bench` (all workloads; installs the peers with bench/install-peers.sh and generates the data under bench/data/ first) or `node bench/run.js --only 1,2` (the other sections are then taken from their last run); `npm run bench:smoke` is the quick CI variant (tiny data, one run each, prints the tables, writes nothing). How each figure is taken: bench/README.md.',
    '',
    '| machine | |',
    '|---|---|',
    `| CPU | ${m.cpu} × ${m.cores} cores available |`,
    `| memory | ${m.memGiB} GiB |`,
    `| OS | ${m.os} |`,
    `| Node | ${m.node} |`,
    `| load average (1 min) during the run | ${r.load.join(', ')} — other work (other engineers' builds and tests) shared the 2 cores, so expect noise; every comparison times evio and its peer back to back |`,
    '',
    'Whole-process figures are the median of several runs, with the min–max range in brackets; in-process figures come from tinybench or repeated timing inside one process. Peak RSS is GNU time\'s "Maximum resident set size" of the evio process (a child process of the harness).',
    '',
    '## Summary',
    '',
    '| workload | goals |',
    '|---|---|',
    ...summary,
    '',
    ...r.sections.map(renderSection),
  ].join('\n');
}
