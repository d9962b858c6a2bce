#!/usr/bin/env bash
# `npm run test:bun`: the bun-sqlite adapter and the Bun example (bun-example.bun.test.ts) under `bun test`.
# Only *.bun.test.ts files are passed, by path: `bun test` would otherwise also collect the vitest
# files (*.test.ts), which need Node and better-sqlite3. The mixed-runtime tests also need `node`.
set -euo pipefail
cd "$(dirname "$0")/../.."

# Bun is installed in test/runtimes (npm run test:runtimes); a checkout installed before that split has it at the root.
bun=${BUN:-}
if [ -z "$bun" ]; then
  bun=test/runtimes/node_modules/.bin/bun
  [ -x "$bun" ] || [ ! -x node_modules/.bin/bun ] || bun=node_modules/.bin/bun
fi
if [ ! -x "$bun" ] || ! "$bun" --version >/dev/null 2>&1; then
  echo "test:bun: $bun is missing or does not run; install the test runtimes (npm run test:runtimes) or set BUN=/path/to/bun." >&2
  exit 1
fi
if ! command -v node >/dev/null 2>&1; then
  echo "test:bun: node is not on PATH; the tests start Node processes next to Bun ones." >&2
  exit 1
fi

shopt -s nullglob
files=(adapters/bun-sqlite/*.bun.test.ts)
if [ "${#files[@]}" -eq 0 ]; then
  echo "test:bun: no *.bun.test.ts files found" >&2
  exit 1
fi
echo "bun $("$bun" --version): ${files[*]}"
exec "$bun" test "${files[@]/#/./}"
