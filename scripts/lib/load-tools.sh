#!/usr/bin/env bash
# Installs the load tools whose real output the import tests read: k6 and vegeta from the Go module
# proxy, oha from crates.io. Each install is time-boxed; one that fails or runs out of time is
# reported and skipped — the tests then read the samples committed under
# apps/agent/test/fixtures/, which were written by these same versions. Idempotent: a tool already
# on PATH, in ~/go/bin or in ~/.cargo/bin is left alone.
# Usage: scripts/lib/load-tools.sh [seconds per tool, default 900]
set -uo pipefail
limit="${1:-900}"
have() { command -v "$1" >/dev/null 2>&1 || [ -x "$HOME/go/bin/$1" ] || [ -x "$HOME/.cargo/bin/$1" ]; }
install() {
  local name="$1"; shift
  if have "$name"; then echo "load-tools: $name already installed"; return 0; fi
  echo "load-tools: installing $name (at most ${limit}s)…"
  if timeout "$limit" "$@" >/tmp/load-tools-"$name".log 2>&1; then
    echo "load-tools: $name installed"
  else
    echo "load-tools: $name NOT installed (see /tmp/load-tools-$name.log); its tests use the committed samples"
  fi
}
if command -v go >/dev/null 2>&1; then
  install k6 go install go.k6.io/k6@v1.8.1
  install vegeta go install github.com/tsenart/vegeta/v12@v12.13.0
else
  echo "load-tools: no Go toolchain: k6 and vegeta tests use the committed samples"
fi
if command -v cargo >/dev/null 2>&1; then
  install oha cargo install oha --version 1.16.0 --locked
else
  echo "load-tools: no cargo: oha tests use the committed samples"
fi
exit 0
