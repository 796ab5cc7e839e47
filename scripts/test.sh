#!/usr/bin/env bash
# Every test: typecheck, lint (zero warnings), unit and integration tests against the embedded
# ClickHouse and real loopback servers, then the browser tests in a real Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/quiet.sh
source scripts/lib/pnpm.sh
if [ ! -x /usr/bin/chromium ]; then
  echo "installing Chromium from Debian for the browser tests…"
  (apt-get update -qq && apt-get install -y -qq chromium >/dev/null) || { echo "could not install chromium: run 'apt-get install -y chromium' as root"; exit 1; }
fi
pnpm install --frozen-lockfile
source scripts/lib/build-engine.sh
log=$(mktemp)
status=0
pnpm test 2>&1 | tee "$log" || status=$?
node scripts/lib/tally-tests.mjs "$log"
rm -f "$log"
exit "$status"
