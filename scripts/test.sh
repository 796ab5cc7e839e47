#!/usr/bin/env bash
# Every test: typecheck, lint (zero warnings), unit and integration tests against the embedded
# ClickHouse and real loopback servers, then the browser tests in a real Chromium, then schemathesis.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/quiet.sh
source scripts/lib/pnpm.sh
if [ ! -x /usr/bin/chromium ]; then
  echo "installing Chromium from Debian for the browser tests…"
  (apt-get update -qq && apt-get install -y -qq chromium >/dev/null) || { echo "could not install chromium: run 'apt-get install -y chromium' as root"; exit 1; }
fi
if ! command -v prometheus >/dev/null 2>&1; then
  echo "installing Prometheus from Debian for the server-metrics tests…"
  (apt-get update -qq && apt-get install -y -qq prometheus >/dev/null) || { echo "could not install prometheus: run 'apt-get install -y prometheus' as root"; exit 1; }
fi
if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
  echo "installing python3-venv from Debian for schemathesis…"
  (apt-get update -qq && apt-get install -y -qq python3 python3-venv >/dev/null) || { echo "could not install python3-venv: run 'apt-get install -y python3-venv' as root"; exit 1; }
fi
pnpm install --frozen-lockfile
source scripts/lib/build-engine.sh
# The CLI as one bundled module (no tsx at run time: ~60 MiB less per agent, 4x faster start).
pnpm --filter @kneeboard/agent build:cli
# Opt-in: the real k6/vegeta/oha for the import tests (slow to build; without them the tests read committed samples).
if [ "${KNEEBOARD_LOAD_TOOLS:-0}" = "1" ]; then scripts/lib/load-tools.sh "${KNEEBOARD_LOAD_TOOLS_TIMEOUT:-900}"; fi
log=$(mktemp)
status=0
pnpm test 2>&1 | tee "$log" || status=$?
node scripts/lib/tally-tests.mjs "$log"
rm -f "$log"
# The OpenAPI document against the real API (open, then with tokens): schemathesis from PyPI, pinned,
# installed into ~/.cache/kneeboard on first use; fixed seed, few examples, a hard time limit per pass.
pnpm --filter @kneeboard/api test:schemathesis || status=$?
exit "$status"
