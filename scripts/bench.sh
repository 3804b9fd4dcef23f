#!/usr/bin/env bash
# Runs the benchmarks (bench/run.ts) with Node 22; arguments go to bench/run.ts,
# e.g. `bash scripts/bench.sh http --duration 5`. The http and messages
# benchmarks drive the servers with wrk: when it is missing, they install it
# (`apt-get install -y wrk`) when run as root and otherwise stop with one line
# saying how (bench/wrk.ts). The method: docs/benchmarks.md.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
if [ ! -d node_modules/.pnpm ]; then pnpm install --frozen-lockfile; fi
exec node bench/run.ts "$@"
