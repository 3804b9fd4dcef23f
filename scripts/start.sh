#!/usr/bin/env bash
# Installs what is missing and starts the teamchat server:
#
#   bash scripts/start.sh --demo      # the demo organization on http://127.0.0.1:9991
#
# Brings Node 22 and pnpm (scripts/env.sh), runs `pnpm install --frozen-lockfile`
# when node_modules is missing or older than the lockfile or a package.json,
# then execs `node packages/http/src/bin.ts serve` with the arguments given.
# Runs from the repository root, so the default DATA_DIR is ./data there.
# Settings: PORT, HOST, DATABASE_URL, DATA_DIR, DEMO, EXTERNAL_URL,
# RATE_LIMIT_REQUESTS, RATE_LIMIT_WINDOW_SECONDS, LOG_LEVEL, LOG_FORMAT
# (see `node packages/http/src/bin.ts help serve`). Stop with Ctrl-C or SIGTERM.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh

stamp=node_modules/.teamchat-installed
stale() {
  [ ! -f "$stamp" ] || [ ! -d node_modules/.pnpm ] && return 0
  [ -n "$(find pnpm-lock.yaml package.json packages/*/package.json examples/package.json -newer "$stamp" 2>/dev/null)" ]
}
if stale; then
  echo "teamchat: installing dependencies (pnpm install --frozen-lockfile)…" >&2
  # env.sh already put the pinned pnpm on PATH. pm-on-fail=ignore stops pnpm 12
  # from also recording its own version in the lockfile, which a frozen install
  # refuses to do when the registry does not list that version.
  pnpm install --frozen-lockfile --config.pm-on-fail=ignore >&2
  touch "$stamp"
fi

exec node packages/http/src/bin.ts serve "$@"
