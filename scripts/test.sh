#!/bin/sh
# Runs every test and check: build, strict typecheck (sources, tests, configs), dependency rules,
# then vitest with per-package coverage thresholds. Works from a fresh clone (it sets up what it needs).
set -eu
. "$(dirname -- "$0")/toolchain.sh"
cd "$EVALGATE_ROOT"
pnpm install --frozen-lockfile --reporter=append-only >&2
pnpm run --silent build
pnpm run --silent typecheck
pnpm run --silent lint:deps
status=0
pnpm exec vitest run --coverage --reporter=default --reporter=json --outputFile.json=coverage/vitest-results.json || status=$?
# One plain closing line that any CI reader understands.
node -e '
const r = JSON.parse(require("fs").readFileSync("coverage/vitest-results.json", "utf8"));
console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests + r.numTodoTests} skipped`);
' || true
exit "$status"
