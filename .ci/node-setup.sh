#!/usr/bin/env bash
# Installs what the Node.js program tests need: the @pulumi packages
# (pinned by each program's package-lock.json) into each test program's
# folder. Without node and npm it does nothing, and the tests skip
# themselves, saying why.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "node-setup: node or npm is not installed; the Node.js program tests will be skipped"
  exit 0
fi
for prog in langhost/testdata/nodeprog interop/programs/nodeprog interop/programs/nodecommand interop/programs/noderandom; do
  if [ -f "$prog/node_modules/@pulumi/pulumi/package.json" ]; then
    echo "node-setup: @pulumi/pulumi is already installed in $prog"
    continue
  fi
  echo "node-setup: installing $prog's dependencies"
  npm ci --prefix "$prog" --no-audit --no-fund --loglevel=error
done
