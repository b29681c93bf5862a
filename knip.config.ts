// knip: unused files, exports and dependencies (`pnpm run lint:dead`). scripts/lint-rules.test.ts plants
// one violation of each kind and asserts this check fails naming it.
import type { KnipConfig } from "knip";

const config: KnipConfig = {
  // Every package's index is a door: an export no other package imports is reported like any other dead export.
  includeEntryExports: true,
  workspaces: {
    ".": {
      // Scripts are loaded by path (bench.ts imports `<name>.bench.ts`, oxlint loads its plugin, vitest its setup):
      // their default exports are their contract with that loader, not an API.
      includeEntryExports: false,
      entry: ["scripts/*.ts", "scripts/benchmarks/*.bench.ts", "scripts/benchmarks/*.worker.ts", "scripts/lint/*.js"],
      project: ["scripts/**/*.{ts,js}", "*.ts"],
    },
    "packages/*": {
      project: ["src/**/*.ts", "scripts/**/*.ts"],
    },
    // The module SUT's worker is started by URL (new Worker(new URL("./module-sut-worker.ts", ...))).
    "packages/runner": {
      entry: ["src/module-sut-worker.ts"],
      project: ["src/**/*.ts"],
      // Listed on purpose: rubrics run by the runner import it from the runner's install (README).
      ignoreDependencies: ["@eval/rubric-protocol"],
    },
    // Its index is the API rubric authors import (packages/rubric-protocol/README.md), used by rubrics outside the repo.
    "packages/rubric-protocol": {
      includeEntryExports: false,
      project: ["src/**/*.ts", "scripts/**/*.ts"],
    },
    "packages/test-utils": {
      entry: ["scripts/*.ts"],
      project: ["src/**/*.ts", "scripts/**/*.ts"],
    },
    "apps/cli": {
      // The CLI's index is the programmatic API documented in apps/cli/README.md (`runCli` and its exit codes).
      includeEntryExports: false,
      project: ["src/**/*.ts"],
      // Listed so an installed evalgate can run the shipped benches' rubrics, which import it.
      ignoreDependencies: ["@eval/rubric-protocol"],
    },
    "bench/*": {
      // registration.ts's default export is read by the registry, which loads it by path.
      includeEntryExports: false,
      entry: ["registration.ts", "rubric.ts", "scripts/*.ts", "tests/**/*.ts"],
      project: ["*.ts", "scripts/**/*.ts", "tests/**/*.ts"],
    },
  },
  ignore: ["**/__fixtures__/**"],
  // System tools the tests and benchmarks call (installed by apt-get, not npm).
  ignoreBinaries: ["b3sum", "diff", "mkfifo", "awk", "bwrap", "useradd", "socat", "mount", "umount", "fish"],
  // An export its own file uses is not dead code; flagging it would only churn files other work touches.
  ignoreExportsUsedInFile: true,
};

export default config;
