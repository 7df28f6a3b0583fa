#!/usr/bin/env bash
# Make sure Debian's redis-server is installed for the Redis working-memory tests.
set -euo pipefail
if command -v redis-server >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing Debian redis-server for the working-memory tests..." >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
else
  echo "warning: redis-server not found; the Redis working-memory tests will be skipped (sudo apt-get install redis-server)" >&2
fi
