// The hint of EVAL_TASK_CLASS_INVALID names the file at fault, or the install command when a bench file
// cannot import its dependencies (was: "fix registration.ts" for both), in the project's package manager.
import { spawnSync } from "node:child_process";
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ignoreWarnings } from "@eval/errors";
import { makeFixtureBench } from "./fixture-bench.test-helpers.ts";
import type { FixtureBench } from "./fixture-bench.test-helpers.ts";
import { loadTaskClass, TaskClassInvalid, TaskClassRegistry } from "./index.ts";

let bench: FixtureBench | undefined;
afterEach(() => bench?.cleanup());

const load = (benchRoot: string) =>
  loadTaskClass("uppercase", { benchRoot, registry: new TaskClassRegistry(), onWarning: ignoreWarnings });

describe("TaskClassInvalid's hint", () => {
  it("names failure_modes.yaml when that file is wrong", async () => {
    bench = await makeFixtureBench();
    appendFileSync(join(bench.benchPath, "failure_modes.yaml"), "bad_mode:\n  severity: blocker\n  description: x\n");
    await expect(load(bench.benchRoot)).rejects.toMatchObject({
      code: "EVAL_TASK_CLASS_INVALID",
      message: expect.stringMatching(/failure_modes\.yaml: bad_mode\.severity/),
      hint: "fix failure_modes.yaml as described; docs/bench-authoring.md lists the contract",
    });
  });

  it("says to install when registration.ts cannot import @eval/registry (a bench created since the last install)", async () => {
    bench = await makeFixtureBench();
    rmSync(join(bench.root, "node_modules"), { recursive: true, force: true });
    // In a plain Node process: under vitest the module runner would resolve @eval/registry anyway.
    const script = `import { loadTaskClass, TaskClassRegistry } from ${JSON.stringify(join(import.meta.dirname, "index.ts"))};
      try { await loadTaskClass("uppercase", { benchRoot: ${JSON.stringify(bench.benchRoot)}, registry: new TaskClassRegistry() }); }
      catch (error) { console.log(JSON.stringify({ code: error.code, message: error.message, hint: error.hint })); }`;
    const child = spawnSync(process.execPath, ["--conditions=@eval/source", "--input-type=module", "-e", script], {
      encoding: "utf8",
    });
    const error = JSON.parse(child.stdout) as { code: string; message: string; hint: string };
    expect(error.code, child.stderr).toBe("EVAL_TASK_CLASS_INVALID");
    expect(error.message).toMatch(/registration\.ts: cannot be imported: Cannot find package '@eval\/registry'/);
    // The fixture's bench package declares it as workspace:^ (a pnpm workspace), and no lockfile is above it.
    expect(error.hint).toBe(
      "run `pnpm install` in your project: the bench's package.json declares @eval/registry, which an install links; docs/bench-authoring.md",
    );
  });

  it("in the package manager of the nearest lockfile: add when undeclared, install when declared, this repository's set-up script here", () => {
    const root = mkdtempSync(join(tmpdir(), "evalgate-hint-"));
    try {
      mkdirSync(join(root, "bench", "mine"), { recursive: true });
      writeFileSync(join(root, "yarn.lock"), "");
      const registration = join(root, "bench", "mine", "registration.ts");
      const missing = "cannot be imported: Cannot find package '@eval/registry' imported from x";
      expect(new TaskClassInvalid(registration, missing).hint).toBe(
        `run \`yarn add -D @eval/registry\` in ${root}: the bench imports it; docs/bench-authoring.md`,
      );
      writeFileSync(
        join(root, "bench", "mine", "package.json"),
        JSON.stringify({ devDependencies: { "@eval/registry": "^0.1.0" } }),
      );
      expect(new TaskClassInvalid(registration, missing).hint).toBe(
        `run \`yarn install\` in ${root}: the bench's package.json declares @eval/registry, which an install links; docs/bench-authoring.md`,
      );
      writeFileSync(join(root, "bench", "mine", "package.json"), "{ not json");
      expect(new TaskClassInvalid(registration, missing).hint).toMatch(/^run `yarn add -D @eval\/registry`/);
      const repo = join(import.meta.dirname, "..", "..", "..");
      expect(new TaskClassInvalid(join(repo, "bench", "new-class", "registration.ts"), missing).hint).toBe(
        `run \`./scripts/setup.sh\` in ${repo}: it installs every workspace package's dependencies (@eval/registry), bench packages included; docs/bench-authoring.md`,
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("names the file for any other reason, and never suggests install for a relative import", () => {
    expect(new TaskClassInvalid("/b/x/breakdown-keys.ts", "must export const BREAKDOWN_KEYS").hint).toBe(
      "fix breakdown-keys.ts as described; docs/bench-authoring.md lists the contract",
    );
    expect(
      new TaskClassInvalid(
        "/b/x/registration.ts",
        "cannot be imported: Cannot find module './helper.ts' imported from /b/x/registration.ts",
      ).hint,
    ).toMatch(/^fix registration\.ts/);
  });
});
