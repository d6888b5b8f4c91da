// The database workloads (3: SQLite, 4: PostgreSQL): the SELECT the store runs for a query
// (asked from the shipped code: dist/eventlog/sql/select.js buildSelect), with its bound
// parameters written in as literals so the DBMS's own shell can run exactly that statement.
import { runChild } from './evio.js';

/** An SQL literal. @param {unknown} v */
export function sqlLiteral(v) {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
  if (Array.isArray(v)) return `ARRAY[${v.map(sqlLiteral).join(', ')}]`;
  return `'${String(v).replace(/'/g, "''")}'`;
}

/**
 * The store's statement for these REST parameters, parameters inlined.
 * @param {'sqlite'|'pg'} flavor
 * @param {Record<string,string>} params
 * @returns {Promise<{ sql: string, inlined: string, params: unknown[], residual: string[], memoryPaging: unknown }>}
 */
export async function storeStatement(flavor, params) {
  const s = await runChild('bench-calls.mjs', ['sql', '-', flavor, JSON.stringify(params)]);
  let inlined;
  if (flavor === 'pg') {
    // $n placeholders: highest first, so $1 never eats the start of $10.
    inlined = s.sql;
    for (let i = s.params.length; i >= 1; i--) inlined = inlined.split(`$${i}`).join(sqlLiteral(s.params[i - 1]));
  } else {
    let i = 0;
    inlined = s.sql.replace(/\?/g, () => sqlLiteral(s.params[i++]));
    if (i !== s.params.length) throw new Error(`statement has ${i} placeholders for ${s.params.length} parameters`);
  }
  return { ...s, inlined };
}
