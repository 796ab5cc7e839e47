# Makes `pnpm` available. Corepack's signature check fails on some machines, so install it with npm.
if ! command -v pnpm >/dev/null 2>&1; then
  echo "installing pnpm 10 with npm…"
  npm i -g pnpm@10 >/dev/null 2>&1 || { echo "could not install pnpm globally; using npx"; pnpm() { npx -y pnpm@10 "$@"; }; }
fi
