# Sourced by the other scripts: puts a Node >= 22.18 and the pinned pnpm first on PATH.
# A fresh machine of this project's kind has Node 20 and npm only; then both come from the npm
# registry into .toolchain/ (about 10 s, once): `node` ships the Node binary, `pnpm` the package manager.
# shellcheck shell=sh

EVALGATE_ROOT=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)
PNPM_VERSION=$(sed -n 's/.*"packageManager": *"pnpm@\([^"]*\)".*/\1/p' "$EVALGATE_ROOT/package.json")
TOOLCHAIN_BIN="$EVALGATE_ROOT/.toolchain/node_modules/.bin"

node_is_suitable() {
  command -v node >/dev/null 2>&1 &&
    node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>22||(a===22&&b>=18)?0:1)' 2>/dev/null
}
pnpm_is_pinned() {
  command -v pnpm >/dev/null 2>&1 && [ "$(pnpm --version 2>/dev/null)" = "$PNPM_VERSION" ]
}

if [ -x "$TOOLCHAIN_BIN/node" ] && [ -x "$TOOLCHAIN_BIN/pnpm" ]; then
  PATH="$TOOLCHAIN_BIN:$PATH"
elif ! node_is_suitable || ! pnpm_is_pinned; then
  if [ "${EVALGATE_NO_TOOLCHAIN_INSTALL:-}" = "1" ]; then
    echo "evalgate: no Node >= 22.18 with pnpm $PNPM_VERSION on PATH; run ./scripts/setup.sh first" >&2
    exit 1
  fi
  echo "evalgate: installing Node 24 and pnpm $PNPM_VERSION into .toolchain/ (the machine's Node is $(node --version 2>/dev/null || echo missing))" >&2
  # --prefix also moves npm's global config to <prefix>/etc/npmrc: name the machine's own, so its
  # registry, proxy and CA settings (a cafile, say) still apply.
  npm install --prefix "$EVALGATE_ROOT/.toolchain" --globalconfig "$(npm config get globalconfig)" \
    --no-save --no-audit --no-fund --loglevel=error "node@24" "pnpm@$PNPM_VERSION" >&2
  PATH="$TOOLCHAIN_BIN:$PATH"
fi
export PATH

# Installs the workspace's dependencies. In CI (CI set) the lockfile must already match every package.json;
# elsewhere pnpm updates it when a package was added or changed (a new bench package, a pull), so running
# setup again after either works. Idempotent: with nothing to do pnpm changes nothing.
install_dependencies() {
  if [ -n "${CI:-}" ]; then
    pnpm install --frozen-lockfile --reporter=append-only >&2 || {
      echo "evalgate: pnpm-lock.yaml does not match a package.json (a package added or changed?): run ./scripts/setup.sh outside CI and commit pnpm-lock.yaml" >&2
      return 1
    }
  else
    pnpm install --prefer-frozen-lockfile --reporter=append-only >&2
  fi
}
