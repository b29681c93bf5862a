import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { swapDirectory } from "@eval/durable-fs";
import { afterEach, describe, expect, it } from "vitest";
import { makeFixtureBench, type FixtureBench } from "./fixture-bench.test-helpers.ts";
import { signBench } from "./sign.ts";

let fixture: FixtureBench | undefined;
afterEach(() => fixture?.cleanup());

describe("signBench", () => {
  it("writes every case's digest and file digests, then reports exactly what changed", async () => {
    fixture = await makeFixtureBench({ sign: false });
    const { benchPath } = fixture;
    const first = await signBench({ benchPath });
    expect(first).toMatchObject({
      added: ["case-01", "case-02", "case-03", "case-04", "case-05", "case-06"],
      removed: [],
      changed: [],
      unchanged: 0,
      written: true,
    });
    const yaml = readFileSync(first.digests_path, "utf8");
    expect(yaml).toMatch(/^# Written by `evalgate bench sign`/);
    expect(yaml).toContain("serialization: evalgate.case-tree.v2");
    expect(yaml).toContain("case.toml: blake3:");
    expect(yaml).toContain("input/sub/run.sh: blake3:");

    expect(await signBench({ benchPath })).toMatchObject({
      added: [],
      removed: [],
      changed: [],
      unchanged: 6,
      written: false,
    });

    writeFileSync(join(benchPath, "cases", "case-02", "expected", "text.txt"), "new");
    writeFileSync(join(benchPath, "cases", "case-02", "input", "more.txt"), "more");
    rmSync(join(benchPath, "cases", "case-06"), { recursive: true });
    mkdirSync(join(benchPath, "cases", "case-07", "input"), { recursive: true });
    writeFileSync(join(benchPath, "cases", "case-07", "input", "x"), "x");
    const result = await signBench({ benchPath });
    expect(result).toMatchObject({
      added: ["case-07"],
      removed: ["case-06"],
      changed: [{ case_id: "case-02", files: ["expected/text.txt (changed)", "input/more.txt (added)"] }],
      unchanged: 4,
      written: true,
    });
    expect(readdirSync(join(benchPath, "cases")).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });

  it("reads a v1 digests.yaml (case.toml left out) as the previous state and rewrites it as v2", async () => {
    fixture = await makeFixtureBench({ sign: false });
    const { benchPath } = fixture;
    const first = await signBench({ benchPath });
    const v2 = readFileSync(first.digests_path, "utf8");
    writeFileSync(
      first.digests_path,
      v2.replace("serialization: evalgate.case-tree.v2", "serialization: evalgate.case-tree.v1"),
    );
    expect(await signBench({ benchPath })).toMatchObject({ added: [], changed: [], unchanged: 6, written: true });
    expect(readFileSync(first.digests_path, "utf8")).toBe(v2);
  });

  it("refuses to sign a case holding a symlink, leaving digests.yaml as it was", async () => {
    fixture = await makeFixtureBench();
    const digests = join(fixture.benchPath, "cases", "digests.yaml");
    const before = readFileSync(digests, "utf8");
    symlinkSync("/etc/passwd", join(fixture.benchPath, "cases", "case-01", "input", "passwd"));
    await expect(signBench({ benchPath: fixture.benchPath })).rejects.toMatchObject({ code: "EVAL_CASE_UNSAFE_PATH" });
    expect(readFileSync(digests, "utf8")).toBe(before);
    symlinkSync(join(fixture.benchPath, "cases", "case-02"), join(fixture.benchPath, "cases", "case-link"));
    rmSync(join(fixture.benchPath, "cases", "case-01", "input", "passwd"));
    await expect(signBench({ benchPath: fixture.benchPath })).rejects.toMatchObject({
      code: "EVAL_CASE_UNSAFE_PATH",
      message: expect.stringContaining("case-link"),
    });
  });

  it("refuses to sign while a cassette is being swapped into a case, naming it; digests.yaml stays as it was", async () => {
    fixture = await makeFixtureBench();
    const digests = join(fixture.benchPath, "cases", "digests.yaml");
    const before = readFileSync(digests, "utf8");
    const cassette = join(fixture.benchPath, "cases", "case-01", "cassette");
    let refusal: unknown = null;
    // The real swap a --record run does: signing runs while the staging directory is being filled.
    await swapDirectory(
      cassette,
      async (staging) => {
        writeFileSync(join(staging, "cassette.json"), "{}");
        refusal = await signBench({ benchPath: fixture!.benchPath }).catch((error: unknown) => error);
      },
      { replace: true },
    );
    expect(refusal).toMatchObject({
      code: "EVAL_CASE_LOAD_FAILED",
      message: expect.stringMatching(/case-01\/\.cassette\.tmp-[0-9a-f]{12}: is a directory being written/),
    });
    expect(readFileSync(digests, "utf8")).toBe(before);
    // Once the swap is done, the cassette is part of the case like any file.
    expect((await signBench({ benchPath: fixture.benchPath })).changed).toEqual([
      { case_id: "case-01", files: ["cassette/cassette.json (added)"] },
    ]);
  });

  it("attack: signing while another process swaps a case's cassette over and over never crashes and never signs a half-swapped tree", async () => {
    fixture = await makeFixtureBench();
    const caseDir = join(fixture.benchPath, "cases", "case-01");
    const swap = join(import.meta.dirname, "..", "..", "durable-fs", "src", "swap.ts");
    // Another process records: each swap stages a new cassette beside the case, moves the old aside, renames the new in.
    const writer = spawn(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `import { swapDirectorySync } from ${JSON.stringify(swap)};
         import { writeFileSync } from "node:fs";
         const stop = Date.now() + 4000;
         for (let i = 0; Date.now() < stop; i++)
           swapDirectorySync(${JSON.stringify(join(caseDir, "cassette"))}, (staging) => {
             for (let f = 0; f < 20; f++) writeFileSync(staging + "/f" + f, String(i));
           }, { replace: true });`,
      ],
      { stdio: "inherit" },
    );
    const exited = new Promise<number | null>((resolve) => writer.once("exit", resolve));
    let refused = 0;
    let signed = 0;
    for (let running = true; running;) {
      running = writer.exitCode === null;
      try {
        const result = await signBench({ benchPath: fixture.benchPath });
        signed += 1;
        expect(readFileSync(result.digests_path, "utf8")).not.toMatch(/\.cassette\.(tmp|old)-/);
      } catch (error) {
        expect(error).toMatchObject({ code: "EVAL_CASE_LOAD_FAILED" });
        refused += 1;
      }
    }
    expect(await exited).toBe(0);
    // Both outcomes were seen: the race is real, and each side of it is handled.
    expect(signed).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  }, 60_000);

  it("refuses a case directory whose name cannot be a case_id", async () => {
    fixture = await makeFixtureBench();
    mkdirSync(join(fixture.benchPath, "cases", "Bad Name"));
    await expect(signBench({ benchPath: fixture.benchPath })).rejects.toMatchObject({
      code: "EVAL_CASE_LOAD_FAILED",
      message: expect.stringContaining("Bad Name"),
    });
  });

  it("recovers from an unreadable digests.yaml and needs a cases/ directory", async () => {
    fixture = await makeFixtureBench();
    writeFileSync(join(fixture.benchPath, "cases", "digests.yaml"), "{ not yaml");
    expect((await signBench({ benchPath: fixture.benchPath })).added).toHaveLength(6);
    rmSync(join(fixture.benchPath, "cases"), { recursive: true });
    await expect(signBench({ benchPath: fixture.benchPath, name: "uppercase" })).rejects.toMatchObject({
      code: "EVAL_TASK_CLASS_INCOMPLETE",
    });
  });
});
