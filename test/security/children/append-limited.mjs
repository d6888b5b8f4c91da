// Child of append-enospc.test.ts, run under a file-size limit (ulimit -f): writes past the limit
// fail with EFBIG, a write error as real as a full disk. Appends one batch and prints what the
// store answered as one JSON line: {"ok": result} or {"code": N, "message": "..."}.
// usage: node append-limited.mjs BUILD_DIR FILE COUNT PAD_BYTES FIRST_UID
const [buildDir, file, countArg, padArg, firstArg] = process.argv.slice(2);
const { FlatFileStore } = await import(`${buildDir}/eventlog/flatfile/index.js`);
const store = new FlatFileStore({ path: file });
const batch = [];
for (let i = 0; i < Number(countArg); i++) {
  batch.push({ uniqueid: `u${Number(firstArg) + i}`, etype: 'A', time: 1_700_000_000 + i, submituser: 'alice', runcommand: '/bin/true', runargv: ['true', 'x'.repeat(Number(padArg))] });
}
try {
  process.stdout.write(JSON.stringify({ ok: await store.append(batch) }) + '\n');
} catch (err) {
  process.stdout.write(JSON.stringify({ code: err.code ?? null, message: String(err.message) }) + '\n');
}
