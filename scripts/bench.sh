#!/usr/bin/env bash
# Runs the benchmarks (bench/run.ts) with Node 22; arguments go to bench/run.ts,
# e.g. `bash scripts/bench.sh http --duration 5`.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
if [ ! -d node_modules/.pnpm ]; then pnpm install --frozen-lockfile; fi
exec node bench/run.ts "$@"
