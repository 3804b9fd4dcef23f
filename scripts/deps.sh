# Sourced after scripts/env.sh by start.sh and teamchat.sh, from the repository
# root: runs `pnpm install --frozen-lockfile` when node_modules is missing or
# older than the lockfile or a package.json. Progress goes to stderr, so a
# command's stdout stays its own.
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
