// The at-a-glance summary `evalgate run --format human` ends with, through the BUILT binary: a verdict line
// per tier, the bound, the pass rate, the failing cases with their modes, an incomplete run's reason and
// count, and where the record and report are (the printed report command works as printed).
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeUpperBench } from "./commands/run.test-helpers.ts";

const execFileAsync = promisify(execFile);
const bin = join(import.meta.dirname, "..", "dist", "bin.js");
let bench: { root: string; benchRoot: string; benchPath: string };

async function evalgate(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
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

/** The lines after the summary rule. */
const summaryOf = (stdout: string): string[] => {
  const lines = stdout.split("\n");
  const at = lines.findIndex((line) => line.startsWith("-- summary "));
  expect(at, stdout).toBeGreaterThan(-1);
  return lines.slice(at + 1).filter((line) => line !== "");
};

const TIERS = `schema_version: evalgate.trust_tiers.v1
calibrated: false
tiers:
  - { name: untrusted, threshold: 0.0, min_cases: 0, min_held_out: 0, description: everything reviewed }
  - { name: bronze, threshold: 0.5, min_cases: 1, min_held_out: 0, description: pull requests }
  - { name: silver, threshold: 0.8, min_cases: 1, min_held_out: 0, description: spot checks }
current:
  upper: untrusted
`;

beforeAll(async () => {
  bench = await makeUpperBench({ "c-1": "alpha", "c-2": "beta", "c-3": "gamma", "c-4": "delta" });
  await writeFile(join(bench.root, "tiers.yaml"), TIERS);
}, 60_000);
afterAll(async () => {
  await rm(bench.root, { recursive: true, force: true });
});

describe("evalgate run's at-a-glance summary", () => {
  it(
    "a verdict line per tier, bound, pass rate, the failing cases with modes, the record and a report command that works",
    { timeout: 300_000 },
    async () => {
      // `same` leaves every text as it was: every case fails with wrong_text.
      const ran = await evalgate([
        "run",
        "--task-class",
        "upper",
        "--bench-root",
        bench.benchRoot,
        "--out",
        "state",
        "--trust-tiers",
        "tiers.yaml",
        "--sut",
        "module:sut.mjs#same",
        "--format",
        "human",
        "--quiet",
      ]);
      expect(ran.code, ran.stderr).toBe(0);
      const summary = summaryOf(ran.stdout);
      expect(summary[0]).toMatch(/^verdict {4}FAIL untrusted -> bronze: \S/);
      expect(summary[1]).toMatch(/^ {11}FAIL untrusted -> silver: \S/);
      expect(summary[2]).toMatch(/^bound {6}0\.000: one-sided 95% lower bound of the mean score \(betting\)$/);
      expect(summary[3]).toBe("pass rate  0.000 (0 of 4 scored cases passed); mean score 0.000");
      expect(summary[4]).toBe("failing    4 of 4 scored cases");
      expect(summary.slice(5, 9)).toEqual(
        ["c-1", "c-2", "c-3", "c-4"].map((id) => `           ${id}  fail  wrong_text`),
      );
      const record = summary.find((line) => line.startsWith("record "))!.slice(11);
      expect(existsSync(join(bench.root, record)) || existsSync(record)).toBe(true);
      const reportLine = summary.find((line) => line.startsWith("report "))!;
      const command = /evalgate (report --run \S+ -o report\.html)/.exec(reportLine)![1]!.split(" ");
      const report = await evalgate([
        ...command,
        "--out",
        "state",
        "--bench-root",
        bench.benchRoot,
        "--trust-tiers",
        "tiers.yaml",
      ]);
      expect(report.code, report.stderr).toBe(0);
      expect(existsSync(join(bench.root, "report.html"))).toBe(true);
      // A machine format gets no glance.
      const jsonl = await evalgate([
        "run",
        "--task-class",
        "upper",
        "--bench-root",
        bench.benchRoot,
        "--out",
        "state",
        "--trust-tiers",
        "tiers.yaml",
        "--sut",
        "module:sut.mjs#upper",
        "--quiet",
      ]);
      expect(jsonl.code, jsonl.stderr).toBe(0);
      expect(jsonl.stdout).not.toContain("-- summary");
      for (const line of jsonl.stdout.trim().split("\n")) expect(() => JSON.parse(line) as unknown).not.toThrow();
    },
  );

  it(
    "no tier file: the verdict line says why (not a warning); a cost-capped run says INCOMPLETE, why, and how many were not scored",
    { timeout: 300_000 },
    async () => {
      // upper.mjs reports $1 a case: a cap of $1.5 lets two cases start (one at a time), then stops.
      const ran = await evalgate([
        "run",
        "--task-class",
        "upper",
        "--bench-root",
        bench.benchRoot,
        "--out",
        "state-cap",
        "--trust-tiers",
        "missing.yaml",
        "--sut",
        "command:node upper.mjs",
        "--concurrency",
        "1",
        "--max-cost-usd",
        "1.5",
        "--format",
        "human",
        "--quiet",
      ]);
      expect(ran.code, ran.stderr).toBe(2);
      expect(ran.stderr).not.toContain("no trust-tier file");
      const summary = summaryOf(ran.stdout);
      expect(summary[0]).toBe(`verdict    none: no trust-tier file at ${join(bench.root, "missing.yaml")}`);
      expect(summary.find((line) => line.startsWith("pass rate"))).toBe(
        "pass rate  1.000 (2 of 2 scored cases passed, 4 selected); mean score 1.000",
      );
      expect(summary).toContain("failing    none");
      expect(summary).toContain(
        "INCOMPLETE the run stopped at its cost cap (--max-cost-usd): 2 of 4 selected cases not scored; it cannot support a promotion",
      );
    },
  );
});
