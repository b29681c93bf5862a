#!/bin/sh
# Runs every test and check: build, strict typecheck (sources, tests, configs), dependency rules, the
# linter (oxlint), the formatter's check (Prettier) and the dead-code check (knip), then vitest with per-package coverage thresholds. Works from a fresh clone (it sets up what it needs).
set -eu
. "$(dirname -- "$0")/toolchain.sh"
. "$(dirname -- "$0")/system-packages.sh"
ensure_system_packages tests
cd "$EVALGATE_ROOT"
install_dependencies
pnpm run --silent build
pnpm run --silent typecheck
pnpm run --silent lint:deps
pnpm run --silent lint
pnpm run --silent format:check
pnpm run --silent lint:dead
# The real agent CLIs for the end-to-end adapter tests (cached). They are part of the suite: when they cannot
# be installed the suite stops here, unless EVALGATE_SKIP_AGENT_CLIS=1 says to run without them (those tests
# then skip, naming why). Exported, the directory is a promise: a test that finds it incomplete fails.
if agent_clis=$("$EVALGATE_ROOT/scripts/agent-clis.sh"); then
  EVALGATE_AGENT_CLIS="$agent_clis"
  export EVALGATE_AGENT_CLIS
elif [ "${EVALGATE_SKIP_AGENT_CLIS:-}" != "1" ]; then
  echo "test.sh: the pinned agent CLIs could not be installed (above); fix that, or set EVALGATE_SKIP_AGENT_CLIS=1 to run the suite without the real-agent tests" >&2
  exit 1
fi
status=0
rm -f coverage/vitest-results.json
pnpm exec vitest run --coverage --reporter=default --reporter=json --outputFile.json=coverage/vitest-results.json || status=$?
# One plain closing line that any CI reader understands. "failed" counts failed tests plus test files
# that failed without a failing test (an import error, a crashed worker), so it is never 0 when the
# run failed; a run whose results file is missing or unreadable counts as one failure.
node -e '
const status = Number(process.argv[1]);
let r = null;
try { r = JSON.parse(require("fs").readFileSync("coverage/vitest-results.json", "utf8")); } catch {}
const files = r === null ? [] : r.testResults;
const failedFiles = files.filter((file) => file.status === "failed");
const filesWithoutFailedTest = failedFiles.filter((file) => !file.assertionResults.some((test) => test.status === "failed")).length;
const passed = r === null ? 0 : r.numPassedTests;
let failed = r === null ? 1 : r.numFailedTests + filesWithoutFailedTest;
if (status !== 0 && failed === 0) {
  failed = 1;
  console.log("vitest exited non-zero with no failing test: a coverage threshold or the runner itself failed (see above)");
}
const skipped = r === null ? 0 : r.numPendingTests + r.numTodoTests;
if (failedFiles.length > 0) console.log(`failed files: ${failedFiles.map((file) => require("path").relative(process.cwd(), file.name)).join(", ")}`);
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exitCode = failed > 0 ? 1 : 0;
' "$status" || status=1
exit "$status"
