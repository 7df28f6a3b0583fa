#!/usr/bin/env bash
# Make sure Debian's chromium is installed for the real-browser test (no browser download).
set -euo pipefail
if command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ]; then
  exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing Debian chromium for the browser test..." >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
else
  echo "warning: chromium not found; the browser test will be skipped (sudo apt-get install chromium)" >&2
fi
