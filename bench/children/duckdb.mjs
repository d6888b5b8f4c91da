// Child process: the DuckDB peer. Runs one SQL statement with @duckdb/node-api in a fresh
// in-memory database and prints {rows, ms} (ms = the statement alone, start-up excluded; the
// harness times the whole process). Exit 3 when the package is not installed.
//   node bench/children/duckdb.mjs 'SELECT count(*) AS n FROM read_json(...) WHERE ...'
let api;
try {
  api = await import('@duckdb/node-api');
} catch {
  process.stderr.write('@duckdb/node-api is not installed (run bench/install-peers.sh)\n');
  process.exit(3);
}
const sql = process.argv[2];
if (!sql) throw new Error('usage: duckdb.mjs SQL');
const instance = await api.DuckDBInstance.create(':memory:');
const con = await instance.connect();
const t0 = performance.now();
const reader = await con.runAndReadAll(sql);
const ms = performance.now() - t0;
const rows = reader.getRowsJson();
process.stdout.write(`${JSON.stringify({ rows, ms })}\n`);
