# Builds the agent's native load engine (apps/agent/engine) with cargo when cargo is present; without
# it the `kneeboard` CLI runs its Node engine. Sourced by start.sh and test.sh from the repo root.
# The agent's own test and lint scripts call cargo again: a no-op when this already built it.
if [ -x "$HOME/.cargo/bin/cargo" ]; then PATH="$HOME/.cargo/bin:$PATH"; fi
if command -v cargo >/dev/null 2>&1; then
  echo "building the native load engine (cargo build --release in apps/agent/engine)…"
  cargo build --release --quiet --manifest-path apps/agent/engine/Cargo.toml
else
  echo "cargo not found: the agent will run its Node engine (install Rust from rustup.rs for the native one)"
fi
