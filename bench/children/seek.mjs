// Workload 10's measuring child: in one process (so the seek and its baseline share the page
// cache and the JIT), the seek index of one long session is built, one seek warms up, then 10
// seeded random times are answered twice each: from the nearest keyframe (seekScreen, what
// GET /REST/iolog/screen runs in a worker) and by replaying from the session's start
// (sessionScreen, what the screen call did before keyframes). Both must give the same screen.
// Prints one JSON line. Usage: node seek.mjs ROOT FILE SEEKFILE SEEKS SEED
import { rmSync } from 'node:fs';
import { prng } from '../../dist/prng.js';
import { sessionScreen } from '../../dist/iolog/screen.js';
import { buildSeekIndex, seekScreen } from '../../dist/iolog/seek.js';

const [root, file, seekFile, seeksArg, seedArg] = process.argv.slice(2);
const seeks = Number(seeksArg ?? 10);
const rnd = prng(Number(seedArg ?? 1));
for (const f of [seekFile, `${seekFile}-wal`, `${seekFile}-shm`]) rmSync(f, { force: true });
const rss = () => process.memoryUsage().rss;
let peakRss = rss();
const sample = setInterval(() => (peakRss = Math.max(peakRss, rss())), 20);

let t = performance.now();
const build = await buildSeekIndex([root], seekFile, file);
const buildMs = performance.now() - t;
const rssAfterBuild = rss();
const trim = (lines) => {
  const out = [...lines];
  while (out.length && out[out.length - 1].trim() === '') out.pop();
  return out;
};
// Warm-up: opens the seek index and compiles the code paths (a running service has done this).
t = performance.now();
await seekScreen([root], seekFile, { file, atMs: build.duration * 500 });
const warmupMs = performance.now() - t;
const results = [];
for (let i = 0; i < seeks; i++) {
  // Millisecond times, as a player asks for them.
  const atMs = Math.floor(rnd() * build.duration * 1000);
  t = performance.now();
  const s = await seekScreen([root], seekFile, { file, atMs });
  const seekMs = performance.now() - t;
  const seekRss = rss();
  t = performance.now();
  const straight = await sessionScreen([root], { file, atMs });
  const straightMs = performance.now() - t;
  const same = JSON.stringify(trim(s.lines)) === JSON.stringify(straight.lines);
  results.push({ at: atMs / 1000, offset: s.offset, keyframeOffset: s.keyframe?.offset ?? 0, seekMs, straightMs, same, seekRss });
}
clearInterval(sample);
peakRss = Math.max(peakRss, rss());
process.stdout.write(`${JSON.stringify({ build, buildMs, rssAfterBuild, warmupMs, results, peakRss, maxRssKB: process.resourceUsage().maxRSS })}\n`);
