import { existsSync, readdirSync } from "node:fs";
import { defineConfig } from "vitest/config";

// One vitest project per workspace package (and one for repo-level checks), all sharing this config:
// workspace packages resolve to their TypeScript sources through the "@eval/source" export condition,
// so tests never need a build first.
const workspaceDirs = ["packages", "apps", "bench"].flatMap((group) =>
  existsSync(group)
    ? readdirSync(group, { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && existsSync(`${group}/${entry.name}/package.json`))
        .map((entry) => `${group}/${entry.name}`)
    : [],
);

// Benches and the private test-utils package are test material, not shipped code: no coverage threshold.
const coveredPackages = workspaceDirs.filter((dir) => !dir.startsWith("bench/") && dir !== "packages/test-utils");

export default defineConfig({
  resolve: { conditions: ["@eval/source"] },
  ssr: { resolve: { conditions: ["@eval/source"] } },
  test: {
    server: { deps: { inline: ["clipanion"] } },
    globalSetup: ["./scripts/vitest-global-setup.ts"],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    projects: [
      ...workspaceDirs.map((dir) => ({
        extends: true as const,
        test: {
          name: dir.split("/")[1]!,
          root: dir,
          include: ["src/**/*.test.ts", "tests/**/*.test.ts", "scripts/**/*.test.ts"],
        },
      })),
      {
        extends: true as const,
        test: { name: "repo", root: ".", include: ["scripts/**/*.test.ts"] },
      },
    ],
    coverage: {
      provider: "v8",
      include: coveredPackages.map((dir) => `${dir}/src/**/*.ts`),
      exclude: ["**/*.test.ts", "**/*.test-helpers.ts", "**/__fixtures__/**", "**/index.ts", "apps/cli/src/bin.ts"],
      reporter: ["text-summary", "json-summary"],
      // Enforced per package, not only overall: a well-tested package cannot hide an untested one.
      thresholds: Object.fromEntries(coveredPackages.map((dir) => [`${dir}/src/**/*.ts`, { lines: 90, branches: 80 }])),
    },
  },
});
