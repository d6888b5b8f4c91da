#!/usr/bin/env bash
# Registers the ODBC data sources the evio tests use (system DSNs in /etc/odbc.ini), idempotently.
# Run as root after unixODBC, odbc-postgresql and libsqliteodbc are installed (.ci/run does both).
#   evio_pg      PostgreSQL Unicode driver -> 127.0.0.1:5432, database test, user postgres
#   evio_sqlite  SQLite3 driver -> /tmp/evio-odbc/events.sqlite (tests override Database= per file)
# Override with EVIO_ODBC_PG_HOST/PORT/DATABASE/USER and EVIO_ODBC_SQLITE_DB.
set -euo pipefail

PG_HOST=${EVIO_ODBC_PG_HOST:-127.0.0.1}
PG_PORT=${EVIO_ODBC_PG_PORT:-5432}
PG_DATABASE=${EVIO_ODBC_PG_DATABASE:-test}
PG_USER=${EVIO_ODBC_PG_USER:-postgres}
SQLITE_DB=${EVIO_ODBC_SQLITE_DB:-/tmp/evio-odbc/events.sqlite}

command -v odbcinst >/dev/null || { echo "odbc-setup: odbcinst not found (apt-get install unixodbc)" >&2; exit 1; }

# The drivers must be registered by their Debian packages; say which one is missing.
drivers=$(odbcinst -q -d)
for d in 'PostgreSQL Unicode' 'SQLite3'; do
  grep -qxF "[$d]" <<<"$drivers" || {
    echo "odbc-setup: ODBC driver \"$d\" is not registered (apt-get install odbc-postgresql libsqliteodbc)" >&2
    exit 1
  }
done

mkdir -p "$(dirname "$SQLITE_DB")"
chmod 1777 "$(dirname "$SQLITE_DB")" 2>/dev/null || true

register() {
  local name=$1 file
  file=$(mktemp)
  cat >"$file"
  # -i -s -l installs a system DSN; removing first makes a re-run replace, not duplicate, it.
  odbcinst -u -s -l -n "$name" >/dev/null 2>&1 || true
  odbcinst -i -s -l -f "$file" >/dev/null
  rm -f "$file"
  echo "odbc-setup: DSN $name registered"
}

# UseDeclareFetch makes psqlodbc fetch through a server-side cursor (rows stream, in Fetch-sized
# batches) instead of loading a whole result set into memory.
register evio_pg <<INI
[evio_pg]
Description=evio test database (PostgreSQL)
Driver=PostgreSQL Unicode
Servername=$PG_HOST
Port=$PG_PORT
Database=$PG_DATABASE
Username=$PG_USER
Password=
UseDeclareFetch=1
Fetch=1000
INI

# StepAPI makes the SQLite driver step the statement as rows are fetched (no whole-result copy).
register evio_sqlite <<INI
[evio_sqlite]
Description=evio test database (SQLite)
Driver=SQLite3
Database=$SQLITE_DB
Timeout=10000
StepAPI=1
INI
