import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readEmbeddedData } from "@eval/reports";
import { invoke } from "../test-helpers.ts";
import { makeUpperBench } from "./run.test-helpers.ts";

let bench: { root: string; benchRoot: string; benchPath: string };
let state: string;
let tiers: string;
const runIds: string[] = [];
const lastLine = (stdout: string) => JSON.parse(stdout.trim().split("\n").at(-1)!) as Record<string, unknown>;

beforeAll(async () => {
  bench = await makeUpperBench({ "a-1": "alpha", "a-2": "beta", "b-1": "gamma" });
  state = join(bench.root, "state");
  tiers = join(bench.root, "tiers.yaml");
  await writeFile(
    tiers,
    "schema_version: evalgate.trust_tiers.v1\ncalibrated: false\ntiers:\n  - { name: untrusted, threshold: 0, min_cases: 0, min_held_out: 0 }\n  - { name: bronze, threshold: 0.5, min_cases: 1, min_held_out: 0 }\ncurrent:\n  upper: untrusted\n",
  );
  const base = ["run", "--task-class", "upper", "--bench-root", bench.benchRoot, "--out", state, "--quiet"];
  // A failing run (nothing changed), then a passing one whose 'b-1' is cached from a third run before it.
  for (const sut of ["module:sut.mjs#same", "module:sut.mjs#upper", "module:sut.mjs#upper"]) {
    const result = await invoke([...base, "--sut", sut], { cwd: bench.root });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe("");
    runIds.push(lastLine(result.stdout).run_id as string);
  }
}, 120_000);
afterAll(async () => {
  await rm(bench.root, { recursive: true, force: true });
});

const common = () => ["--out", state, "--bench-root", bench.benchRoot, "--trust-tiers", tiers];

describe("evalgate report", () => {
  it("writes one HTML file for the newest run, with its verdict, trend and embedded cases; --baseline compares", async () => {
    const output = join(bench.root, "out", "report.html");
    const result = await invoke(
      ["report", "--task-class", "upper", "-o", output, "--baseline", runIds[0]!, ...common()],
      { cwd: bench.root },
    );
    expect(result.code, result.stderr).toBe(0);
    const line = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(line).toMatchObject({
      type: "report",
      path: output,
      run_id: runIds[2],
      task_class: "upper",
      cases: 3,
      compressed: false,
    });
    const html = await readFile(output, "utf8");
    expect(line.bytes).toBe(Buffer.byteLength(html));
    expect(html).toContain(`<span data-field="run_id">${runIds[2]}</span>`);
    expect(html).toContain(`<span data-field="passed_count">3 / 3</span>`);
    expect(html).toContain(`data-tier="bronze"`);
    expect(html).toContain(`<span data-field="newly_passing">3</span>`);
    expect(html.match(/<circle class="bound"/g)).toHaveLength(3);
    const { data, recordedSha256, digestMatches } = readEmbeddedData(html);
    expect(line.data_sha256).toBe(recordedSha256);
    expect(digestMatches).toBe(true);
    expect(data.cases.map((c) => [c.case_id, c.cache_hit])).toEqual([
      ["a-1", true],
      ["a-2", true],
      ["b-1", true],
    ]);
    expect(data.cases[0]!.evidence!.executed_in_run).toBe(runIds[1]);
    expect(data.cases[0]!.baseline).toEqual({ score: 0, passed: false });
  });

  it("human format, a run by id, and one-line errors for an unknown run or baseline", async () => {
    const human = await invoke(["report", "--run", runIds[0]!, "--format", "human", "-o", "r.html", ...common()], {
      cwd: bench.root,
    });
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(
      new RegExp(
        `^report of run ${runIds[0]} \\(upper, 3 cases\\): .*r\\.html, \\d+ KiB, data sha256:[0-9a-f]{64}\\n$`,
      ),
    );
    const missing = await invoke(["report", "--run", "nope", ...common()], { cwd: bench.root });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^evalgate: no run nope is recorded in .*runs \(EVAL_REPORT_NOT_FOUND\); .*\n$/);
    const baseline = await invoke(["report", "--baseline", "nope", ...common()], { cwd: bench.root });
    expect(baseline.stderr).toMatch(/no run nope of upper is recorded/);
    const empty = await invoke(["report", "--out", join(bench.root, "empty")], { cwd: bench.root });
    expect(empty.stderr).toMatch(/no run is recorded in/);
  });
});

describe("evalgate show", () => {
  it("shows the newest run, one line per case, with its verdict", async () => {
    const result = await invoke(["show", ...common()], { cwd: bench.root });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`run ${runIds[2]} of upper: SUT module:`);
    expect(result.stdout).toContain("bronze: evidence NOT sufficient");
    expect(result.stdout).toMatch(/^a-1\s+pass\s+1\.000\s+hit\s*$/m);
  });

  it("shows a failed case with its failure modes and breakdown; a cache hit's evidence too; --format json", async () => {
    const failed = await invoke(["show", runIds[0]!, "--case", "a-2", ...common()], { cwd: bench.root });
    expect(failed.code, failed.stderr).toBe(0);
    expect(failed.stdout).toContain(`case a-2 of run ${runIds[0]} (upper): fail, score 0.000, held-out`);
    expect(failed.stdout).toContain("  wrong_text [block]");
    expect(failed.stdout).toContain("  quality 0");
    expect(failed.stdout).toContain("no transcript recorded for this case");
    const hit = await invoke(["show", runIds[2]!, "--case", "a-1", "--format", "json", ...common()], {
      cwd: bench.root,
    });
    expect(JSON.parse(hit.stdout)).toMatchObject({
      case_id: "a-1",
      cache_hit: true,
      evidence: { executed_in_run: runIds[1] },
    });
    const run = await invoke(["show", runIds[1]!, "--format", "json", ...common()], { cwd: bench.root });
    expect(JSON.parse(run.stdout).run.run_id).toBe(runIds[1]);
  });

  it("one line for an unknown case or format; no verdicts (with a warning) without a tier file", async () => {
    const unknown = await invoke(["show", "--case", "zzz", ...common()], { cwd: bench.root });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(
      /^evalgate: run .* has no case "zzz" \(EVAL_USAGE\); `evalgate show .*` lists its cases\n$/,
    );
    const format = await invoke(["show", "--format", "xml", ...common()], { cwd: bench.root });
    expect(format.stderr).toMatch(/--format must be human or json/);
    const noTiers = await invoke(["show", "--out", state, "--trust-tiers", join(bench.root, "none.yaml")], {
      cwd: bench.root,
    });
    expect(noTiers.code).toBe(0);
    expect(noTiers.stderr).toMatch(/no trust-tier file at .*none\.yaml/);
    expect(noTiers.stdout).not.toContain("bronze");
  });
});

describe("evalgate run CI outputs", () => {
  it("--junit and --summary-md write files; GITHUB_STEP_SUMMARY is appended to", async () => {
    await mkdir(join(bench.root, "ci"), { recursive: true });
    const step = join(bench.root, "ci", "step-summary.md");
    await writeFile(step, "earlier step\n");
    const result = await invoke(
      [
        "run",
        "--task-class",
        "upper",
        "--bench-root",
        bench.benchRoot,
        "--out",
        state,
        "--trust-tiers",
        tiers,
        "--sut",
        "module:sut.mjs#same",
        "--quiet",
        "--junit",
        "ci/junit.xml",
        "--summary-md",
        "ci/summary.md",
      ],
      { cwd: bench.root, env: { GITHUB_STEP_SUMMARY: step } },
    );
    expect(result.code, result.stderr).toBe(0);
    const junit = await readFile(join(bench.root, "ci", "junit.xml"), "utf8");
    expect(junit.match(/<testcase /g)).toHaveLength(3);
    expect(junit).toContain(`<failure message="score 0.000: wrong_text" type="wrong_text">`);
    const summary = await readFile(join(bench.root, "ci", "summary.md"), "utf8");
    expect(summary).toContain("### evalgate: upper: 0 of 3 cases passed");
    expect(summary).toContain("- **bronze**: evidence **NOT sufficient** (threshold 0.5)");
    expect(summary).toContain("| a-1 | fail | 0.000 | wrong\\_text |");
    expect(await readFile(step, "utf8")).toBe(`earlier step\n${summary}\n`);
  });

  it("an unwritable JUnit path is one warning naming the file; the recorded run keeps its exit code", async () => {
    await writeFile(join(bench.root, "blocker"), "a file");
    const result = await invoke(
      [
        "run",
        "--task-class",
        "upper",
        "--bench-root",
        bench.benchRoot,
        "--out",
        state,
        "--sut",
        "module:sut.mjs#same",
        "--quiet",
        "--junit",
        "blocker/junit.xml",
      ],
      { cwd: bench.root },
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(
      /"code":"run\.after_record".*writing its CI outputs and summary failed: cannot write .*blocker\/junit\.xml/,
    );
  });
});
