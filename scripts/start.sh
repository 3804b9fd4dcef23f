#!/usr/bin/env bash
# Installs what is missing and starts the teamchat server:
#
#   bash scripts/start.sh --demo      # the demo organization on http://127.0.0.1:9991
#
# Brings Node 22 and pnpm (scripts/env.sh), installs the dependencies when
# needed (scripts/deps.sh), then execs `node packages/http/src/bin.ts serve`
# with the arguments given. Runs from the repository root, so the default
# DATA_DIR is ./data there. Settings: PORT, HOST, DATABASE_URL, DATA_DIR, DEMO,
# EXTERNAL_URL, RATE_LIMIT_REQUESTS, RATE_LIMIT_WINDOW_SECONDS, LOG_LEVEL,
# LOG_FORMAT (see `bash scripts/teamchat.sh help serve`). Stop with Ctrl-C or
# SIGTERM.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
. scripts/deps.sh

exec node packages/http/src/bin.ts serve "$@"
