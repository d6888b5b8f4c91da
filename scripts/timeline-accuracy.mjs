#!/usr/bin/env node
// How close the command timeline is to what the shell ran, on the recorded-truth corpus
// (fixtures/iolog/timeline-corpus: real sudo sessions, and each shell's own record of every
// command it executed). Per session: precision (timeline entries that are a command the shell
// ran, of all entries shown as commands) and recall (commands the shell ran that the timeline
// shows, as run); a `ttyin:` search for each command; and that no secret typed at a no-echo
// prompt is shown or found. Runs on the built code (npm run build first).
//
//   node scripts/timeline-accuracy.mjs [--json] [CORPUS]
//
// Truth files, by the shell that wrote them: bash's HISTFILE (one command a line; with
// HISTTIMEFORMAT, `#SECONDS` lines start each entry and a multi-line command keeps its lines,
// lithist), zsh's EXTENDED_HISTORY (`: SECONDS:0;command`, a newline inside a command written
// as `\` at the end of the line), or plain lines (dash keeps no history: its truth is the bytes
// typed, which dash runs as typed). truth/secrets.json lists each session's secrets.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

/** The commands of a truth file, in order; a multi-line command is one entry with `\n`. */
export function parseTruth(text) {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  if (lines.some((l) => /^: \d+:\d+;/.test(l))) {
    const out = [];
    let cur = null;
    for (const l of lines) {
      const m = /^: \d+:\d+;(.*)$/.exec(l);
      if (m && (cur === null || !cur.endsWith('\\'))) {
        if (cur !== null) out.push(cur);
        cur = m[1];
      } else if (cur !== null && cur.endsWith('\\')) cur = `${cur.slice(0, -1)}\n${l}`;
      else if (cur !== null) cur = `${cur}\n${l}`;
    }
    if (cur !== null) out.push(cur);
    return out.map(clean);
  }
  if (lines.some((l) => /^#\d+$/.test(l))) {
    const out = [];
    let cur = null;
    for (const l of lines) {
      if (/^#\d+$/.test(l)) {
        if (cur !== null) out.push(cur);
        cur = null;
      } else cur = cur === null ? l : `${cur}\n${l}`;
    }
    if (cur !== null) out.push(cur);
    return out.map(clean);
  }
  return lines.filter((l) => l !== '').map(clean);
}

/** Trailing blanks (bash keeps the space a completion added) and blank last lines do not count. */
function clean(cmd) {
  return cmd
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')
    .replace(/\n+$/, '');
}

/**
 * The command a group of consecutive timeline lines makes: joined by newlines, a line ending in
 * a backslash continued without it (the shell removes `\` + newline before it runs the line).
 */
function joinGroup(lines) {
  return clean(lines.join('\n').replace(/\\\n/g, ''));
}

function sameCommand(truth, predicted) {
  return truth === predicted || truth.replace(/\\\n/g, '') === predicted;
}

/**
 * Aligns the timeline's commands with the truth (in order; a truth entry of k lines may be k
 * consecutive timeline lines): the most truth entries matched. Returns the matched pairs and
 * how many timeline entries the matches used.
 */
export function score(truth, predicted) {
  const T = truth.length;
  const P = predicted.length;
  // best[i][j]: most matches using truth[i..] and predicted[j..]
  const best = Array.from({ length: T + 1 }, () => new Int32Array(P + 1));
  const step = Array.from({ length: T + 1 }, () => new Int32Array(P + 1));
  for (let i = T - 1; i >= 0; i--) {
    const span = truth[i].split('\n').length + 1;
    for (let j = P - 1; j >= 0; j--) {
      let b = Math.max(best[i + 1][j], best[i][j + 1]);
      let s = best[i + 1][j] >= best[i][j + 1] ? -1 : -2;
      for (let k = 1; k <= span && j + k <= P; k++) {
        if (sameCommand(truth[i], joinGroup(predicted.slice(j, j + k))) && best[i + 1][j + k] + 1 > b) {
          b = best[i + 1][j + k] + 1;
          s = k;
        }
      }
      best[i][j] = b;
      step[i][j] = s;
    }
  }
  const matched = [];
  let used = 0;
  for (let i = 0, j = 0; i < T && j < P; ) {
    const s = step[i][j];
    if (s > 0) {
      matched.push({ truth: i, from: j, lines: s });
      used += s;
      i++;
      j += s;
    } else if (s === -1) i++;
    else j++;
  }
  const missed = truth.filter((_, i) => !matched.some((m) => m.truth === i));
  const usedAt = new Set(matched.flatMap((m) => Array.from({ length: m.lines }, (_, k) => m.from + k)));
  const extra = predicted.filter((_, j) => !usedAt.has(j));
  return {
    truth: T,
    shown: P,
    matched: matched.length,
    precision: P === 0 ? 1 : used / P,
    recall: T === 0 ? 1 : matched.length / T,
    missed,
    extra,
  };
}

/**
 * What the timeline says the shell ran: each entry not hidden and not typed to another program
 * (`program`), as the terminal showed it.
 */
export function timelineCommands(log) {
  return log.filter((e) => !e.hidden && !e.program).map((e) => clean(e.shown ?? e.line));
}

async function main() {
  const args = process.argv.slice(2);
  const json = args.includes('--json');
  const corpus = args.find((a) => !a.startsWith('--')) ?? new URL('../fixtures/iolog/timeline-corpus', import.meta.url).pathname;
  const { Engine } = await import('../dist/engine.js');
  const { loadSettings } = await import('../dist/settings.js');
  const { iologCommands, iologSearch, matchingPaths, SearchAnswer } = await import('../dist/app/iolog.js');
  const { mkdtempSync, rmSync, cpSync, chmodSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  // A copy: git keeps no write bits, so the completion mark (timing 0400) is set on the copy.
  const home = mkdtempSync(join(tmpdir(), 'evio-accuracy-'));
  const root = join(home, 'corpus');
  cpSync(corpus, root, { recursive: true });
  const sessions = readdirSync(join(root, 'truth')).filter((n) => /^[0-9A-Z]{2}$/.test(n)).sort();
  for (const s of sessions) chmodSync(join(root, '00/00', s, 'timing'), 0o400);
  const secrets = existsSync(join(root, 'truth', 'secrets.json')) ? JSON.parse(readFileSync(join(root, 'truth', 'secrets.json'), 'utf8')) : {};
  const engine = new Engine(loadSettings({ env: {}, cwd: home, overrides: { home, iologdirs: [root], iologcache: join(home, 'index.sqlite') } }), { oneShot: true });
  const search = async (file, query) => {
    const run = await iologSearch(engine, { file, query, detail: '1' });
    const answer = new SearchAnswer();
    for await (const _ of matchingPaths(run, answer)) void _;
    return answer.detail;
  };
  const escape = (s) => s.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
  const rows = [];
  try {
    for (const s of sessions) {
      const file = `00/00/${s}`;
      const truth = parseTruth(readFileSync(join(root, 'truth', s), 'utf8'));
      const c = await iologCommands(engine, { file });
      const r = score(truth, timelineCommands(c.log));
      // A ttyin: search for each single-line command the shell ran finds it (the typed lines).
      let found = 0;
      const single = truth.filter((t) => !t.includes('\n'));
      for (const t of single) if ((await search(file, `ttyin:${escape(t)}`)).length) found++;
      let leaked = 0;
      const text = JSON.stringify(c);
      for (const secret of secrets[s] ?? []) {
        if (text.includes(secret) || (await search(file, `any:${escape(secret)}`)).length) leaked++;
      }
      rows.push({ session: s, shell: shellOf(readFileSync(join(root, '00/00', s, 'log.json'), 'utf8')), ...r, searched: single.length, found, secrets: (secrets[s] ?? []).length, leaked });
    }
  } finally {
    await engine.close();
    rmSync(home, { recursive: true, force: true });
  }
  const total = rows.reduce((a, r) => ({ truth: a.truth + r.truth, shown: a.shown + r.shown, matched: a.matched + r.matched, used: a.used + Math.round(r.precision * r.shown), searched: a.searched + r.searched, found: a.found + r.found, secrets: a.secrets + r.secrets, leaked: a.leaked + r.leaked }), { truth: 0, shown: 0, matched: 0, used: 0, searched: 0, found: 0, secrets: 0, leaked: 0 });
  const summary = { sessions: rows.length, ...total, precision: total.shown ? total.used / total.shown : 1, recall: total.truth ? total.matched / total.truth : 1 };
  if (json) {
    process.stdout.write(`${JSON.stringify({ rows, summary }, null, 1)}\n`);
    return;
  }
  process.stdout.write(accuracyTable(rows, summary));
  for (const r of rows) {
    for (const m of r.missed) process.stdout.write(`${r.session} missed: ${JSON.stringify(m)}\n`);
    for (const e of r.extra) process.stdout.write(`${r.session} extra:  ${JSON.stringify(e)}\n`);
  }
}

function shellOf(logJson) {
  try {
    const v = JSON.parse(logJson);
    const argv = Array.isArray(v.runargv) ? v.runargv.map(String) : [];
    let i = 0;
    if (argv[0]?.split('/').pop() === 'env') for (i = 1; i < argv.length && (argv[i].includes('=') || argv[i].startsWith('-')); i++);
    return (argv[i] ?? v.command ?? '?').split('/').pop();
  } catch {
    return '?';
  }
}

const pct = (x) => `${(100 * x).toFixed(1)} %`;

/** The Markdown table docs/iolog.md keeps (test/iolog/timeline-accuracy.test.ts compares them). */
export function accuracyTable(rows, summary) {
  let out = '| session | shell | commands run | timeline entries | matched | precision | recall | ttyin search found | secrets shown |\n|---|---|---:|---:|---:|---:|---:|---:|---:|\n';
  for (const r of rows) out += `| ${r.session} | ${r.shell} | ${r.truth} | ${r.shown} | ${r.matched} | ${pct(r.precision)} | ${pct(r.recall)} | ${r.found} of ${r.searched} | ${r.leaked} of ${r.secrets} |\n`;
  out += `| all | | ${summary.truth} | ${summary.shown} | ${summary.matched} | ${pct(summary.precision)} | ${pct(summary.recall)} | ${summary.found} of ${summary.searched} | ${summary.leaked} of ${summary.secrets} |\n`;
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((err) => {
    process.stderr.write(`${err?.stack ?? err}\n`);
    process.exitCode = 1;
  });
}
