#!/usr/bin/env bash
# Starts a throwaway redis-server on 127.0.0.1:6379 when none answers. In CI a Redis that cannot be
# started fails the run: the Redis adapter's tests must never be skipped.
set -euo pipefail
if redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then exit 0; fi
command -v redis-server >/dev/null || { echo "redis-server is not installed (apt-get install redis-server)" >&2; exit 1; }
redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no
for _ in $(seq 1 50); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && exit 0; sleep 0.1; done
echo "redis-server did not start" >&2; exit 1
