// What a SUT did, through the BUILT binary: a `command:` SUT's workspace diff and its output, recorded by
// the harness, in `show --case` and in the HTML report's embedded data.
import { execFile } from "node:child_process";
import { copyFile, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readEmbeddedData } from "@eval/reports";
import { checkJunit } from "@eval/test-utils";
import { makeUpperBench } from "./commands/run.test-helpers.ts";

const execFileAsync = promisify(execFile);
const bin = join(import.meta.dirname, "..", "dist", "bin.js");
let bench: { root: string; benchRoot: string; benchPath: string };
let state: string;

async function evalgate(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [bin, ...args], {
      cwd: bench.root,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

beforeAll(async () => {
  bench = await makeUpperBench({ "a-1": "alpha", "a-2": "beta", "b-1": "gamma", "b-2": "delta", "b-3": "epsilon" });
  state = join(bench.root, "state");
  // Upper-cases text.txt, adds a note, prints progress on stderr (with a terminal escape); a-2 crashes after writing.
  await writeFile(
    join(bench.root, "noisy.mjs"),
    `import { readFileSync, writeFileSync } from "node:fs";
const request = JSON.parse(readFileSync(0, "utf8"));
writeFileSync("text.txt", readFileSync("text.txt", "utf8").toUpperCase());
writeFileSync("NOTES.md", "why I changed it\\n");
process.stderr.write("working on " + request.case.case_id + " \\u001b[2J\\n");
if (request.case.case_id === "a-2") { process.stderr.write("giving up: out of ideas\\n"); process.exit(2); }
process.stdout.write(JSON.stringify({ cost_usd: 0 }));
`,
  );
}, 60_000);
afterAll(async () => {
  await rm(bench.root, { recursive: true, force: true });
});

describe("what a command: SUT did, through the built CLI", () => {
  it(
    "show --case prints the harness's diff and the SUT's stderr; the report embeds both",
    { timeout: 180_000 },
    async () => {
      const run = await evalgate(
        "run",
        "--task-class",
        "upper",
        "--bench-root",
        bench.benchRoot,
        "--out",
        state,
        "--sut",
        "command:node noisy.mjs",
        "--quiet",
      );
      expect(run.code, run.stderr).toBe(0);
      const shown = await evalgate("show", "--case", "a-1", "--out", state, "--bench-root", bench.benchRoot);
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout).toContain(
        "workspace diff (recorded by the harness): 2 file(s) changed\n  added    NOTES.md (17 bytes)\n  changed  text.txt (5 bytes)\n",
      );
      expect(shown.stdout).toContain("  --- a/text.txt\n  +++ b/text.txt\n");
      expect(shown.stdout).toContain("  -alpha\n");
      expect(shown.stdout).toContain("  +ALPHA\n");
      expect(shown.stdout).toContain("  +why I changed it\n");
      // The escape is shown, not obeyed.
      expect(shown.stdout).toContain("SUT stderr (20 bytes):\n  working on a-1 \\x1b[2J\n");
      expect(shown.stdout).toContain('SUT stdout (14 bytes):\n  {"cost_usd":0}\n');
      const crashed = await evalgate("show", "--case", "a-2", "--out", state, "--bench-root", bench.benchRoot);
      expect(crashed.stdout).toMatch(/SUT error: .*exited 2: giving up: out of ideas/);
      expect(crashed.stdout).toContain("  giving up: out of ideas\n");
      expect(crashed.stdout).toContain("  +BETA\n");
      const output = join(bench.root, "report.html");
      const report = await evalgate("report", "-o", output, "--out", state, "--bench-root", bench.benchRoot);
      expect(report.code, report.stderr).toBe(0);
      const { data } = readEmbeddedData(await readFile(output, "utf8"));
      const evidence = data.cases.find((c) => c.case_id === "a-1")!.evidence!;
      expect(evidence).toMatchObject({
        diff_source: "harness",
        changed_files: [
          { path: "NOTES.md", status: "added", bytes: 17 },
          { path: "text.txt", status: "changed", bytes: 5 },
        ],
        sut_stderr: { text: "working on a-1 \u001b[2J\n", bytes: 20, truncated: false },
      });
      expect(evidence.diff).toContain("+ALPHA");
    },
  );

  it(
    "rescore --run scores the recorded outputs with the changed rubric, without the SUT, as a new run naming the original",
    { timeout: 180_000 },
    async () => {
      const first = await evalgate(
        "run",
        "--task-class",
        "upper",
        "--bench-root",
        bench.benchRoot,
        "--out",
        state,
        "--sut",
        "command:node noisy.mjs",
        "--no-cache",
      );
      const original = JSON.parse(first.stdout.trim().split("\n").at(-1)!) as { run_id: string; passed_count: number };
      expect(original.passed_count).toBe(4);
      // The rubric now wants NOTES.md to start with "because" (the SUT wrote "why..."): half marks; the SUT's script is gone, so nothing can call it.
      const rubricPath = join(bench.benchPath, "rubric.ts");
      const rubric = await readFile(rubricPath, "utf8");
      await writeFile(
        rubricPath,
        rubric
          .replace('import { readFileSync } from "node:fs";', 'import { existsSync, readFileSync } from "node:fs";')
          .replace(
            "const score = same / expected.length;",
            'const score = existsSync(join(context.workspacePath, "NOTES.md")) && readFileSync(join(context.workspacePath, "NOTES.md"), "utf8").startsWith("because") ? same / expected.length : 0.5;',
          ),
      );
      const { signBench } = await import("@eval/registry");
      await signBench({ benchPath: bench.benchPath, name: "upper" });
      await rm(join(bench.root, "noisy.mjs"));
      const rescored = await evalgate(
        "rescore",
        "--run",
        original.run_id,
        "--out",
        state,
        "--bench-root",
        bench.benchRoot,
      );
      expect(rescored.code, rescored.stderr).toBe(0);
      const summary = JSON.parse(rescored.stdout.trim().split("\n").at(-1)!) as Record<string, unknown>;
      const a1 = JSON.parse(rescored.stdout.split("\n")[0]!) as { case_id: string; score: { score: number } };
      expect(a1).toMatchObject({ case_id: "a-1", score: { score: 0.5 } });
      expect(summary).toMatchObject({
        type: "run",
        sut_label: "command:node noisy.mjs",
        passed_count: 0,
        harness_errored_case_ids: ["a-2"],
        rescore_of: { run_id: original.run_id },
      });
      const missing = await evalgate(
        "rescore",
        "--run",
        "no-such-run",
        "--out",
        state,
        "--bench-root",
        bench.benchRoot,
      );
      expect(missing.code).toBe(1);
      expect(missing.stderr).toMatch(/^evalgate: no run no-such-run is recorded in .* \(EVAL_REPORT_NOT_FOUND\)/);
      const usage = await evalgate("rescore", "--out", state);
      expect(usage.code).toBe(1);
      expect(usage.stderr).toMatch(/needs --run <run-id>/);
      await writeFile(rubricPath, rubric);
      await signBench({ benchPath: bench.benchPath, name: "upper" });
    },
  );
});

describe("trials everywhere, through the built CLI", () => {
  it(
    "show lists every trial with k of n and the flaky mark, --trial shows the failing one; JUnit and the summary report the failing trials",
    { timeout: 240_000 },
    async () => {
      await copyFile(
        join(import.meta.dirname, "__fixtures__", "stochastic-sut.mjs"),
        join(bench.root, "stochastic-sut.mjs"),
      );
      const trialState = join(bench.root, "state-trials");
      const run = await evalgate(
        "run",
        "--task-class",
        "upper",
        "--bench-root",
        bench.benchRoot,
        "--out",
        trialState,
        "--sut",
        "command:node stochastic-sut.mjs 0.5",
        "--trials",
        "3",
        "--quiet",
        "--junit",
        "ci/junit.xml",
        "--summary-md",
        "ci/summary.md",
      );
      expect(run.code, run.stderr).toBe(0);
      const summary = JSON.parse(run.stdout.trim().split("\n").at(-1)!) as {
        run_id: string;
        reliability: { flaky_case_ids: string[]; pass_at_1: number; pass_hat_k: number };
      };
      expect(summary.reliability.flaky_case_ids.length, run.stdout).toBeGreaterThan(0);
      const flaky = summary.reliability.flaky_case_ids[0]!;
      const shown = await evalgate("show", "--case", flaky, "--out", trialState, "--bench-root", bench.benchRoot);
      expect(shown.code, shown.stderr).toBe(0);
      const trialLines = shown.stdout.split("\n").filter((line) => /^ {2}trial \d {2}/.test(line));
      expect(trialLines).toHaveLength(3);
      expect(shown.stdout).toMatch(/^trials: [12] of 3 passed \(FLAKY: the trials disagree\)$/m);
      const failing = trialLines.find((line) => / fail /.test(line))!;
      const failingTrial = Number(/trial (\d)/.exec(failing)![1]);
      expect(failing).toContain("wrong_text");
      const one = await evalgate(
        "show",
        "--case",
        flaky,
        "--trial",
        String(failingTrial),
        "--out",
        trialState,
        "--bench-root",
        bench.benchRoot,
      );
      expect(one.code, one.stderr).toBe(0);
      expect(one.stdout).toMatch(
        new RegExp(
          `^case ${flaky} trial ${failingTrial} \\(of 3\\) of run ${summary.run_id} \\(upper\\): fail, score 0\\.000`,
        ),
      );
      expect(one.stdout).toContain("  wrong_text [block]");
      expect(one.stdout).toContain("workspace diff (recorded by the harness): no file changed");
      const bad = await evalgate(
        "show",
        "--case",
        flaky,
        "--trial",
        "7",
        "--out",
        trialState,
        "--bench-root",
        bench.benchRoot,
      );
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(/^evalgate: case .* has no trial "7": it ran 3 trials \(0 to 2\)/m);
      // JUnit: a case fails when any trial failed, with each failing trial's modes; the file validates.
      const junit = await readFile(join(bench.root, "ci", "junit.xml"), "utf8");
      const checked = await checkJunit(junit);
      expect(checked.errors).toEqual([]);
      expect(checked.declared).toEqual(checked.counted);
      expect(checked.declared.tests).toBe(5);
      expect(checked.declared.failures).toBe(
        5 - (JSON.parse(run.stdout.trim().split("\n").at(-1)!) as { passed_count: number }).passed_count,
      );
      const testcase = new RegExp(
        `<testcase [^>]*name="${flaky}"[^>]*>\\n\\s*<failure message="([12]) of 3 trials passed \\(flaky\\): wrong_text" type="wrong_text">([^<]*)</failure>`,
      ).exec(junit);
      expect(testcase).not.toBeNull();
      expect(testcase![2]).toContain(`trial ${failingTrial}: fail, score 0 (passed: false)\n  wrong_text [block]`);
      const md = await readFile(join(bench.root, "ci", "summary.md"), "utf8");
      expect(md).toContain(
        `3 trials per case: pass@1 **${summary.reliability.pass_at_1.toFixed(4)}**, pass^3 **${summary.reliability.pass_hat_k.toFixed(4)}**`,
      );
      expect(md).toContain(
        `Flaky (trials disagree): ${summary.reliability.flaky_case_ids.map((id) => `\`${id}\``).join(", ")}.`,
      );
      expect(md).toMatch(
        new RegExp(
          `\\| ${flaky.replace("-", "\\-")} \\| fail \\| [0-9.]+ \\| [12] of 3 \\(flaky\\) \\| wrong\\\\_text \\|`,
        ),
      );
      // The report embeds every trial's own evidence.
      const output = join(bench.root, "trials.html");
      expect((await evalgate("report", "-o", output, "--out", trialState, "--bench-root", bench.benchRoot)).code).toBe(
        0,
      );
      const { data } = readEmbeddedData(await readFile(output, "utf8"));
      const reportCase = data.cases.find((c) => c.case_id === flaky)!;
      expect(reportCase.trial_runs!.map((t) => t.trial)).toEqual([0, 1, 2]);
      expect(reportCase.trial_runs![failingTrial]!.evidence!.sut_stdout!.text).toContain('"solved":false');
    },
  );
});
