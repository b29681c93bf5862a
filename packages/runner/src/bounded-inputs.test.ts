// Bounded inputs: a run never plans more trials, units or parallel cases than it can carry. Before,
// `--trials 1e9` printed nothing and grew about 20 MB/s until killed, and `--concurrency 1e9` was taken as given.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { EvalWarning } from "@eval/errors";
import { afterAll, describe, expect, it } from "vitest";
import { makeTaskClassBench, UPPER_RUBRIC } from "./bench.test-helpers.ts";
import { moduleSut, runEval } from "./index.ts";
import { RUN_LIMITS } from "@eval/models/defaults";
import { concurrencyCapacity, runSettingsOf } from "./prepare-run.ts";

const { maxTrials: MAX_TRIALS, maxUnitsPerRun: MAX_UNITS_PER_RUN } = RUN_LIMITS;

let root: string | undefined;
afterAll(async () => {
  if (root !== undefined) await rm(root, { recursive: true, force: true });
});

describe("run settings", () => {
  it("refuses trials past the limit in one line, and a concurrency that is not a whole number", () => {
    expect(() => runSettingsOf({ trials: 1e9 })).toThrow(
      expect.objectContaining({
        code: "EVAL_USAGE",
        message: `--trials must be a whole number >= 1 and at most ${MAX_TRIALS}, got 1000000000`,
      }),
    );
    expect(() => runSettingsOf({ trials: MAX_TRIALS + 1 })).toThrow(/at most 1000, got 1001/);
    expect(runSettingsOf({ trials: MAX_TRIALS }).concurrency).toBeGreaterThanOrEqual(1);
    expect(() => runSettingsOf({ concurrency: 1.5 })).toThrow("--concurrency must be a whole number >= 1, got 1.5");
    expect(() => runSettingsOf({ concurrency: 2 ** 60 })).toThrow(/--concurrency must be a whole number/);
  });

  it("caps a concurrency above the machine's capacity, with a warning", () => {
    const warnings: EvalWarning[] = [];
    const settings = runSettingsOf({ concurrency: 1e9, onWarning: (warning) => warnings.push(warning) });
    expect(settings.concurrency).toBe(concurrencyCapacity());
    expect(warnings.map((warning) => warning.code)).toEqual(["run.concurrency_capped"]);
    expect(runSettingsOf({ concurrency: concurrencyCapacity() }).concurrency).toBe(concurrencyCapacity());
    expect(concurrencyCapacity(1)).toBe(16);
    expect(concurrencyCapacity(32)).toBe(128);
  });

  it("refuses a run of more units than one run makes, before anything runs or is written", async () => {
    root = await mkdtemp(join(tmpdir(), "evalgate-bounded-"));
    const cases = Object.fromEntries(
      Array.from({ length: Math.floor(MAX_UNITS_PER_RUN / MAX_TRIALS) + 1 }, (_, i) => [
        `c-${String(i).padStart(3, "0")}`,
        `t${i}`,
      ]),
    );
    const bench = await makeTaskClassBench(root, { rubric: UPPER_RUBRIC, cases });
    const stateDir = join(root, "state");
    const { existsSync, readdirSync, writeFileSync } = await import("node:fs");
    writeFileSync(join(root, "sut.mjs"), "export async function noop() { return {}; }\n");
    const started = Date.now();
    const error = await runEval(bench.slug, {
      systemUnderTest: await moduleSut(`${join(root, "sut.mjs")}#noop`),
      benchRoot: bench.benchRoot,
      stateDir,
      sandbox: "none",
      trials: MAX_TRIALS,
    }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      code: "EVAL_USAGE",
      message: `101 cases x 1000 trials = 101000 units, more than one run makes (${MAX_UNITS_PER_RUN})`,
    });
    expect(Date.now() - started).toBeLessThan(60_000);
    const runs = join(stateDir, "runs");
    expect(
      existsSync(runs) ? readdirSync(runs).filter((name) => name.endsWith(".json") || /^\d{8}T/.test(name)) : [],
    ).toEqual([]);
  }, 120_000);
});
