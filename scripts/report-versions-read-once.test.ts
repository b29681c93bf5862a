// Old report versions are upgraded once, by @eval/models upgrade.ts (the chain reader calls it): code past it
// reads the current shape and asks what a report holds, never which version it was recorded as. This check
// finds report schema-version branches in shipped sources outside the schemas and the upgrader. It is proven
// on planted branches, so a rename that blinds it fails here.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const repo = join(import.meta.dirname, "..");

/** Where a report's version may be named: its schemas and the one upgrader (and the tests' report builders). */
const ALLOWED = new Set([
  "packages/models/src/report.ts",
  "packages/models/src/index.ts",
  "packages/models/src/upgrade.ts",
  "packages/test-utils/src/reports.ts",
]);

/** The report-version branches in a source (comments ignored): a version literal or constant, or a field probe. */
export function versionBranchesIn(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:])\/\/.*$/gm, "$1");
  const pattern =
    /bench_run_report\.v\d|RUN_REPORT_V\d_SCHEMA_VERSION|["'](?:trials_per_case|selection|score_kind)["']\s+in\b/g;
  return [...code.matchAll(pattern)].map((match) => match[0]);
}

function shippedSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory())
      return ["__fixtures__", "node_modules", "dist"].includes(entry.name) ? [] : shippedSources(path);
    return entry.name.endsWith(".ts") && !/\.test(-helpers)?\.ts$/.test(entry.name) ? [path] : [];
  });
}

const sourceRoots = (): string[] =>
  ["packages", "apps"].flatMap((top) =>
    readdirSync(join(repo, top), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(repo, top, entry.name, "src")),
  );

describe("report versions are read once", () => {
  it("no shipped source outside the schemas and the upgrader branches on a report's schema version", () => {
    const branching = sourceRoots()
      .flatMap((root) => {
        try {
          return shippedSources(root);
        } catch {
          return [];
        }
      })
      .map((path) => relative(repo, path))
      .filter((path) => !ALLOWED.has(path) && versionBranchesIn(readFileSync(join(repo, path), "utf8")).length > 0)
      .sort();
    expect(branching).toEqual([]);
  });

  it("catches planted branches: a version literal, a version constant, a field probe; not a comment", () => {
    expect(versionBranchesIn(`if (report.schema_version === "evalgate.bench_run_report.v2") return 1;`)).toEqual([
      "bench_run_report.v2",
    ]);
    expect(versionBranchesIn(`const old = report.schema_version !== RUN_REPORT_V1_SCHEMA_VERSION;`)).toEqual([
      "RUN_REPORT_V1_SCHEMA_VERSION",
    ]);
    expect(versionBranchesIn(`const k = "trials_per_case" in report ? report.trials_per_case : 1;`)).toEqual([
      '"trials_per_case" in',
    ]);
    expect(versionBranchesIn(`// a v1 report (evalgate.bench_run_report.v1) has no selection\nconst k = 1;`)).toEqual(
      [],
    );
  });
});
