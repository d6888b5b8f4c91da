// Child process of asciicast-v1.test.ts: runs the I/O-log worker tasks in-process (no pool, so
// the whole cost shows in this process) over one cast file, and prints the answers with the
// process's peak resident set size before and after.
//   node cast-memory-child.mjs BUILD_DIR ROOT WARMUP_FILE FILE OPS_JSON
// OPS_JSON: [{"chunk": [start, len]} | {"search": "keyword:regex"}, ...]
import { pathToFileURL } from 'node:url';

const [buildDir, root, warmup, file, opsJson] = process.argv.slice(2);
const tasks = await import(pathToFileURL(`${buildDir}/worker/iolog-tasks.js`).href);
const ops = JSON.parse(opsJson);

async function run(op, target) {
  if (op.chunk) return tasks.chunk({ roots: [root], file: target, start: op.chunk[0], len: op.chunk[1] });
  const [keyword, regex] = [op.search.slice(0, op.search.indexOf(':')), op.search.slice(op.search.indexOf(':') + 1)];
  const streams = keyword === 'output' ? ['stdout', 'stderr', 'ttyout'] : ['stdin', 'stdout', 'stderr', 'ttyin', 'ttyout'];
  return tasks.searchSessions({ sessions: [{ kind: 'asciicast', path: target }], streams, regex, detail: true });
}

// Warm-up on a small file: modules loaded and compiled before the baseline is taken.
for (const op of ops) await run(op, warmup);
globalThis.gc?.();
const baselineKB = process.resourceUsage().maxRSS;
const started = performance.now();
const answers = [];
for (const op of ops) answers.push(await run(op, file));
const ms = Math.round(performance.now() - started);
const peakKB = process.resourceUsage().maxRSS;
process.stdout.write(`${JSON.stringify({ baselineKB, peakKB, ms, answers })}\n`);
