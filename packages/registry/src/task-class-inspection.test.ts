import { rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeFixtureBench, type FixtureBench } from "./fixture-bench.test-helpers.ts";
import { inspectTaskClass } from "./task-class-inspection.ts";
import { importRegistration, loadTaskClass } from "./task-class-loader.ts";
import { TaskClassRegistry } from "./task-class-registry.ts";

let fixture: FixtureBench | undefined;
afterEach(() => fixture?.cleanup());

// One set of task-class checks: inspectTaskClass collects every problem (what the fence reports), and
// the loader throws the first of the same list.
describe("inspectTaskClass", () => {
  it("collects every problem, and the loader throws the first of them", async () => {
    fixture = await makeFixtureBench();
    const name = basename(fixture.benchPath);
    rmSync(join(fixture.benchPath, "README.md"));
    writeFileSync(
      join(fixture.benchPath, "failure_modes.yaml"),
      "rubric.mine: { severity: block, description: reserved }\n",
    );
    const inspection = await inspectTaskClass(fixture.benchRoot, await importRegistration(fixture.benchRoot, name));
    expect(inspection.located).toBe(true);
    expect(inspection.findings.map((f) => [f.assertion, f.error.code])).toEqual([
      ["directory-contract", "EVAL_TASK_CLASS_INCOMPLETE"],
      ["failure-modes", "EVAL_TASK_CLASS_INVALID"],
    ]);
    expect(inspection.breakdownKeys).toBeNull();
    await expect(
      loadTaskClass(name, { benchRoot: fixture.benchRoot, registry: new TaskClassRegistry() }),
    ).rejects.toMatchObject({
      code: inspection.findings[0]!.error.code,
      message: inspection.findings[0]!.error.message,
    });
  });

  it("returns the validated keys and taxonomy of a sound class, with no findings", async () => {
    fixture = await makeFixtureBench();
    const inspection = await inspectTaskClass(
      fixture.benchRoot,
      await importRegistration(fixture.benchRoot, basename(fixture.benchPath)),
    );
    expect(inspection.findings).toEqual([]);
    expect(inspection.breakdownKeys?.size).toBeGreaterThan(0);
    expect(Object.keys(inspection.failureModes ?? {}).length).toBeGreaterThan(0);
  });
});
