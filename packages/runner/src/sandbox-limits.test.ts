// A task class's `limits` and the run's flags set what a sandboxed SUT and rubric run under: the defaults,
// then the task class, then the flags; the report records the values, and the flags key the SUT's digest
// (a failure cached under one limit is not served under another).
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultLimits, sandboxSupport } from "@eval/sandbox";
import { makeTaskClassBench, UPPER_RUBRIC } from "./bench.test-helpers.ts";
import { runEval } from "./index.ts";
import { sandboxLimits } from "./sandbox-limits.ts";
import { sutFromSpec } from "./sut-spec.ts";

const MIB = 1024 * 1024;
let root: string;
let bench: { benchRoot: string; benchPath: string; slug: string };

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "evalgate-limits-"));
  bench = await makeTaskClassBench(root, { slug: "limited", rubric: UPPER_RUBRIC, cases: { "l-1": "alpha" } });
  await writeFile(
    join(bench.benchPath, "registration.ts"),
    `import { registerTaskClass } from "@eval/registry";\nexport default registerTaskClass("limited", { min_cases_for_promotion: { bronze: 1 }, limits: { sut: { memory: "128MiB", pids: 48 }, rubric: { pids: 512 } } });\n`,
  );
  const { signBench } = await import("@eval/registry");
  await signBench({ benchPath: bench.benchPath, name: "limited" });
  await writeFile(
    join(root, "bomb.sh"),
    `cat > /dev/null\n/usr/bin/python3 -c 'x = []\nwhile True: x.append(bytearray(16 << 20))'\n`,
  );
}, 60_000);
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("sandboxLimits", () => {
  it("the defaults, then each override in order, each replacing only what it names", () => {
    expect(sandboxLimits()).toEqual(defaultLimits());
    expect(sandboxLimits(undefined, { pids: 99 }, { memory: 100 * MIB }, { pids: 77 })).toEqual({
      ...defaultLimits(),
      pids: 77,
      memoryBytes: 100 * MIB,
    });
  });
});

describe.runIf(sandboxSupport().available && process.getuid?.() === 0)("a task class's limits and the flags", () => {
  const run = (flags?: { memory?: number; disk?: number }, script = "bomb.sh") =>
    runEval(bench.slug, {
      systemUnderTest: sutFromSpec(`command:/bin/sh ${join(root, script)}`, {
        cwd: root,
        benchRoot: bench.benchRoot,
        stateDir: join(root, "state"),
        env: process.env,
        ...(flags === undefined ? {} : { limits: flags }),
      }),
      benchRoot: bench.benchRoot,
      stateDir: join(root, "state"),
      concurrency: 1,
    });

  it("apply to the SUT and the rubric, are recorded, and the flags' key the SUT's cached outcome", async () => {
    const first = await run();
    const failure = first.report.per_case[0]!.score.failure_modes[0]!;
    expect(failure.code).toBe("sut.resource_limit");
    expect(failure.detail).toMatch(/memory limit \(128 MiB\) reached, enforced by cgroup/);
    expect(first.report.resource_limit_values).toEqual({
      sut: { pids: 48, memory_bytes: 128 * MIB, disk_bytes: defaultLimits().diskBytes },
      rubric: { pids: 512, memory_bytes: defaultLimits().memoryBytes, disk_bytes: defaultLimits().diskBytes },
    });
    // The same run again: the SUT's own failure is served from the cache.
    expect((await run()).caseResults[0]!.cacheHit).toBe(true);
    // A flag raises the memory: another SUT digest, no cache hit, run under the new limit.
    const raised = await run({ memory: 192 * MIB });
    expect(raised.report.sut_digest).not.toBe(first.report.sut_digest);
    expect(raised.caseResults[0]!.cacheHit).toBe(false);
    expect(raised.report.per_case[0]!.score.failure_modes[0]!.detail).toMatch(/memory limit \(192 MiB\) reached/);
    expect(raised.report.resource_limit_values?.sut?.memory_bytes).toBe(192 * MIB);
  }, 180_000);

  it("the disk limit also bounds the workspace's total: three 1 MiB files under a 2 MiB limit", async () => {
    await writeFile(
      join(root, "fill.sh"),
      "cat > /dev/null\nfor i in 1 2 3; do head -c 1048576 /dev/zero > f$i; done; echo '{}'\n",
    );
    const result = await run({ disk: 2 * MIB }, "fill.sh");
    const failure = result.report.per_case[0]!.score.failure_modes[0]!;
    expect(failure.code).toBe("sut.resource_limit");
    expect(failure.detail).toMatch(/^disk limit reached: more than 2097152 bytes in files/);
  }, 120_000);
});
