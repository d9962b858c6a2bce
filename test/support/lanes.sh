#!/usr/bin/env bash
# Runs each argument as a shell command line ("lane"), all lanes at the same time, and exits non-zero when any
# lane fails. `npm test` runs the type checks and the build in two lanes: each tsc is single-threaded, so one
# after the other they leave a core of a 2-core CI machine idle for over a minute. It also runs vitest's `alone`
# project (files that judge real time, mostly waiting on timers and processes) beside `nice -n 19` test:package
# and test:deno, which judge no time: at nice 19 they get a core only while the `alone` files leave it idle.
# Each lane's output is kept apart and printed whole, in argument order, once every lane is done.
set -uo pipefail
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
pids=()
for i in $(seq 1 $#); do
  bash -c "set -euo pipefail; ${!i}" >"$dir/$i" 2>&1 &
  pids+=($!)
done
failed=0
for i in $(seq 1 $#); do
  if wait "${pids[$((i - 1))]}"; then status=ok; else status="FAILED (exit $?)"; failed=1; fi
  echo "== lane $i: ${!i} — $status"
  cat "$dir/$i"
done
exit $failed
