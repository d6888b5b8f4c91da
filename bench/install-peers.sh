#!/usr/bin/env bash
# Installs the tools the benchmarks compare evio with (issue 8), from Debian's packages and the
# npm registry. Idempotent: apt-get runs (after one apt-get update) only when something is
# missing, npm only when a package cannot be loaded.
#   ripgrep (rg)            workload 1
#   jq                      workload 1
#   sqlite3                 workload 3
#   postgresql-client       workload 4 (psql)
#   sudo                    workload 7 (sudoreplay -l)
#   gzip (zgrep)            workload 6
#   time (GNU time)         peak RSS of every process
#   @duckdb/node-api        workloads 1 and 11 (npm, not saved to package.json)
#   autocannon, @xterm/headless, tinybench   devDependencies (npm ci installs them)
#
# EVIO_BENCH_PEERS=DIR: @duckdb/node-api goes to the prefix DIR (`npm install --prefix DIR`)
# instead of the project's node_modules, for a checkout whose node_modules may not be written
# (a shared one). bench/children/duckdb.mjs loads it from DIR when that variable is set, else
# from the project; keep the variable set when running the benchmarks.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian package -> a command it provides.
declare -A PROVIDES=(
  [ripgrep]=rg
  [jq]=jq
  [sqlite3]=sqlite3
  [postgresql-client]=psql
  [sudo]=sudoreplay
  [gzip]=zgrep
  [time]=/usr/bin/time
)
need=()
for pkg in "${!PROVIDES[@]}"; do
  cmd="${PROVIDES[$pkg]}"
  if [[ "$cmd" == /* ]]; then [[ -x "$cmd" ]] || need+=("$pkg")
  else command -v "$cmd" >/dev/null 2>&1 || need+=("$pkg"); fi
done
if [ "${#need[@]}" -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ] && ! command -v sudo >/dev/null 2>&1; then
    echo "install-peers: missing ${need[*]}; run as root to install them" >&2
    exit 1
  fi
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "install-peers: apt-get install ${need[*]}" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

# npm peers: loadable from the project?
missing_npm=()
if [ -n "${EVIO_BENCH_PEERS:-}" ]; then
  mkdir -p "$EVIO_BENCH_PEERS"
  if ! node -e "require(require('node:module').createRequire(process.argv[1] + '/package.json').resolve('@duckdb/node-api/package.json'))" "$EVIO_BENCH_PEERS" 2>/dev/null; then
    echo "install-peers: npm install --prefix $EVIO_BENCH_PEERS @duckdb/node-api" >&2
    npm install --prefix "$EVIO_BENCH_PEERS" --no-audit --no-fund @duckdb/node-api >&2
  fi
else
  node -e "import('@duckdb/node-api').then(() => process.exit(0), () => process.exit(1))" 2>/dev/null || missing_npm+=("@duckdb/node-api")
fi
for m in autocannon @xterm/headless tinybench; do
  node -e "import('$m').then(() => process.exit(0), () => process.exit(1))" 2>/dev/null || missing_npm+=("$m")
done
if [ "${#missing_npm[@]}" -gt 0 ]; then
  echo "install-peers: npm install --no-save ${missing_npm[*]}" >&2
  npm install --no-save --no-audit --no-fund "${missing_npm[@]}" >&2
fi

echo "install-peers: rg $(rg --version | head -n1 | cut -d' ' -f2), jq $(jq --version), sqlite3 $(sqlite3 --version | cut -d' ' -f1), psql $(psql --version | awk '{print $3}'), sudoreplay $(sudoreplay -V 2>/dev/null | head -n1 | awk '{print $NF}'), duckdb $(node -p "require(require('node:module').createRequire((process.argv[1] || process.cwd()) + '/package.json').resolve('@duckdb/node-api/package.json')).version" "${EVIO_BENCH_PEERS:-}" 2>/dev/null || echo '?')" >&2
