// Child process of seek-memory.test.ts and heavy-lane.test.ts: runs the I/O-log worker tasks
// in-process (no pool, so the whole cost shows in this process) over one session, and prints
// the answers with the process's peak resident set size before and after.
//   node heavy-memory-child.mjs BUILD_DIR ROOT SEEK_FILE WARMUP_FILE FILE OPS_JSON
// OPS_JSON: [{"seekIndex": true} | {"chunk": [start, len], "build": bool} | {"screen": {...}}, ...]
import { pathToFileURL } from 'node:url';

const [buildDir, root, seekFile, warmup, file, opsJson] = process.argv.slice(2);
const tasks = await import(pathToFileURL(`${buildDir}/worker/iolog-tasks.js`).href);
const ops = JSON.parse(opsJson);

async function run(op, target) {
  const base = { roots: [root], seekFile, file: target };
  if (op.seekIndex) return tasks.seekIndex(base);
  if (op.chunk) return tasks.seekChunk({ ...base, start: op.chunk[0], len: op.chunk[1], ...(op.build === undefined ? {} : { build: op.build }) });
  return tasks.seekScreen({ ...base, atMs: Infinity, ...op.screen });
}

// Warm-up on a small session: modules loaded and compiled before the baseline is taken.
for (const op of ops) await run(op, warmup);
globalThis.gc?.();
const baselineKB = process.resourceUsage().maxRSS;
const answers = [];
for (const op of ops) {
  const a = await run(op, file);
  // Big answers are summarised: the test looks at their shape, not at every cell.
  answers.push(a.ok ? { ok: true, value: { ...a.value, cells: a.value.cells ? a.value.cells.length : undefined, lines: undefined, repaint: undefined, items: a.value.items ? a.value.items.length : undefined } } : a);
}
const peakKB = process.resourceUsage().maxRSS;
process.stdout.write(`${JSON.stringify({ baselineKB, peakKB, answers })}\n`);
