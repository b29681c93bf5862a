// The rubric as the runner launches it: `node rubric.ts` under Node's permission model, one
// RubricRequest on stdin, one RubricResponse on stdout (the runner's tests cover the launcher itself).
import { spawnSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { RUBRIC_REQUEST_SCHEMA_VERSION, RubricResponseSchema } from "@eval/models";
import { scoreCase } from "../rubric.ts";
import { CASES_DIR, cleanupWorkspaces, loadCase, replayedWorkspace } from "./case-fixtures.ts";

afterAll(cleanupWorkspaces);
const BENCH_DIR = join(CASES_DIR, "..");
const REPO = join(BENCH_DIR, "..", "..");

function runRubricProcess(request: unknown, reads: string[]) {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), "rubric-cwd-")));
  try {
    const allow = [cwd, ...reads].map((path) => `--allow-fs-read=${realpathSync(path)}`);
    return spawnSync(
      process.execPath,
      [
        "--permission",
        ...allow,
        `--allow-fs-write=${cwd}`,
        "--disable-warning=ExperimentalWarning",
        join(BENCH_DIR, "rubric.ts"),
      ],
      {
        cwd,
        input: JSON.stringify(request),
        encoding: "utf8",
        env: { PATH: "/usr/bin:/bin" },
        timeout: 20_000,
      },
    );
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

const common = [BENCH_DIR, join(REPO, "node_modules"), join(REPO, "packages")];

it("scores a replayed case in a permission-restricted subprocess exactly as in-process", () => {
  const benchCase = loadCase("java-spring-healthcheck-curl");
  const workspace = replayedWorkspace(benchCase);
  const request = {
    schema_version: RUBRIC_REQUEST_SCHEMA_VERSION,
    case: benchCase,
    harness_output: { trial_class: "parse_success" },
    context: { workspace_path: workspace },
  };
  const child = runRubricProcess(request, [...common, benchCase.case_path, workspace]);
  expect(child.stderr).toBe("");
  expect(child.status).toBe(0);
  const response = RubricResponseSchema.parse(JSON.parse(child.stdout));
  expect(response.score).toEqual(
    RubricResponseSchema.shape.score.parse(scoreCase(benchCase, { trial_class: "parse_success" }, workspace)),
  );
});

it("fails with one stderr line, not a score, when the workspace is not readable", () => {
  const benchCase = loadCase("go-api-alpine-runtime");
  const workspace = replayedWorkspace(benchCase);
  const request = {
    schema_version: RUBRIC_REQUEST_SCHEMA_VERSION,
    case: benchCase,
    harness_output: { trial_class: "parse_success" },
    context: { workspace_path: workspace },
  };
  const child = runRubricProcess(request, [...common, benchCase.case_path]);
  expect(child.status).not.toBe(0);
  expect(child.stdout).toBe("");
  expect(child.stderr.trim().split("\n")).toHaveLength(1);
});
