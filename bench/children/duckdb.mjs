// Child process: the DuckDB peer. Runs one SQL statement with @duckdb/node-api in a fresh
// in-memory database and prints {rows, ms} (ms = the statement alone, start-up excluded; the
// harness times the whole process). Exit 3 when the package is not installed.
// The package is looked up in the prefix named by EVIO_BENCH_PEERS (`npm install --prefix DIR
// @duckdb/node-api`, for a checkout whose node_modules may not be written), then in the project.
//   node bench/children/duckdb.mjs 'SELECT count(*) AS n FROM read_json(...) WHERE ...'
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The package's entry file: from EVIO_BENCH_PEERS when it holds it, else the project's. */
function duckdbEntry() {
  const peers = process.env.EVIO_BENCH_PEERS;
  if (peers) {
    try {
      return pathToFileURL(createRequire(join(peers, 'package.json')).resolve('@duckdb/node-api')).href;
    } catch {
      // not in that prefix: the project's node_modules below
    }
  }
  return '@duckdb/node-api';
}

let api;
try {
  api = await import(duckdbEntry());
} catch {
  process.stderr.write('@duckdb/node-api is not installed (run bench/install-peers.sh, or npm install --prefix DIR @duckdb/node-api and set EVIO_BENCH_PEERS=DIR)\n');
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
