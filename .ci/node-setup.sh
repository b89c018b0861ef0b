#!/usr/bin/env bash
# Installs what langhost's Node.js test needs: the @pulumi/pulumi package
# (pinned by langhost/testdata/nodeprog/package-lock.json) into the test
# program's folder. Without node and npm it does nothing, and the test
# skips itself, saying why.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "node-setup: node or npm is not installed; the Node.js program test will be skipped"
  exit 0
fi
prog=langhost/testdata/nodeprog
if [ -f "$prog/node_modules/@pulumi/pulumi/package.json" ]; then
  echo "node-setup: @pulumi/pulumi is already installed in $prog"
  exit 0
fi
echo "node-setup: installing $prog's dependencies"
npm ci --prefix "$prog" --no-audit --no-fund --loglevel=error
