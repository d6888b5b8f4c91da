// Kill-test child: deletes the records of one submituser (dump=0: their finishes too), once or
// in a loop, printing "deleted N" after each delete.
// usage: node deleter.mjs BUILD_DIR FILE USER once|loop
const [buildDir, file, user, mode] = process.argv.slice(2);
const { FlatFileStore } = await import(`${buildDir}/eventlog/flatfile/index.js`);
const { compileWildcard } = await import(`${buildDir}/common/wildcard.js`);
const store = new FlatFileStore({ path: file, lockTimeoutMs: 60_000 });
const filter = { etypes: null, from: null, to: null, exitFrom: null, exitTo: null, patterns: { submituser: [compileWildcard(user)] }, recnumMin: null, recnumMax: null, dump: false };
process.stdout.write(`ready ${process.pid}\n`);
do {
  const r = await store.delete(filter);
  process.stdout.write(`deleted ${r.deleted}\n`);
} while (mode === 'loop');
