// Kill-test child: appends batches forever and prints, after each append() resolves, the recnums
// it acknowledged for records tagged "keep" ("ack R1 R2 ..."). Batches mix "keep" and "victim"
// records; a concurrent deleter removes the victims.
// usage: node appender.mjs BUILD_DIR FILE SEED [MAX_BATCH]
const [buildDir, file, seedArg, maxBatchArg] = process.argv.slice(2);
const { FlatFileStore } = await import(`${buildDir}/eventlog/flatfile/index.js`);
let seed = Number(seedArg) >>> 0 || 1;
const rnd = () => {
  seed ^= seed << 13; seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5; seed >>>= 0;
  return seed / 0x100000000;
};
const maxBatch = Number(maxBatchArg ?? 40);
const store = new FlatFileStore({ path: file, lockTimeoutMs: 60_000 });
process.stdout.write(`ready ${process.pid}\n`);
for (let b = 0; ; b++) {
  const n = 1 + Math.floor(rnd() * maxBatch);
  const batch = [];
  const keep = [];
  for (let i = 0; i < n; i++) {
    const victim = rnd() < 0.3;
    if (!victim) keep.push(i);
    batch.push({ uniqueid: `${process.pid}-${b}-${i}`, etype: 'A', time: 1_700_000_000 + b, submituser: victim ? 'victim' : 'keep', runcommand: '/bin/true', runargv: ['true', 'x'.repeat(Math.floor(rnd() * 200))] });
  }
  const r = await store.append(batch);
  if (r.count !== n || r.last - r.first + 1 !== n) throw new Error(`unexpected append result ${JSON.stringify(r)}`);
  process.stdout.write(`ack ${keep.map((i) => r.first + i).join(' ')}\n`);
}
