#!/usr/bin/env bash
# The teamchat command line, runnable without any setup:
#
#   bash scripts/teamchat.sh help
#   bash scripts/teamchat.sh create-user --org zulip --email ann@zulip.com --name Ann
#
# (`pnpm teamchat` is the root package.json script that runs this file, from
# the repository root.) Brings Node 22 and pnpm (scripts/env.sh), installs the
# dependencies when needed (scripts/deps.sh), then execs
# `node packages/http/src/bin.ts` with the arguments given, in the directory it
# was run from: relative paths (DATA_DIR, --data-dir, default ./data) are taken
# from there, as the server started there takes them. exec, so that the
# process started is the server: a signal sent to it (SIGINT, SIGTERM)
# reaches the server, even without a terminal (packages/http/test/Cli.test.ts).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
. "$root/scripts/env.sh"
(cd "$root" && . scripts/deps.sh)
exec node "$root/packages/http/src/bin.ts" "$@"
