import { mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { inspectCases } from "./case-loader.ts";
import { makeFixtureBench, type FixtureBench } from "./fixture-bench.test-helpers.ts";

/** A checkpoint held in memory, counting what it was asked for. */
function memoryCheckpoint() {
  const entries = new Map<string, string>();
  return {
    entries,
    get: (key: string) => entries.get(key),
    set: (key: string, value: string) => entries.set(key, value),
  };
}

/** Stamps are kept only for trees whose entries changed more than 2 s ago. */
const SETTLE_MS = 2_100;

describe("case-tree checkpoint", () => {
  let bench: FixtureBench;
  beforeEach(async () => {
    bench = await makeFixtureBench();
    await sleep(SETTLE_MS);
  });
  afterEach(() => bench.cleanup());
  const owner = () => ({ name: "uppercase", benchPath: bench.benchPath });
  const casePath = (id: string) => join(bench.benchPath, "cases", id);

  it("stamps every case once and then reuses the digests (same cases, no findings)", async () => {
    const checkpoint = memoryCheckpoint();
    const first = await inspectCases(owner(), { caseTrees: checkpoint });
    expect(first.findings).toEqual([]);
    expect(checkpoint.entries.size).toBe(first.cases.length);
    const stamps = [...checkpoint.entries.values()];
    const second = await inspectCases(owner(), { caseTrees: checkpoint });
    expect(second.findings).toEqual([]);
    expect(second.cases).toEqual(first.cases);
    expect([...checkpoint.entries.values()]).toEqual(stamps);
  });

  it("sees a case file rewritten in place with the same size and its mtime restored", async () => {
    const checkpoint = memoryCheckpoint();
    await inspectCases(owner(), { caseTrees: checkpoint });
    const file = join(casePath("case-01"), "input", "text.txt");
    const before = statSync(file);
    const text = readFileSync(file, "utf8");
    writeFileSync(
      file,
      text.replace(/./, (c) => (c === "x" ? "y" : "x")),
    );
    utimesSync(file, before.atime, before.mtime);
    expect(statSync(file).size).toBe(before.size);
    const after = await inspectCases(owner(), { caseTrees: checkpoint });
    expect(after.findings.map((f) => [f.error.code, f.path])).toEqual([
      ["EVAL_CASE_DIGEST_MISMATCH", casePath("case-01")],
    ]);
    expect(after.findings[0]!.error.message).toContain("input/text.txt (changed)");
  });

  it("sees a file added inside an empty subdirectory", async () => {
    mkdirSync(join(casePath("case-04"), "input", "empty"));
    await sleep(SETTLE_MS);
    const checkpoint = memoryCheckpoint();
    expect((await inspectCases(owner(), { caseTrees: checkpoint })).findings).toEqual([]);
    writeFileSync(join(casePath("case-04"), "input", "empty", "planted.txt"), "planted\n");
    const after = await inspectCases(owner(), { caseTrees: checkpoint });
    expect(after.findings.map((f) => f.error.code)).toEqual(["EVAL_CASE_DIGEST_MISMATCH"]);
  });

  it("keeps no stamp for a tree changed within the last 2 s, and ignores a malformed one", async () => {
    const checkpoint = memoryCheckpoint();
    writeFileSync(join(casePath("case-05"), "input", "text.txt"), "fresh\n");
    const first = await inspectCases(owner(), { caseTrees: checkpoint });
    expect([...checkpoint.entries.keys()].some((key) => key.endsWith(casePath("case-05")))).toBe(false);
    expect(first.findings.map((f) => f.path)).toEqual([casePath("case-05")]);
    for (const key of checkpoint.entries.keys()) checkpoint.entries.set(key, "{not json");
    const second = await inspectCases(owner(), { caseTrees: checkpoint });
    expect(second.findings.map((f) => f.path)).toEqual([casePath("case-05")]);
    expect(second.cases.map((c) => c.case_id)).toEqual(first.cases.map((c) => c.case_id));
  });
});
