// Must-show: a run killed with SIGKILL at random moments leaves state (cache, chain) that later runs
// use without error.
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EvalWarning } from "@eval/errors";
import { makeTaskClassBench, UPPER_RUBRIC } from "./bench.test-helpers.ts";
import { moduleSut, runEval } from "./index.ts";

let root: string;
let bench: { benchRoot: string; slug: string };

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "evalgate-kill9-"));
  bench = await makeTaskClassBench(root, {
    rubric: UPPER_RUBRIC,
    cases: Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`k-${i}`, `text number ${i}`])),
  });
  await writeFile(
    join(root, "sut.mjs"),
    `import { readFileSync, writeFileSync } from "node:fs";
     export async function slowUpper(invocation) {
       await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 80));
       const path = invocation.workspacePath + "/text.txt";
       writeFileSync(path, readFileSync(path, "utf8").toUpperCase());
       return { cost_usd: 0 };
     }`,
  );
  await writeFile(
    join(root, "run.ts"),
    `import { moduleSut, runEval } from ${JSON.stringify(pathToFileURL(join(import.meta.dirname, "index.ts")).href)};
     await runEval(${JSON.stringify(bench.slug)}, { systemUnderTest: await moduleSut(${JSON.stringify(join(root, "sut.mjs#slowUpper"))}), benchRoot: ${JSON.stringify(bench.benchRoot)}, stateDir: ${JSON.stringify(join(root, "state"))}, concurrency: 2 });
     process.stdout.write("done\\n");`,
  );
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("kill -9 at random moments", () => {
  it("leaves a cache and chain that the next run uses without error", async () => {
    let finished = 0;
    for (let round = 0; round < 8; round += 1) {
      const child = spawn(process.execPath, [join(root, "run.ts")], { stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      await Promise.race([new Promise((resolve) => setTimeout(resolve, 500 + Math.random() * 5000)), exited]);
      child.kill("SIGKILL");
      await exited;
      if (stdout.includes("done")) finished += 1;
    }
    const warnings: EvalWarning[] = [];
    const result = await runEval(bench.slug, {
      systemUnderTest: await moduleSut(join(root, "sut.mjs#slowUpper")),
      benchRoot: bench.benchRoot,
      stateDir: join(root, "state"),
      onWarning: (warning) => warnings.push(warning),
    });
    expect(result.report.complete).toBe(true);
    expect(result.report.per_case.every((c) => c.score.score === 1)).toBe(true);
    expect(warnings.filter((w) => w.code === "cache.corrupt_entry")).toEqual([]);
    // Killed runs got some cases into the cache (or finished outright), and this run reused them.
    expect(result.caseResults.some((r) => r.cacheHit) || finished > 0).toBe(true);
    const again = await runEval(bench.slug, {
      systemUnderTest: await moduleSut(join(root, "sut.mjs#slowUpper")),
      benchRoot: bench.benchRoot,
      stateDir: join(root, "state"),
    });
    expect(again.caseResults.every((r) => r.cacheHit)).toBe(true);
  }, 180_000);
});
