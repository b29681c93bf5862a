#!/bin/sh
# Sets everything up on a fresh machine: toolchain (see toolchain.sh), dependencies, build.
set -eu
. "$(dirname -- "$0")/toolchain.sh"
. "$(dirname -- "$0")/system-packages.sh"
ensure_system_packages
cd "$EVALGATE_ROOT"
install_dependencies
pnpm run --silent build >&2
echo "evalgate: set up with Node $(node --version) and pnpm $(pnpm --version); run ./scripts/evalgate --help" >&2
