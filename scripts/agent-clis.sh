#!/bin/sh
# Installs the real agent CLIs the end-to-end adapter tests drive (scripts/agent-clis/package.json pins
# exact versions; package-lock.json pins every dependency) into a cache keyed by the lockfile's digest:
#   ${XDG_CACHE_HOME:-$HOME/.cache}/evalgate/agent-clis/<sha256 of the lockfile, 16 hex>/
# Test-only: never a product dependency, not part of the pnpm workspace. Prints the directory on stdout
# and exits 0 when it is ready (a cache hit costs nothing); otherwise prints the reason on stderr and
# exits 1, and the tests that need the CLIs skip naming that reason. EVALGATE_SKIP_AGENT_CLIS=1 skips it;
# EVALGATE_AGENT_CLIS_CHECK_ONLY=1 only reports whether the cache is ready (what the tests call).
set -eu
here=$(CDPATH= cd -- "$(dirname -- "$0")/agent-clis" && pwd)
if [ "${EVALGATE_SKIP_AGENT_CLIS:-}" = "1" ]; then
  echo "agent CLIs: skipped (EVALGATE_SKIP_AGENT_CLIS=1)" >&2
  exit 1
fi
digest=$(sha256sum "$here/package-lock.json" | cut -c1-16)
dir="${XDG_CACHE_HOME:-$HOME/.cache}/evalgate/agent-clis/$digest"
if [ -f "$dir/.complete" ]; then
  echo "$dir"
  exit 0
fi
if [ "${EVALGATE_AGENT_CLIS_CHECK_ONLY:-}" = "1" ]; then
  echo "agent CLIs: not installed at $dir" >&2
  exit 1
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "agent CLIs: not installed (no npm on PATH)" >&2
  exit 1
fi
mkdir -p "$(dirname "$dir")"
work=$(mktemp -d "$dir.partial.XXXXXX")
cp "$here/package.json" "$here/package-lock.json" "$work/"
echo "agent CLIs: installing the pinned versions into $dir (about 1 GB, once per lockfile)" >&2
if ! (cd "$work" && npm ci --no-audit --no-fund --loglevel=error >&2); then
  rm -rf "$work"
  echo "agent CLIs: npm ci failed (no registry access?); the end-to-end agent tests will skip" >&2
  exit 1
fi
touch "$work/.complete"
# Another installer may have won the race: keep its directory, drop ours.
if ! mv -T "$work" "$dir" 2>/dev/null; then rm -rf "$work"; fi
echo "$dir"
