// The rubric as the runner launches it: `node rubric.ts` under Node's permission model (reads limited
// to the bench, the installed packages, the case and the workspace; writes only to a temp cwd), one
// RubricRequest on stdin, one RubricResponse on stdout. The runner's own isolation tests cover the
// launcher; this proves this rubric needs nothing more than that.
import { spawnSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { RUBRIC_REQUEST_SCHEMA_VERSION, RubricResponseSchema } from "@eval/models";
import { scoreInstalled } from "../rubric.ts";
import { BENCH_DIR, cleanupWorkspaces, harnessOutputFor, loadCase, replayedWorkspace } from "./case-fixtures.ts";

afterAll(cleanupWorkspaces);
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
        // As the runner does (scrubbedRubricEnv): the temp directory is the rubric's own cwd.
        env: { PATH: "/usr/bin:/bin", TMPDIR: cwd },
        timeout: 20_000,
      },
    );
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

it("scores a replayed case in a permission-restricted subprocess exactly as in-process, the install and smoke check included", async () => {
  const benchCase = loadCase("follow-redirects-two-advisories");
  const workspace = replayedWorkspace(benchCase);
  const harnessOutput = harnessOutputFor(benchCase);
  const request = {
    schema_version: RUBRIC_REQUEST_SCHEMA_VERSION,
    case: benchCase,
    harness_output: harnessOutput,
    context: { workspace_path: workspace },
  };
  const child = runRubricProcess(request, [
    BENCH_DIR,
    join(REPO, "node_modules"),
    join(REPO, "packages"),
    benchCase.case_path,
    workspace,
  ]);
  expect(child.stderr).toBe("");
  expect(child.status).toBe(0);
  const response = RubricResponseSchema.parse(JSON.parse(child.stdout));
  expect(response.score).toEqual(
    RubricResponseSchema.shape.score.parse(await scoreInstalled(benchCase, harnessOutput, workspace)),
  );
});

it("cannot read a workspace it was not granted, and fails with one line instead of a score", () => {
  const benchCase = loadCase("lodash-template-cve-2021-23337");
  const workspace = replayedWorkspace(benchCase);
  const request = {
    schema_version: RUBRIC_REQUEST_SCHEMA_VERSION,
    case: benchCase,
    harness_output: { trial_class: "parse_success" },
    context: { workspace_path: workspace },
  };
  const child = runRubricProcess(request, [
    BENCH_DIR,
    join(REPO, "node_modules"),
    join(REPO, "packages"),
    benchCase.case_path,
  ]);
  expect(child.status).not.toBe(0);
  expect(child.stdout).toBe("");
  expect(child.stderr.trim().split("\n")).toHaveLength(1);
});
