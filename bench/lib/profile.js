// Summarizes V8 .cpuprofile files (written by `node --cpu-prof`): the frames with the most
// self time, and the frames with the most total (inclusive) time, as percentages of the
// sampled time. Used to explain missed goals in BENCHMARKS.md.
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * @typedef {{ name: string, self: number, total: number }} FrameStat
 * @typedef {{ file: string, samplesMs: number, self: FrameStat[], total: FrameStat[] }} ProfileSummary
 */

/** @param {{ functionName: string, url: string, lineNumber: number }} cf @param {string} root */
function frameName(cf, root) {
  const fn = cf.functionName || '(anonymous)';
  if (!cf.url) return fn;
  let url = cf.url.replace(/^file:\/\//, '');
  if (root && url.startsWith(root)) url = relative(root, url);
  url = url.replace(/^.*node_modules\//, 'node_modules/');
  return `${fn} ${url}:${cf.lineNumber + 1}`;
}

/**
 * @param {string} file a .cpuprofile
 * @param {{ root?: string, top?: number }} [opts]
 * @returns {ProfileSummary}
 */
export function summarizeProfile(file, opts = {}) {
  const root = opts.root ?? process.cwd();
  const top = opts.top ?? 8;
  const prof = JSON.parse(readFileSync(file, 'utf8'));
  /** @type {Map<number, any>} */
  const nodes = new Map();
  for (const n of prof.nodes) nodes.set(n.id, n);
  /** @type {Map<number, number>} */
  const parent = new Map();
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  // Time per sample: the deltas (microseconds).
  /** @type {Map<number, number>} */
  const selfUs = new Map();
  let totalUs = 0;
  const samples = prof.samples ?? [];
  const deltas = prof.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    const d = Math.max(0, deltas[i + 1] ?? deltas[i] ?? 0);
    selfUs.set(samples[i], (selfUs.get(samples[i]) ?? 0) + d);
    totalUs += d;
  }
  /** @type {Map<string, number>} */
  const selfBy = new Map();
  /** @type {Map<string, number>} */
  const totalBy = new Map();
  for (const [id, us] of selfUs) {
    const n = nodes.get(id);
    const name = frameName(n.callFrame, root);
    selfBy.set(name, (selfBy.get(name) ?? 0) + us);
    // Inclusive: every distinct frame name on the stack once.
    const seen = new Set();
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
      const nm = frameName(nodes.get(cur).callFrame, root);
      if (seen.has(nm)) continue;
      seen.add(nm);
      totalBy.set(nm, (totalBy.get(nm) ?? 0) + us);
    }
  }
  const pct = (/** @type {number} */ us) => (totalUs ? (100 * us) / totalUs : 0);
  const skip = new Set(['(root)', '(program)', '(idle)', '(garbage collector)']);
  const self = [...selfBy].sort((a, b) => b[1] - a[1]).slice(0, top).map(([name, us]) => ({ name, self: pct(us), total: pct(totalBy.get(name) ?? 0) }));
  const total = [...totalBy].filter(([n]) => !skip.has(n.split(' ')[0] ?? n)).sort((a, b) => b[1] - a[1]).slice(0, top).map(([name, us]) => ({ name, self: pct(selfBy.get(name) ?? 0), total: pct(us) }));
  return { file, samplesMs: totalUs / 1000, self, total };
}

/** Every profile in a directory (one per thread), biggest first. @param {string} dir @param {{ root?: string, top?: number }} [opts] */
export function summarizeProfileDir(dir, opts = {}) {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => summarizeProfile(join(dir, f), opts))
    .sort((a, b) => b.samplesMs - a.samplesMs);
}

/** Markdown lines for a summary. @param {ProfileSummary} s @param {string} label */
export function profileMarkdown(s, label) {
  const lines = [`${label} (${(s.samplesMs / 1000).toFixed(2)} s sampled) — top self time:`, ''];
  lines.push('| self % | total % | frame |', '|---:|---:|---|');
  for (const f of s.self) lines.push(`| ${f.self.toFixed(1)} | ${f.total.toFixed(1)} | \`${f.name}\` |`);
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const s of summarizeProfileDir(process.argv[2] ?? '.', { top: Number(process.argv[3] ?? 15) })) {
    console.log(profileMarkdown(s, s.file));
    console.log('\ninclusive:');
    for (const f of s.total) console.log(`${f.total.toFixed(1).padStart(6)} ${f.self.toFixed(1).padStart(6)}  ${f.name}`);
    console.log();
  }
}

/**
 * Self time per source file of one or more .cpuprofile files (all threads summed): where a
 * process's CPU went by module — node's module loader, each dist/ file, native frames by name,
 * and V8's own buckets ((garbage collector), (program), (idle)). Milliseconds, biggest first.
 * @param {string} dir a folder of .cpuprofile files
 * @param {{ root?: string }} [opts]
 * @returns {{ totalMs: number, files: { name: string, ms: number }[] }}
 */
export function selfTimeByFile(dir, opts = {}) {
  const root = opts.root ?? process.cwd();
  /** @type {Map<string, number>} */
  const by = new Map();
  let totalUs = 0;
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.cpuprofile'))) {
    const prof = JSON.parse(readFileSync(join(dir, f), 'utf8'));
    /** @type {Map<number, any>} */
    const nodes = new Map();
    for (const n of prof.nodes) nodes.set(n.id, n);
    const samples = prof.samples ?? [];
    const deltas = prof.timeDeltas ?? [];
    for (let i = 0; i < samples.length; i++) {
      const us = Math.max(0, deltas[i + 1] ?? deltas[i] ?? 0);
      const cf = nodes.get(samples[i]).callFrame;
      by.set(fileBucket(cf, root), (by.get(fileBucket(cf, root)) ?? 0) + us);
      totalUs += us;
    }
  }
  const files = [...by].sort((a, b) => b[1] - a[1]).map(([name, us]) => ({ name, ms: us / 1000 }));
  return { totalMs: totalUs / 1000, files };
}

/** The bucket a frame's self time goes to. @param {{ functionName: string, url: string }} cf @param {string} root */
function fileBucket(cf, root) {
  if (!cf.url) return cf.functionName.startsWith('(') ? cf.functionName : `(native) ${cf.functionName || '(anonymous)'}`;
  if (cf.url.startsWith('node:internal/modules/')) return 'node:internal/modules/* (module loading)';
  if (cf.url.startsWith('node:')) return cf.url;
  let url = cf.url.replace(/^file:\/\//, '');
  if (root && url.startsWith(root)) url = relative(root, url);
  return url.replace(/^.*node_modules\//, 'node_modules/');
}
