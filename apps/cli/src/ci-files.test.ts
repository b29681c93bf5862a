// CI files through the BUILT binary: JUnit and the Markdown summary from a merge of shards (complete, and
// incomplete with --allow-incomplete), from a cost-capped run, and a shard refusing them. Every JUnit file is
// validated against the JUnit schema and its counts checked against the run.
import { execFile } from "node:child_process";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkJunit } from "@eval/test-utils";
import { makeUpperBench } from "./commands/run.test-helpers.ts";

const execFileAsync = promisify(execFile);
const bin = join(import.meta.dirname, "..", "dist", "bin.js");
let bench: { root: string; benchRoot: string; benchPath: string };

async function evalgate(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [bin, ...args], {
      cwd: bench.root,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const lastJson = (stdout: string): Record<string, unknown> =>
  JSON.parse(stdout.trim().split("\n").at(-1)!) as Record<string, unknown>;

beforeAll(async () => {
  bench = await makeUpperBench({ "c-1": "alpha", "c-2": "beta", "c-3": "gamma", "c-4": "delta" });
}, 60_000);
afterAll(async () => {
  await rm(bench.root, { recursive: true, force: true });
});

describe("CI files from merges and incomplete runs", () => {
  it(
    "merge --junit --summary-md writes the merged run's files (missing shards' cases skipped with the reason); a shard refuses them",
    { timeout: 300_000 },
    async () => {
      const sut = "module:sut.mjs#upper";
      const planned = await evalgate([
        "plan",
        "--task-class",
        "upper",
        "--sut",
        sut,
        "--bench-root",
        bench.benchRoot,
        "--output",
        "plan.json",
      ]);
      expect(planned.code, planned.stderr).toBe(0);
      const refused = await evalgate([
        "run",
        "--plan",
        "plan.json",
        "--shard",
        "1/2",
        "--bench-root",
        bench.benchRoot,
        "--junit",
        "j.xml",
      ]);
      expect(refused.code).toBe(1);
      expect(refused.stderr.trim().split("\n")).toHaveLength(1);
      expect(refused.stderr).toMatch(
        /^evalgate: a shard writes a bundle, not a run: pass --junit and --summary-md to `evalgate merge`, which records the run \(EVAL_USAGE\)/,
      );
      for (const shard of ["1/2", "2/2"]) {
        const ran = await evalgate([
          "run",
          "--plan",
          "plan.json",
          "--shard",
          shard,
          "--bench-root",
          bench.benchRoot,
          "--bundle",
          `bundle-${shard[0]}`,
          "--quiet",
        ]);
        expect(ran.code, ran.stderr).toBe(0);
      }
      // Only the first shard's bundle: an incomplete merge.
      await mkdir(join(bench.root, "ci-partial"));
      const partial = await evalgate([
        "merge",
        "bundle-1",
        "--allow-incomplete",
        "--out",
        "state-partial",
        "--bench-root",
        bench.benchRoot,
        "--junit",
        "ci-partial/junit.xml",
        "--summary-md",
        "ci-partial/summary.md",
      ]);
      expect(partial.code, partial.stderr).toBe(0);
      const partialLine = lastJson(partial.stdout) as { complete: boolean; scored: number; missing: string[] };
      expect(partialLine.complete).toBe(false);
      const junit = await checkJunit(await readFile(join(bench.root, "ci-partial", "junit.xml"), "utf8"));
      expect(junit.errors).toEqual([]);
      expect(junit.declared).toEqual(junit.counted);
      expect(junit.declared).toEqual({ tests: 4, failures: 0, errors: 0, skipped: 4 - partialLine.scored });
      expect(junit.declared.skipped).toBe(partialLine.missing.length);
      const partialXml = await readFile(join(bench.root, "ci-partial", "junit.xml"), "utf8");
      expect(partialXml).toContain(
        `<skipped message="not scored: the merge was missing shards&#39; units (--allow-incomplete)"/>`,
      );
      const partialMd = await readFile(join(bench.root, "ci-partial", "summary.md"), "utf8");
      expect(partialMd).toMatch(/^### evalgate: upper: \d of 4 cases passed \(INCOMPLETE\)\n/);
      expect(partialMd).toContain(
        `**Incomplete**: the merge was missing shards' units (--allow-incomplete); ${partialLine.scored} of 4 selected cases were scored`,
      );
      // Both bundles: complete, and $GITHUB_STEP_SUMMARY appended to.
      const step = join(bench.root, "step-summary.md");
      await writeFile(step, "earlier step\n");
      const full = await evalgate(
        [
          "merge",
          "bundle-1",
          "bundle-2",
          "--out",
          "state-full",
          "--bench-root",
          bench.benchRoot,
          "--junit",
          "ci-full/junit.xml",
        ],
        { GITHUB_STEP_SUMMARY: step },
      );
      expect(full.code, full.stderr).toBe(0);
      const fullJunit = await checkJunit(await readFile(join(bench.root, "ci-full", "junit.xml"), "utf8"));
      expect(fullJunit.errors).toEqual([]);
      expect(fullJunit.declared).toEqual({ tests: 4, failures: 0, errors: 0, skipped: 0 });
      expect(fullJunit.counted).toEqual(fullJunit.declared);
      const stepText = await readFile(step, "utf8");
      expect(stepText).toMatch(/^earlier step\n### evalgate: upper: 4 of 4 cases passed\n/);
    },
  );

  it(
    "a cost-capped run's JUnit lists the cancelled cases as skipped with the reason; the summary says why it is incomplete and marks a subset",
    { timeout: 300_000 },
    async () => {
      // upper.mjs reports $1 a case: a cap of $1.5 lets two cases start (one at a time), then stops.
      const run = await evalgate([
        "run",
        "--task-class",
        "upper",
        "--bench-root",
        bench.benchRoot,
        "--out",
        "state-cap",
        "--sut",
        "command:node upper.mjs",
        "--cases",
        "c-*",
        "--concurrency",
        "1",
        "--max-cost-usd",
        "1.5",
        "--quiet",
        "--junit",
        "ci-cap/junit.xml",
        "--summary-md",
        "ci-cap/summary.md",
      ]);
      expect(run.code, run.stderr).toBe(2);
      const summary = lastJson(run.stdout) as { complete: boolean; scored: number; case_count: number };
      expect(summary).toMatchObject({ complete: false, case_count: 4 });
      const xml = await readFile(join(bench.root, "ci-cap", "junit.xml"), "utf8");
      const junit = await checkJunit(xml);
      expect(junit.errors).toEqual([]);
      expect(junit.declared).toEqual({ tests: 4, failures: 0, errors: 0, skipped: 4 - summary.scored });
      expect(junit.counted).toEqual(junit.declared);
      expect(junit.declared.skipped).toBeGreaterThan(0);
      expect(xml).toContain(`<skipped message="not scored: the run stopped at its cost cap (--max-cost-usd)"/>`);
      const md = await readFile(join(bench.root, "ci-cap", "summary.md"), "utf8");
      expect(md).toContain(
        `**Incomplete**: the run stopped at its cost cap (--max-cost-usd); ${summary.scored} of 4 selected cases were scored, the rest are skipped.`,
      );
      // A subset (one case of four) is marked as one.
      const subset = await evalgate([
        "run",
        "--task-class",
        "upper",
        "--bench-root",
        bench.benchRoot,
        "--out",
        "state-cap",
        "--sut",
        "module:sut.mjs#upper",
        "--cases",
        "c-1",
        "--quiet",
        "--summary-md",
        "ci-cap/subset.md",
      ]);
      expect(subset.code, subset.stderr).toBe(0);
      const subsetMd = await readFile(join(bench.root, "ci-cap", "subset.md"), "utf8");
      expect(subsetMd).toMatch(/^### evalgate: upper: 1 of 1 cases passed \(SUBSET\)\n/);
      expect(subsetMd).toContain(
        "**Subset**: 1 of the 4 cases of the task class (filter c-1): it cannot support a promotion.",
      );
      // A file that miscounts does not validate as equal counts: the check can fail.
      const broken = await checkJunit(xml.replace(/skipped="\d+"/, 'skipped="x"'));
      expect(broken.errors.length).toBeGreaterThan(0);
    },
  );
});
