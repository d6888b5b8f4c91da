#!/usr/bin/env node
// Flat-file prefilter benchmark: a selective literal filter (~1 % of the events) against
// `rg -c LITERAL FILE` on the same file. Run after building (npm run build, or any tsc outDir).
// usage: node bench-rg.mjs BUILD_DIR FILE [USER=user42]
import { spawnSync } from 'node:child_process';
const [buildDir, file, user = 'user42'] = process.argv.slice(2);
const { FlatFileStore } = await import(`${buildDir}/eventlog/flatfile/index.js`);
const { compileWildcard } = await import(`${buildDir}/common/wildcard.js`);

const base = { etypes: null, from: null, to: null, exitFrom: null, exitTo: null, recnumMin: null, recnumMax: null, skip: 0, byteOffset: 0, limit: 1e9, verbose: false, order: 'recnum', direction: 'asc' };
const store = new FlatFileStore({ path: file, ...(process.env.READ_SIZE ? { readSize: Number(process.env.READ_SIZE) } : {}) });

function best(n, f) {
  let t = Infinity;
  let out;
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    out = f();
    t = Math.min(t, Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return { ms: t, out };
}
async function bestAsync(n, f) {
  let t = Infinity;
  let out;
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    out = await f();
    t = Math.min(t, Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return { ms: t, out };
}
const count = async (q) => {
  let n = 0;
  for await (const _ of store.query(q)) n++;
  return n;
};

// Interleaved rounds (rg, then each evio query), best of each: fair on a busy machine.
const ROUNDS = Number(process.env.ROUNDS ?? 7);
const rgRun = (lit) => () => spawnSync('rg', ['-c', lit, file], { encoding: 'utf8' }).stdout.trim();
// CPU time (user + system) is less disturbed by other load than wall time: rg's from
// /usr/bin/time, ours from process.cpuUsage() (all threads: the reads run in libuv's pool).
const rgCpu = (lit) => {
  const r = spawnSync('/usr/bin/time', ['-f', '%U %S', 'rg', '-c', lit, file], { encoding: 'utf8' });
  const [u, sy] = r.stderr.trim().split('\n').pop().split(' ').map(Number);
  return (u + sy) * 1000;
};
const cpuOf = async (f) => {
  const c0 = process.cpuUsage();
  await f();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
};
const cpu = { rg: Infinity, dump1: Infinity, dump0: Infinity };
const queries = [true, false].map((dump) => ({ dump, q: { ...base, dump, patterns: { submituser: [compileWildcard(user)] } } }));
const bestOf = { rgQuoted: Infinity, rgBare: Infinity, dump1: Infinity, dump0: Infinity };
let lines = '';
const rows = {};
for (let r = 0; r < ROUNDS; r++) {
  const a = best(1, rgRun(`"${user}"`));
  bestOf.rgQuoted = Math.min(bestOf.rgQuoted, a.ms);
  lines = a.out;
  bestOf.rgBare = Math.min(bestOf.rgBare, best(1, rgRun(user)).ms);
  for (const { dump, q } of queries) {
    const x = await bestAsync(1, () => count(q));
    rows[dump] = x.out;
    const k = dump ? 'dump1' : 'dump0';
    bestOf[k] = Math.min(bestOf[k], x.ms);
    cpu[k] = Math.min(cpu[k], await cpuOf(() => count(q)));
  }
  cpu.rg = Math.min(cpu.rg, rgCpu(`"${user}"`), rgCpu(user));
}
console.log(`rg -c '"${user}"': ${lines} lines, ${bestOf.rgQuoted.toFixed(1)} ms; rg -c '${user}': ${bestOf.rgBare.toFixed(1)} ms (process wall time, best of ${ROUNDS} interleaved rounds)`);
const rg = Math.min(bestOf.rgQuoted, bestOf.rgBare);
console.log(`evio submituser=${user} dump=1: ${rows[true]} rows, ${bestOf.dump1.toFixed(1)} ms in process = ${(bestOf.dump1 / rg).toFixed(2)}x rg`);
console.log(`evio submituser=${user} dump=0: ${rows[false]} rows, ${bestOf.dump0.toFixed(1)} ms in process = ${(bestOf.dump0 / rg).toFixed(2)}x rg`);
console.log(`CPU time (best): rg ${cpu.rg.toFixed(0)} ms, evio dump=1 ${cpu.dump1.toFixed(0)} ms (${(cpu.dump1 / cpu.rg).toFixed(2)}x), dump=0 ${cpu.dump0.toFixed(0)} ms (${(cpu.dump0 / cpu.rg).toFixed(2)}x)`);
// The same query as a whole process (node start-up included), like the rg numbers.
const script = `const { FlatFileStore } = await import(${JSON.stringify(`${buildDir}/eventlog/flatfile/index.js`)});
const { compileWildcard } = await import(${JSON.stringify(`${buildDir}/common/wildcard.js`)});
let n = 0;
for await (const _ of new FlatFileStore({ path: ${JSON.stringify(file)} }).query({ ...${JSON.stringify(base)}, dump: true, patterns: { submituser: [compileWildcard(${JSON.stringify(user)})] } })) n++;
console.log(n);`;
const proc = best(5, () => spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }).stdout.trim());
console.log(`evio submituser=${user} dump=1 as a process: ${proc.out} rows, ${proc.ms.toFixed(1)} ms (best of 5) = ${(proc.ms / rg).toFixed(2)}x rg`);
const full = await bestAsync(1, () => count({ ...base, dump: true, patterns: {} }));
console.log(`evio full scan dump=1 (every line parsed): ${full.out} rows, ${full.ms.toFixed(0)} ms`);
const full0 = await bestAsync(1, () => count({ ...base, dump: false, patterns: {} }));
console.log(`evio full scan dump=0: ${full0.out} rows, ${full0.ms.toFixed(0)} ms`);
