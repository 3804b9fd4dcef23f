#!/usr/bin/env bash
# Runs the whole test suite: installs Node 22 and the dependencies when
# missing, then vitest (memory, PGlite and PostgreSQL runs). PostgreSQL tests
# use TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test) and
# create and drop their own databases. The join page's browser test needs
# Chromium (CHROMIUM, default /usr/bin/chromium): when it is missing it is
# installed with apt-get (as root, or through sudo without a password), and the
# run stops with a clear message if that is not possible. Extra arguments go to
# vitest.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
if [ ! -d node_modules/.pnpm ] || [ pnpm-lock.yaml -nt node_modules/.pnpm ]; then
  pnpm install --frozen-lockfile
fi
export CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$CHROMIUM" ]; then
  echo "teamchat: installing Chromium for the join page's browser test (apt-get install -y chromium)" >&2
  as_root=""
  [ "$(id -u)" = 0 ] || as_root="sudo -n"
  if ! { $as_root apt-get update -qq && $as_root apt-get install -y -qq chromium; } >&2 || [ ! -x "$CHROMIUM" ]; then
    echo "teamchat: could not install Chromium at $CHROMIUM; install the 'chromium' package (or set CHROMIUM to a Chromium binary) and run again" >&2
    exit 1
  fi
fi
export TEST_DATABASE_URL="${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}"
exec pnpm exec vitest run "$@"
