// Which DBMS is behind a data source (the odbc package exposes no SQLGetInfo(SQL_DBMS_NAME)):
// probe queries that only one family answers, cheapest and most likely first. A failed probe
// changes nothing (autocommit, read-only functions).
import type { SqlFlavor } from '../sql/profile.js';
import type { OdbcConnection, OdbcResult } from './odbc-module.js';

export interface DetectedDbms {
  flavor: SqlFlavor;
  /** What the DBMS said about itself (for messages and docs). */
  version: string;
}

async function probe(conn: OdbcConnection, sql: string): Promise<string | null> {
  try {
    const rows = (await conn.query(sql, [])) as OdbcResult;
    const first = rows[0];
    const v = first ? Object.values(first)[0] : undefined;
    return v === undefined || v === null ? null : String(v);
  } catch {
    return null;
  }
}

export async function detectDbms(conn: OdbcConnection): Promise<DetectedDbms> {
  const version = await probe(conn, 'SELECT version() AS v');
  if (version !== null) {
    if (/PostgreSQL/i.test(version)) return { flavor: 'pg', version };
    if (/MariaDB|^\d+\.\d+\.\d+/i.test(version)) return { flavor: 'mysql', version };
  }
  const sqlite = await probe(conn, 'SELECT sqlite_version() AS v');
  if (sqlite !== null) return { flavor: 'sqlite', version: `SQLite ${sqlite}` };
  const mssql = await probe(conn, 'SELECT @@VERSION AS v');
  if (mssql !== null && /Microsoft SQL Server/i.test(mssql)) return { flavor: 'mssql', version: mssql };
  const oracle = await probe(conn, "SELECT banner FROM v$version WHERE banner LIKE 'Oracle%'");
  if (oracle !== null) return { flavor: 'oracle', version: oracle };
  return { flavor: 'generic', version: version ?? mssql ?? 'unknown DBMS' };
}
