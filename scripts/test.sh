#!/usr/bin/env bash
# Runs the whole test suite: installs Node 22 and the dependencies when
# missing, then vitest (memory, PGlite and PostgreSQL runs). PostgreSQL tests
# use TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test) and
# create and drop their own databases. Extra arguments go to vitest.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
if [ ! -d node_modules/.pnpm ] || [ pnpm-lock.yaml -nt node_modules/.pnpm ]; then
  pnpm install --frozen-lockfile
fi
export TEST_DATABASE_URL="${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}"
exec pnpm exec vitest run "$@"
