#!/usr/bin/env bash
# Everything Deno-side (`npm run test:deno`): type-check the package in Deno, run the Deno KV adapter's tests
# (conformance suite on KV in memory and in a file, middleware end to end, the example), and a JSR publish
# dry run. Deno comes from npm (test/runtimes/node_modules/.bin/deno); npm packages come from the repo's node_modules
# (deno.json "nodeModulesDir": "manual"), so nothing is fetched. Exits non-zero on the first failure.
set -euo pipefail
cd "$(dirname "$0")/../.."

# Deno is installed in test/runtimes (npm run test:runtimes); a checkout installed before that split has it at the root.
if [ -z "${DENO:-}" ]; then
  DENO=test/runtimes/node_modules/.bin/deno
  [ -x "$DENO" ] || [ ! -x node_modules/.bin/deno ] || DENO=node_modules/.bin/deno
fi
if ! [ -x "$DENO" ]; then
  echo "test:deno: no deno at $DENO — run \`npm run test:runtimes\` (deno is installed in test/runtimes) or set DENO=/path/to/deno" >&2
  exit 1
fi
export NO_COLOR=1
"$DENO" --version | sed -n 1p

echo "== deno check"
# The core, the runtime-neutral adapters and everything of this adapter. Other adapters target other
# runtimes (cloudflare:workers, bun:sqlite); the publish dry run below checks what JSR would ship of them.
"$DENO" check src/ adapters/memory/ adapters/deno-kv/ examples/deno/ test/conformance/

echo "== deno test"
"$DENO" test -A --unstable-kv adapters/deno-kv/

echo "== deno publish --dry-run"
# Works offline: the dry run type-checks and lints what would be uploaded, and contacts no registry.
"$DENO" publish --dry-run --allow-dirty
