// Running evio's side of a comparison: the CLI as its own process (what a user runs, timed
// whole), the engine in a child process without start-up (bench/children/*.mjs), and a CPU
// profile of a command when a goal is missed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCH_DIR, EVIO_BIN, NODE, runProcess } from './common.js';
import { summarizeProfileDir } from './profile.js';

/** argv of the evio CLI. @param {string[]} args */
export function evioArgv(args) {
  return [NODE, EVIO_BIN, ...args];
}

/**
 * Runs a child script of bench/children that prints one JSON line.
 * @param {string} script
 * @param {string[]} args
 * @param {{ env?: NodeJS.ProcessEnv, nodeArgs?: string[] }} [opts]
 */
export async function runChild(script, args, opts = {}) {
  const r = await runProcess([NODE, ...(opts.nodeArgs ?? []), join(BENCH_DIR, 'children', script), ...args], { stdout: 'pipe', ...(opts.env ? { env: opts.env } : {}) });
  if (r.code !== 0) throw new Error(`${script} ${args.join(' ')} exited ${r.code}: ${r.stderr.slice(0, 3000)}`);
  const line = r.stdout.trim().split('\n').pop() ?? '';
  return { ...JSON.parse(line), processMs: r.ms, processRssKB: r.rssKB };
}

/**
 * Profiles one run of a command with `node --cpu-prof` and returns Markdown lines: the top
 * frames by self time of the busiest thread(s).
 * @param {string[]} nodeArgv  the command after `node` (script and its arguments)
 * @param {{ label: string, top?: number, threads?: number, env?: NodeJS.ProcessEnv }} o
 */
export async function profileLines(nodeArgv, o) {
  const dir = mkdtempSync(join(tmpdir(), 'evio-prof-'));
  try {
    const r = await runProcess([NODE, '--cpu-prof', `--cpu-prof-dir=${dir}`, ...nodeArgv], { stdout: 'null', ...(o.env ? { env: o.env } : {}) });
    if (r.code !== 0) return [`(profiling ${o.label} failed: exit ${r.code}: ${r.stderr.slice(0, 300).replace(/\n/g, ' ')})`];
    const sums = summarizeProfileDir(dir, { top: o.top ?? 8 });
    const lines = [];
    for (const [i, s] of sums.slice(0, o.threads ?? 1).entries()) {
      const busy = s.self.filter((f) => !f.name.startsWith('(idle)')).reduce((a, f) => a + f.self, 0);
      const idle = s.self.find((f) => f.name.startsWith('(idle)'))?.self ?? 0;
      lines.push(`<details><summary>CPU profile: ${o.label}${sums.length > 1 ? ` — thread ${i + 1} of ${sums.length}` : ''} (${(s.samplesMs / 1000).toFixed(2)} s sampled, ${idle.toFixed(0)} % idle)</summary>`, '');
      lines.push('| self % | incl. % | frame |', '|---:|---:|---|');
      for (const f of s.self) lines.push(`| ${f.self.toFixed(1)} | ${f.total.toFixed(1)} | \`${f.name.replace(/\|/g, '\\|')}\` |`);
      lines.push('', 'Largest inclusive frames:', '');
      for (const f of s.total.slice(0, 6)) lines.push(`- ${f.total.toFixed(1)} % \`${f.name.replace(/\|/g, '\\|')}\``);
      lines.push('', '</details>');
      void busy;
    }
    return [lines.join('\n')];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
