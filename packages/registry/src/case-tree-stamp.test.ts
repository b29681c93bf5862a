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
    const treeStamps = [...checkpoint.entries.keys()].filter((key) => key.startsWith("case-tree\0"));
    expect(treeStamps).toHaveLength(first.cases.length);
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

  /** Rewrites `path` in place with `edit` (same size), its mtime restored: only the ctime moves. */
  function rewriteInPlace(path: string, edit: (text: string) => string): void {
    const before = statSync(path);
    const text = readFileSync(path, "utf8");
    const edited = edit(text);
    expect(edited).not.toBe(text);
    expect(edited.length).toBe(text.length);
    writeFileSync(path, edited);
    utimesSync(path, before.atime, before.mtime);
  }

  /** The same, then waits until the new ctime is settled: only the changed key can tell the checkpoint. */
  async function rewriteSettled(path: string, edit: (text: string) => string): Promise<void> {
    rewriteInPlace(path, edit);
    await sleep(SETTLE_MS);
  }

  it("keeps each validated case.toml and digests.yaml, and reuses them while the files are unchanged", async () => {
    const checkpoint = memoryCheckpoint();
    const first = await inspectCases(owner(), { caseTrees: checkpoint });
    const kept = [...checkpoint.entries.keys()].filter((key) => key.startsWith("file\0"));
    expect(kept.filter((key) => key.endsWith("/case.toml"))).toHaveLength(first.cases.length);
    expect(kept.filter((key) => key.endsWith("/cases/digests.yaml"))).toHaveLength(1);
    // A reused entry is what was validated: planting a value in it shows it is read instead of the file.
    const tomlKey = kept.find((key) => key.endsWith(join(casePath("case-01"), "case.toml")))!;
    const stamp = JSON.parse(checkpoint.entries.get(tomlKey)!) as { key: string; value: { difficulty: string } };
    checkpoint.entries.set(tomlKey, JSON.stringify({ ...stamp, value: { ...stamp.value, difficulty: "hard" } }));
    const second = await inspectCases(owner(), { caseTrees: checkpoint });
    expect(second.findings).toEqual([]);
    expect(second.cases.find((c) => c.case_id === "case-01")!.difficulty).toBe("hard");
    expect(Object.isFrozen(second.cases.find((c) => c.case_id === "case-01"))).toBe(true);
  });

  it("re-reads a case.toml edited in place to an invalid value (same size, mtime restored) and refuses it", async () => {
    const checkpoint = memoryCheckpoint();
    expect((await inspectCases(owner(), { caseTrees: checkpoint })).findings).toEqual([]);
    const tomlPath = join(casePath("case-02"), "case.toml");
    const difficulty = /difficulty = "(\w+)"/.exec(readFileSync(tomlPath, "utf8"))![1]!;
    await rewriteSettled(tomlPath, (text) =>
      text.replace(`difficulty = "${difficulty}"`, `difficulty = "${difficulty.toUpperCase()}"`),
    );
    const after = await inspectCases(owner(), { caseTrees: checkpoint });
    expect(after.findings.map((f) => [f.error.code, f.path])).toContainEqual(["EVAL_CASE_LOAD_FAILED", tomlPath]);
    expect(after.cases.map((c) => c.case_id)).not.toContain("case-02");
  });

  it("re-reads a digests.yaml edited in place (same size, mtime restored) and refuses the case it no longer matches", async () => {
    const checkpoint = memoryCheckpoint();
    expect((await inspectCases(owner(), { caseTrees: checkpoint })).findings).toEqual([]);
    const digestsPath = join(bench.benchPath, "cases", "digests.yaml");
    await rewriteSettled(digestsPath, (text) => {
      const at = text.indexOf("blake3:", text.indexOf("case-03:")) + "blake3:".length;
      return `${text.slice(0, at)}${text[at] === "0" ? "1" : "0"}${text.slice(at + 1)}`;
    });
    const after = await inspectCases(owner(), { caseTrees: checkpoint });
    expect(after.findings.map((f) => [f.error.code, f.path])).toEqual([
      ["EVAL_CASE_DIGEST_MISMATCH", casePath("case-03")],
    ]);
  });

  it("keeps nothing for a case.toml or digests.yaml that does not validate, nor for one changed within 2 s", async () => {
    const checkpoint = memoryCheckpoint();
    writeFileSync(join(casePath("case-04"), "case.toml"), "not = [toml\n");
    await sleep(SETTLE_MS);
    writeFileSync(join(casePath("case-05"), "case.toml"), readFileSync(join(casePath("case-05"), "case.toml")));
    const first = await inspectCases(owner(), { caseTrees: checkpoint });
    const kept = [...checkpoint.entries.keys()].filter((key) => key.startsWith("file\0"));
    for (const id of ["case-04", "case-05"])
      expect(kept.some((key) => key.endsWith(join(casePath(id), "case.toml")))).toBe(false);
    expect(kept.some((key) => key.endsWith(join(casePath("case-01"), "case.toml")))).toBe(true);
    const second = await inspectCases(owner(), { caseTrees: checkpoint });
    expect(second.findings.map((f) => [f.error.code, f.path])).toEqual(
      first.findings.map((f) => [f.error.code, f.path]),
    );
    expect(second.findings.map((f) => f.error.code)).toContain("EVAL_CASE_LOAD_FAILED");
    // A malformed entry is read as no entry.
    for (const key of kept) checkpoint.entries.set(key, key.endsWith("digests.yaml") ? '{"value":1}' : "{not json");
    expect((await inspectCases(owner(), { caseTrees: checkpoint })).cases).toEqual(second.cases);
  });
});
