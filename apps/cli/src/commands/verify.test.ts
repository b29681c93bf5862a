import { mkdtemp, readdir, readFile, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { invoke } from "../test-helpers.ts";
import { recordRuns } from "./audit.test-helpers.ts";

let stateDir: string;
beforeEach(async () => {
  stateDir = await mkdtemp(join(tmpdir(), "cli-verify-"));
});
afterEach(async () => {
  await rm(stateDir, { recursive: true, force: true });
});

const lines = (text: string) =>
  text
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe("evalgate verify", () => {
  it("prints the verification as one JSON line and exits 0 on a good chain", async () => {
    await recordRuns(stateDir, [{}, { complete: false }, {}]);
    const result = await invoke(["verify", "--out", stateDir]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    const [line] = lines(result.stdout);
    expect(line).toMatchObject({
      type: "verify",
      ok: true,
      records: 3,
      complete: 2,
      incomplete: 1,
      first_bad: null,
      strict: false,
    });
    expect(line!.head).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it("reads the state directory from EVALGATE_STATE_DIR and prints a sentence with --format human", async () => {
    await recordRuns(stateDir, [{}]);
    const result = await invoke(["verify", "--format", "human", "--strict"], { env: { EVALGATE_STATE_DIR: stateDir } });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^audit chain OK: 1 records \(1 complete, 0 incomplete\), head sha256:/);
  });

  it("exits 5 on an edited record, naming the file on stdout and in one stderr line", async () => {
    const paths = await recordRuns(stateDir, [{}, {}, {}]);
    await writeFile(
      paths[1]!,
      (await readFile(paths[1]!, "utf8")).replace(/"lower_bound_95":[0-9.]+/, '"lower_bound_95":0.99'),
    );
    const result = await invoke(["verify", "--out", stateDir]);
    expect(result.code).toBe(5);
    const name = paths[1]!.split("/").at(-1)!;
    expect(lines(result.stdout)[0]).toMatchObject({
      ok: false,
      first_bad: { file: name, reason: expect.stringMatching(/edited/) },
    });
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toMatch(new RegExp(`${name.replaceAll(".", "\\.")}.*EVAL_CHAIN_TAMPERED`));
    const human = await invoke(["verify", "--out", stateDir, "--format", "human"]);
    expect(human.stdout).toMatch(/^audit chain FAILED at .*: the report was edited/);
  });

  it("detects deleted newest records only with --expect-head", async () => {
    const paths = await recordRuns(stateDir, [{}, {}, {}]);
    const head = JSON.parse(await readFile(paths[2]!, "utf8")).chain_hash as string;
    await unlink(paths[2]!);
    expect((await invoke(["verify", "--out", stateDir])).code).toBe(0);
    const anchored = await invoke(["verify", "--out", stateDir, "--expect-head", head]);
    expect(anchored.code).toBe(5);
    expect(lines(anchored.stdout)[0]).toMatchObject({
      first_bad: { expected: head, reason: expect.stringMatching(/newest records were deleted/) },
    });
  });

  it("an anchor kept outside the state directory catches truncation with the head pointer restored (attack: newest, failing run deleted)", async () => {
    const paths = await recordRuns(stateDir, [{ passed: 12 }, { passed: 1 }]);
    const pointer = join(stateDir, "runs", ".index", "head.json");
    const outside = await mkdtemp(join(tmpdir(), "cli-anchor-"));
    const anchorFile = join(outside, "anchor.json");
    const written = await invoke(["anchor", "--out", stateDir, "--write", anchorFile]);
    expect(written.code, written.stderr).toBe(0);
    expect(lines(written.stdout)[0]).toMatchObject({ type: "anchor", records: 2, path: anchorFile });
    expect((await invoke(["verify", "--out", stateDir, "--anchor", anchorFile])).code).toBe(0);
    // The attack: delete the newest (failing) record, put the old head pointer back.
    const records = (await readdir(join(stateDir, "runs"))).filter((name) => name.endsWith(".json")).sort();
    expect(records).toHaveLength(2);
    await unlink(join(stateDir, "runs", records[1]!));
    await writeFile(pointer, `${JSON.stringify({ file: records[0], records: 1 })}\n`);
    expect((await invoke(["verify", "--out", stateDir])).code).toBe(0); // without the anchor nothing shows
    const anchored = await invoke(["verify", "--out", stateDir, "--anchor", anchorFile]);
    expect(anchored.code).toBe(5);
    expect(lines(anchored.stdout)[0]).toMatchObject({
      ok: false,
      first_bad: { reason: expect.stringMatching(/newest records were deleted .*\(anchor of 2 records at /) },
    });
    expect(anchored.stderr).toMatch(/EVAL_CHAIN_TAMPERED/);
    const inside = await invoke(["anchor", "--out", stateDir, "--write", join(stateDir, "anchor.json")]);
    expect(inside.code).toBe(1);
    expect(inside.stderr).toMatch(/is inside the state directory .*EVAL_USAGE/);
    // ATTACK: a file name starting with two dots is still inside the state directory.
    const dotted = await invoke(["anchor", "--out", stateDir, "--write", join(stateDir, "..anchor.json")]);
    expect(dotted.code, dotted.stderr).toBe(1);
    expect(dotted.stderr).toMatch(/is inside the state directory .*EVAL_USAGE/);
    await writeFile(join(outside, "junk.json"), "{}");
    expect((await invoke(["verify", "--out", stateDir, "--anchor", join(outside, "junk.json")])).stderr).toMatch(
      /is not a chain anchor.*EVAL_USAGE/,
    );
    await rm(outside, { recursive: true, force: true });
    expect(paths).toHaveLength(2);
  });

  it("verifies a --since window and rejects a bad --since or --expect-head in one line (exit 1)", async () => {
    await recordRuns(stateDir, [{}, {}]);
    const window = await invoke(["verify", "--out", stateDir, "--since", "2000-01-01"]);
    expect(lines(window.stdout)[0]).toMatchObject({ ok: true, records: 2, skipped: 0 });
    for (const argv of [
      ["--since", "last week"],
      ["--expect-head", "nope"],
    ]) {
      const result = await invoke(["verify", "--out", stateDir, ...argv]);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe("");
      expect(result.stderr).toMatch(/^evalgate: --(since|expect-head) must be .*EVAL_USAGE/);
      expect(result.stderr.trim().split("\n")).toHaveLength(1);
    }
  });

  it("treats a missing runs directory as an empty chain", async () => {
    const result = await invoke(["verify", "--out", join(stateDir, "nothing")]);
    expect(result.code).toBe(0);
    expect(lines(result.stdout)[0]).toMatchObject({ ok: true, records: 0 });
    expect(await readdir(stateDir)).toEqual([]);
  });
});
